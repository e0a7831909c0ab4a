package toolgate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
	"github.com/toolgate/toolgate/policy"
)

// countedServer is an in-process test server whose calls are counted.
func countedServer(t *testing.T, name string) (toolgate.ServerConfig, *testserver.Stats) {
	srv, stats := testserver.New()
	return toolgate.ServerConfig{Name: name, NewTransport: func() mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), server, nil); err != nil {
			t.Errorf("in-process server: %v", err)
		}
		return client
	}}, stats
}

func TestPolicyDeniesBeforeTheServerHearsOfIt(t *testing.T) {
	sc, stats := countedServer(t, "web")
	m := newManager(t, toolgate.Config{
		Servers: []toolgate.ServerConfig{sc},
		Policy: policy.Config{
			Presets: []string{"huggingface-datasets"},
			Rules: []policy.Rule{
				{Action: policy.Deny, Server: "web", Tool: "ec*", URLHost: "*.example.com", URLPath: "/private/*", Message: "private pages are off limits"},
				{Action: policy.Deny, Tool: "slow", Role: "sub-agent", Message: "sub-agents may not wait"},
				{Action: policy.Deny, Arg: "text", Regex: "(?i)drop table"},
				{Action: policy.Deny, URLScheme: "http", Args: []string{"text"}},
				{Action: policy.Log, Arg: "text", Regex: "(?i)password"},
			},
		},
	})
	ctx := ctxT(t)
	sub := toolgate.WithCaller(ctx, toolgate.Caller{Agent: "helper", Role: "sub-agent"})
	main := toolgate.WithCaller(ctx, toolgate.Caller{Agent: "boss", Role: "main"})
	for _, tc := range []struct {
		name string
		ctx  context.Context
		tool string
		args map[string]any
		msg  string // "" means allowed
	}{
		{"url host and path", ctx, "echo", map[string]any{"text": "https://a.example.com/private/x"}, "private pages are off limits"},
		{"preset", ctx, "echo", map[string]any{"text": "https://huggingface.co/datasets/gaia"}, policy.HuggingFaceMessage},
		{"caller role", sub, "slow", map[string]any{"ms": 1}, "sub-agents may not wait"},
		{"argument regex", ctx, "echo", map[string]any{"text": "1; DROP TABLE users"}, "denied by policy rule rules[2]"},
		{"url scheme", ctx, "echo", map[string]any{"text": "http://plain.test/"}, "denied by policy rule rules[3]"},
		{"public page passes", ctx, "echo", map[string]any{"text": "https://a.example.com/public"}, ""},
		{"main agent may wait", main, "slow", map[string]any{"ms": 1}, ""},
		{"log rule lets through", ctx, "echo", map[string]any{"text": "my password"}, ""},
	} {
		before := stats.Total()
		r := m.CallTool(tc.ctx, "web", tc.tool, tc.args)
		if tc.msg != "" {
			wantCode(t, r, toolgate.CodeBlocked, tc.msg)
			if got := stats.Total() - before; got != 0 {
				t.Errorf("%s: server received %d calls, want 0", tc.name, got)
			}
			continue
		}
		wantOK(t, r)
		if got := stats.Total() - before; got != 1 {
			t.Errorf("%s: server received %d calls, want 1", tc.name, got)
		}
		if tc.tool == "echo" && r.Text != tc.args["text"] {
			t.Errorf("%s: allowed call changed on the way: %q", tc.name, r.Text)
		}
	}
	d := m.Check(sub, "web", "slow", nil)
	if d.Action != policy.Deny || d.Rule != "rules[1]" {
		t.Errorf("Check = %+v", d)
	}
}

func TestDiscoveryAgreesWithPolicy(t *testing.T) {
	sc, _ := countedServer(t, "ts")
	m := newManager(t, toolgate.Config{
		Servers: []toolgate.ServerConfig{sc},
		Policy: policy.Config{Rules: []policy.Rule{
			{Action: policy.Deny, Tool: "slow", Role: "sub-agent"},
			{Action: policy.Deny, Tool: "echo", URLHost: "example.com"},
		}},
	})
	ctx := ctxT(t)
	list := func(ctx context.Context) []string {
		defs, err := m.ToolDefinitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return toolNames(defs[0])
	}
	subTools := list(toolgate.WithCaller(ctx, toolgate.Caller{Role: "sub-agent"}))
	if slices.Contains(subTools, "slow") || !slices.Contains(subTools, "echo") {
		t.Errorf("sub-agent sees %v: want no slow (denied outright), echo (denied only for some URLs)", subTools)
	}
	if mainTools := list(ctx); !slices.Contains(mainTools, "slow") {
		t.Errorf("main agent sees %v, want slow", mainTools)
	}
}

func TestArgumentsValidatedAgainstSchema(t *testing.T) {
	sc, stats := countedServer(t, "ts")
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
	ctx := ctxT(t)
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"wrong type", "structured", map[string]any{"a": "two", "b": 3}, []string{"at /a:", "integer"}},
		{"missing required", "echo", map[string]any{}, []string{"missing propert", "text"}},
		{"extra field", "echo", map[string]any{"text": "x", "loud": true}, []string{"additional propert", "loud"}},
		{"two problems", "structured", map[string]any{"a": 1.5, "b": "x"}, []string{"at /a:", "at /b:"}},
	} {
		before := stats.Total()
		r := m.CallTool(ctx, "ts", tc.tool, tc.args)
		for _, w := range tc.want {
			wantCode(t, r, toolgate.CodeInvalidArguments, w)
		}
		if stats.Total() != before {
			t.Errorf("%s: the server received a call with invalid arguments", tc.name)
		}
	}
	wantOK(t, m.CallTool(ctx, "ts", "structured", map[string]any{"a": 1, "b": int64(2)}))
}

func TestOutputLimit(t *testing.T) {
	sc, _ := countedServer(t, "ts")
	small, _ := countedServer(t, "small")
	small.MaxResultChars = 5
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc, small}})
	ctx := ctxT(t)

	r := m.CallTool(ctx, "ts", "big", map[string]any{"chars": 150_000})
	wantOK(t, r)
	if !r.Truncated || !strings.HasSuffix(r.Text, "\n... [Result truncated]") || strings.Count(r.Text, "x") != toolgate.DefaultMaxResultChars {
		t.Errorf("150,000 chars: truncated=%v, %d x's, ends %q", r.Truncated, strings.Count(r.Text, "x"), r.Text[len(r.Text)-30:])
	}
	r = m.CallTool(ctx, "small", "echo", map[string]any{"text": "héllo wörld"})
	if r.Text != "héllo\n... [Result truncated]" || !r.Truncated {
		t.Errorf("cut on a character boundary: %q", r.Text)
	}
	r = m.CallTool(ctx, "small", "echo", map[string]any{"text": "héllo"})
	if r.Text != "héllo" || r.Truncated {
		t.Errorf("at the limit: %q truncated=%v", r.Text, r.Truncated)
	}
}

func TestBigOutputIsNotKept(t *testing.T) {
	sc, _ := countedServer(t, "ts")
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "warm"}))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// The go-sdk refuses any one message over 16 MiB (a fault test covers
	// that); 12 MB is 120 times the limit.
	r := m.CallTool(ctx, "ts", "big", map[string]any{"chars": 12_000_000})
	// The go-sdk's transports keep their read buffer as big as the biggest
	// message of the session; ending the session frees it, and what is
	// left is what the Result holds.
	m.Close()
	runtime.GC()
	runtime.ReadMemStats(&after)
	wantOK(t, r)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap held after a 12 MB result: %d bytes (limit %d chars)", held, toolgate.DefaultMaxResultChars)
	if held > 20*toolgate.DefaultMaxResultChars {
		t.Errorf("the process holds %d more bytes after a 12 MB result, want under %d", held, 20*toolgate.DefaultMaxResultChars)
	}
	runtime.KeepAlive(r)
}

func TestAuditLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sc, _ := countedServer(t, "ts")
	m, err := toolgate.New(toolgate.Config{
		Servers:  []toolgate.ServerConfig{sc},
		AuditLog: path,
		Policy:   policy.Config{Rules: []policy.Rule{{Action: policy.Deny, Tool: "fail", Name: "no-fail"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := toolgate.WithCaller(ctxT(t), toolgate.Caller{Agent: "a1", Role: "main"})
	const callers, each = 64, 5
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				m.CallTool(ctx, "ts", "echo", map[string]any{"text": "hi", "api_key": "sk-123"})
			}
		}()
	}
	wg.Wait()
	wantCode(t, m.CallTool(ctx, "ts", "fail", map[string]any{"message": "x"}), toolgate.CodeBlocked, "no-fail")
	m.Close()

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines, denied int
	sc2 := bufio.NewScanner(f)
	for sc2.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc2.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		lines++
		if rec["decision"] == "deny" {
			denied++
			if rec["rule"] != "no-fail" || rec["error_code"] != "blocked" {
				t.Errorf("deny record = %v", rec)
			}
		}
		if strings.Contains(sc2.Text(), "sk-123") || rec["agent"] != "a1" || rec["server"] != "ts" {
			t.Errorf("record = %s", sc2.Text())
		}
	}
	if lines != callers*each+1 || denied != 1 {
		t.Errorf("%d records (%d denied), want %d (1 denied)", lines, denied, callers*each+1)
	}
}
