package toolgate_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

// pairedMedians runs a and b alternately, once each per iteration (A B A B
// ...), and reports the median duration of each and their ratio b/a.
func pairedMedians(bb *testing.B, nameA, nameB string, a, b func() error) {
	var da, db []time.Duration
	for bb.Loop() {
		for _, run := range []struct {
			f   func() error
			out *[]time.Duration
		}{{a, &da}, {b, &db}} {
			start := time.Now()
			if err := run.f(); err != nil {
				bb.Fatal(err)
			}
			*run.out = append(*run.out, time.Since(start))
		}
	}
	ma, mb := median(da), median(db)
	bb.ReportMetric(0, "ns/op") // the pair's total says nothing; see the medians
	bb.ReportMetric(float64(ma.Nanoseconds()), nameA+"-ns/call")
	bb.ReportMetric(float64(mb.Nanoseconds()), nameB+"-ns/call")
	bb.ReportMetric(float64(mb)/float64(ma), "ratio")
	bb.Logf("%d pairs: median %s %v, %s %v, ratio %.3f", len(da), nameA, ma, nameB, mb, float64(mb)/float64(ma))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// BenchmarkBrowserStatefulOverhead compares a call through toolgate's
// stateful path (scope, FIFO, browser watch, session) with the same call on
// a bare go-sdk session to the same Playwright MCP server command, each on
// its own browser showing the same page. Run it with e.g.
//
//	go test -run '^$' -bench BrowserStatefulOverhead -benchtime 300x
func BenchmarkBrowserStatefulOverhead(b *testing.B) {
	base := site(b)
	ctx := context.Background()
	pw := playwrightServer(b, "playwright")

	cmd := exec.Command(pw.Command, pw.Args...)
	cmd.Dir = pw.Cwd
	client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	sdkCall := func(tool string, args map[string]any) error {
		cctx, cancel := context.WithTimeout(ctx, time.Minute) // as toolgate does
		defer cancel()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err == nil && res.IsError {
			b.Fatalf("%s: tool error", tool)
		}
		return err
	}
	m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{pw}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	sc := m.Scope("bench")
	tgCall := func(tool string, args map[string]any) error {
		if r := sc.CallTool(ctx, "playwright", tool, args); r.Err != nil {
			return r.Err
		}
		return nil
	}
	nav := map[string]any{"url": base + "/form"}
	for _, f := range []func(string, map[string]any) error{sdkCall, tgCall} {
		if err := f("browser_navigate", nav); err != nil {
			b.Fatal(err)
		}
		for range 5 { // warm both up
			_ = f("browser_snapshot", map[string]any{})
		}
	}
	pairedMedians(b, "sdk", "toolgate",
		func() error { return sdkCall("browser_snapshot", map[string]any{}) },
		func() error { return tgCall("browser_snapshot", map[string]any{}) })
}

// BenchmarkBrowserPerCallVsPersistent measures what the original's
// reconnect-per-call model (a new server and a new browser for every call)
// costs here, next to toolgate's persistent stateful session: the same
// navigation, alternately on each. Run it with e.g.
//
//	go test -run '^$' -bench BrowserPerCallVsPersistent -benchtime 7x
func BenchmarkBrowserPerCallVsPersistent(b *testing.B) {
	base := site(b)
	ctx := context.Background()
	persistent := playwrightServer(b, "persistent")
	perCall := playwrightServer(b, "percall")
	perCall.Stateful, perCall.Session = false, toolgate.SessionPerCall
	m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{persistent, perCall}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	nav := func(server string) func() error {
		return func() error {
			if r := m.CallTool(ctx, server, "browser_navigate", map[string]any{"url": base + "/next"}); r.Err != nil {
				return r.Err
			}
			return nil
		}
	}
	if err := nav("persistent")(); err != nil { // the persistent browser starts once
		b.Fatal(err)
	}
	pairedMedians(b, "persistent", "per-call", nav("persistent"), nav("percall"))
}
