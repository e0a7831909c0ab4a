package toolgate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

func fmtAny(v any) string { return fmt.Sprint(v) }

// transports runs f once per transport against the Go test server.
func transports(t *testing.T, f func(t *testing.T, sc toolgate.ServerConfig)) {
	t.Run("stdio", func(t *testing.T) { f(t, stdioServer("ts", "serve")) })
	t.Run("sse", func(t *testing.T) {
		url, _ := httpServer(t, true)
		f(t, toolgate.ServerConfig{Name: "ts", URL: url, Transport: toolgate.TransportSSE})
	})
	t.Run("streamable", func(t *testing.T) {
		url, _ := httpServer(t, false)
		f(t, toolgate.ServerConfig{Name: "ts", URL: url})
	})
	t.Run("in-process", func(t *testing.T) {
		f(t, inProcessServer(t, "ts"))
	})
}

// inProcessServer reaches a test server in this process through in-memory transports.
func inProcessServer(t *testing.T, name string) toolgate.ServerConfig {
	sc, _ := countedServer(t, name)
	return sc
}

func TestCallsOnEveryTransport(t *testing.T) {
	transports(t, func(t *testing.T, sc toolgate.ServerConfig) {
		m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
		ctx := ctxT(t)

		defs, err := m.ToolDefinitions(ctx)
		if err != nil || len(defs) != 1 || defs[0].Error != "" {
			t.Fatalf("ToolDefinitions = %+v, %v", defs, err)
		}
		names := toolNames(defs[0])
		for _, want := range []string{"echo", "slow", "fail", "image", "structured", "mixed", "add_tool"} {
			if !slices.Contains(names, want) {
				t.Errorf("tool %q missing from %v", want, names)
			}
		}

		r := m.CallTool(ctx, "ts", "echo", map[string]any{"text": "héllo"})
		wantOK(t, r)
		if r.Text != "héllo" {
			t.Errorf("echo text = %q", r.Text)
		}

		r = m.CallTool(ctx, "ts", "image", nil)
		wantOK(t, r)
		if !strings.Contains(r.Text, "[image image/png ") || len(r.Content) != 2 {
			t.Errorf("image = %q with %d blocks", r.Text, len(r.Content))
		}
		if img, ok := r.Content[0].(*mcp.ImageContent); !ok || len(img.Data) == 0 {
			t.Errorf("image block = %#v", r.Content[0])
		}

		r = m.CallTool(ctx, "ts", "structured", map[string]any{"a": 2, "b": 40})
		wantOK(t, r)
		if got, _ := json.Marshal(r.Structured); string(got) != `{"sum":42}` {
			t.Errorf("structured = %s (text %q)", got, r.Text)
		}

		r = m.CallTool(ctx, "ts", "mixed", nil)
		wantOK(t, r)
		lines := strings.Split(r.Text, "\n")
		if len(lines) != 5 || lines[0] != "first" || !strings.HasPrefix(lines[1], "[image image/png") ||
			lines[2] != "embedded text" || !strings.Contains(lines[3], "test://link") || lines[4] != "last" {
			t.Errorf("mixed text = %q", r.Text)
		}

		wantCode(t, m.CallTool(ctx, "ts", "fail", map[string]any{"message": "it broke"}), toolgate.CodeToolError, "it broke")
		wantCode(t, m.CallTool(ctx, "ts", "nosuch", nil), toolgate.CodeUnknownTool, `no tool "nosuch"`)
		wantCode(t, m.CallTool(ctx, "nope", "echo", nil), toolgate.CodeUnknownServer, `"nope" is not configured`)
		wantCode(t, m.CallTool(ctx, "ts", "echo", map[string]any{"bad": make(chan int)}), toolgate.CodeInvalidArguments, "JSON")
	})
}

func toolNames(st toolgate.ServerTools) []string {
	var names []string
	for _, t := range st.Tools {
		names = append(names, t.Name)
	}
	return names
}

func TestTimeoutCancelsAndSessionSurvives(t *testing.T) {
	transports(t, func(t *testing.T, sc toolgate.ServerConfig) {
		sc.Timeout = 300 * time.Millisecond
		m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
		ctx := ctxT(t)
		wantCode(t, m.CallTool(ctx, "ts", "slow", map[string]any{"ms": 10000}), toolgate.CodeTimeout, "timed out after 300ms")
		wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "still here"}))

		// A caller's own deadline wins when sooner, and cancel is its own code.
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		wantCode(t, m.CallTool(short, "ts", "slow", map[string]any{"ms": 10000}), toolgate.CodeTimeout, "deadline")
		canceled, cancel2 := context.WithCancel(ctx)
		time.AfterFunc(100*time.Millisecond, cancel2)
		wantCode(t, m.CallTool(canceled, "ts", "slow", map[string]any{"ms": 10000}), toolgate.CodeCanceled, "canceled")
		wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "still here"}))
	})
}

func TestServerIsToldOfCancellation(t *testing.T) {
	url, stats := httpServer(t, false)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "ts", URL: url, Timeout: 200 * time.Millisecond}}})
	wantCode(t, m.CallTool(ctxT(t), "ts", "slow", map[string]any{"ms": 10000}), toolgate.CodeTimeout, "")
	deadline := time.Now().Add(5 * time.Second)
	for stats.Cancelled() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if stats.Cancelled() != 1 {
		t.Errorf("server saw %d cancellations, want 1", stats.Cancelled())
	}
}

func TestCrashIsConnectionLostThenReconnects(t *testing.T) {
	log := &stepLog{}
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{stdioServer("ts", "serve")}}, toolgate.WithStepLogger(log))
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "ts", "stderr", map[string]any{"text": "about to crash"}))
	wantCode(t, m.CallTool(ctx, "ts", "crash", nil), toolgate.CodeConnectionLost, "testserver: crashing")
	r := m.CallTool(ctx, "ts", "echo", map[string]any{"text": "back"})
	wantOK(t, r)
	if r.Text != "back" {
		t.Errorf("after reconnect echo = %q", r.Text)
	}
	for _, step := range []string{"session_lost", "reconnect"} {
		if !strings.Contains(log.String(), step) {
			t.Errorf("step log has no %q:\n%s", step, log)
		}
	}
}

func TestConnectFailures(t *testing.T) {
	cfg := toolgate.Config{
		ConnectTimeout: time.Second,
		Servers: []toolgate.ServerConfig{
			{Name: "missing", Command: "toolgate-no-such-command"},
			stdioServer("dies", "exit-during-init"),
			{Name: "refused", URL: "http://127.0.0.1:1/mcp"},
			stdioServer("slow", "slow-start"),
			stdioServer("good", "serve"),
		},
	}
	m := newManager(t, cfg)
	defs, err := m.ToolDefinitions(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, err string }{
		{"missing", `connect_failed: exec: "toolgate-no-such-command": executable file not found`},
		{"dies", "testserver: exiting during initialize"},
		{"refused", "connection refused"},
		{"slow", "timed out after 1s connecting"},
		{"good", ""},
	}
	for i, w := range want {
		if defs[i].Name != w.name || !strings.Contains(defs[i].Error, w.err) || (w.err == "") != (defs[i].Error == "") {
			t.Errorf("defs[%d] = %s %q, want %s with %q", i, defs[i].Name, defs[i].Error, w.name, w.err)
		}
	}
	if len(defs[4].Tools) == 0 {
		t.Error("good server has no tools")
	}
	wantCode(t, m.CallTool(ctxT(t), "missing", "x", nil), toolgate.CodeConnectFailed, "executable file not found")
	wantCode(t, m.CallTool(ctxT(t), "dies", "x", nil), toolgate.CodeConnectFailed, "exit status 3")
}

func TestAllowDeny(t *testing.T) {
	url, stats := httpServer(t, false)
	m := newManager(t, toolgate.Config{
		Servers: []toolgate.ServerConfig{{Name: "ts", URL: url}},
		Deny:    []string{"ts:fa*", "*:crash"},
		Allow:   []string{"ts:*"},
	})
	ctx := ctxT(t)
	defs, _ := m.ToolDefinitions(ctx)
	names := toolNames(defs[0])
	if slices.Contains(names, "fail") || slices.Contains(names, "crash") || !slices.Contains(names, "echo") {
		t.Errorf("listed tools %v", names)
	}
	before := stats.Total()
	wantCode(t, m.CallTool(ctx, "ts", "fail", nil), toolgate.CodeBlocked, `"ts:fa*"`)
	if stats.Total() != before {
		t.Error("server received a denied call")
	}
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "x"}))

	only := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "ts", URL: url}}, Allow: []string{"ts:echo"}})
	defs, _ = only.ToolDefinitions(ctx)
	if names := toolNames(defs[0]); !slices.Equal(names, []string{"echo"}) {
		t.Errorf("with allow list, listed %v", names)
	}
	wantCode(t, only.CallTool(ctx, "ts", "image", nil), toolgate.CodeBlocked, "toolgate.allow")
}

func TestListChangedRefreshesDiscovery(t *testing.T) {
	transports(t, func(t *testing.T, sc toolgate.ServerConfig) {
		m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
		ctx := ctxT(t)
		if _, err := m.ToolDefinitions(ctx); err != nil {
			t.Fatal(err)
		}
		wantOK(t, m.CallTool(ctx, "ts", "add_tool", map[string]any{"name": "fresh"}))
		deadline := time.Now().Add(5 * time.Second)
		for {
			defs, _ := m.ToolDefinitions(ctx)
			if slices.Contains(toolNames(defs[0]), "fresh") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("new tool not listed: %v", toolNames(defs[0]))
			}
			time.Sleep(20 * time.Millisecond)
		}
		wantOK(t, m.CallTool(ctx, "ts", "fresh", map[string]any{"text": "x"}))
	})
}

func TestConcurrentCallersShareOneSession(t *testing.T) {
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{stdioServer("ts", "serve")}})
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan string, 64*10)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				text := fmt.Sprintf("%d-%d", g, i)
				r := m.CallTool(ctx, "ts", "echo", map[string]any{"text": text})
				if r.Err != nil || r.Text != text {
					errs <- fmt.Sprintf("%s: %+v", text, r)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := testServerProcesses(t); n != 1 {
		t.Errorf("%d server processes for 640 calls, want 1", n)
	}
}

func TestCloseEndsEveryChildQuickly(t *testing.T) {
	var cfg toolgate.Config
	for i := range 10 {
		cfg.Servers = append(cfg.Servers, stdioServer(fmt.Sprintf("s%d", i), "ignore-stdin-close"))
	}
	m, err := toolgate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := m.ToolDefinitions(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		if d.Error != "" {
			t.Fatalf("%s: %s", d.Name, d.Error)
		}
	}
	if n := testServerProcesses(t); n != 10 {
		t.Fatalf("%d children before Close, want 10", n)
	}
	start := time.Now()
	m.Close()
	took := time.Since(start)
	t.Logf("Close of 10 servers that ignore stdin closing and SIGTERM took %v", took)
	if took > 2*time.Second {
		t.Errorf("Close took %v for 10 servers that ignore stdin closing, want < 2s", took)
	}
	if n := testServerProcesses(t); n != 0 {
		t.Errorf("%d children left after Close", n)
	}
	m.Close() // idempotent
	wantCode(t, m.CallTool(ctxT(t), "s0", "echo", nil), toolgate.CodeClosed, "closed")
	if _, err := m.ToolDefinitions(ctxT(t)); err != toolgate.ErrClosed {
		t.Errorf("ToolDefinitions after Close: %v", err)
	}
}

func TestCallsRacingClose(t *testing.T) {
	m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{stdioServer("ts", "serve")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "warm"}))
	results := make(chan toolgate.Result, 200)
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- m.CallTool(ctx, "ts", "slow", map[string]any{"ms": 5})
		}()
	}
	time.Sleep(2 * time.Millisecond)
	m.Close()
	wg.Wait()
	close(results)
	n := 0
	for r := range results {
		n++
		if r.Err != nil && r.Err.Code != toolgate.CodeClosed {
			t.Errorf("call racing Close got %v, want success or closed", r.Err)
		}
	}
	if n != 200 {
		t.Errorf("%d results for 200 calls", n)
	}
	if n := testServerProcesses(t); n != 0 {
		t.Errorf("%d children left after Close", n)
	}
}

func TestPerCallMode(t *testing.T) {
	sc := stdioServer("ts", "serve")
	sc.Session = toolgate.SessionPerCall
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
	ctx := ctxT(t)
	for i := range 3 {
		r := m.CallTool(ctx, "ts", "echo", map[string]any{"text": fmt.Sprint(i)})
		wantOK(t, r)
		if n := testServerProcesses(t); n != 0 {
			t.Errorf("per-call mode left %d processes after a call", n)
		}
	}
	wantCode(t, m.CallTool(ctx, "ts", "nosuch", nil), toolgate.CodeUnknownTool, "nosuch")
}

func TestStepLogKeepsSecretsOut(t *testing.T) {
	log := &stepLog{}
	sc := stdioServer("ts", "stderr-noise")
	sc.Env["API_KEY"] = "sk-env-secret"
	url, _ := httpServer(t, false)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{
		sc,
		{Name: "remote", URL: url, Headers: map[string]string{"Authorization": "Bearer hdr-secret"}},
		{Name: "broken", Command: "toolgate-no-such-command", Env: map[string]string{"TOKEN": "tok-secret"}},
	}}, toolgate.WithStepLogger(log))
	ctx := ctxT(t)
	m.ToolDefinitions(ctx)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "x"}))
	wantOK(t, m.CallTool(ctx, "remote", "echo", map[string]any{"text": "x"}))
	m.Close()
	out := log.String()
	for _, step := range []string{"info init", "discovery listed", "error discovery", "call_start", "call_end", "duration_ms=", "close"} {
		if !strings.Contains(out, step) {
			t.Errorf("step log lacks %q", step)
		}
	}
	for _, secret := range []string{"sk-env-secret", "hdr-secret", "tok-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("step log leaks %q", secret)
		}
	}
}

// swappable lets a test replace an HTTP server's handler, so that the new
// one has forgotten every session.
type swappable struct {
	mu  sync.Mutex
	h   http.Handler
	ids []string // session IDs seen
}

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.h
	if id := r.Header.Get("Mcp-Session-Id"); id != "" && !slices.Contains(s.ids, id) {
		s.ids = append(s.ids, id)
	}
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

// endSessions deletes, on h, every session the swappable has seen.
func (s *swappable) endSessions(h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.ids {
		req := httptest.NewRequest(http.MethodDelete, "/", nil)
		req.Header.Set("Mcp-Session-Id", id)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

func TestForgottenHTTPSessionReconnects(t *testing.T) {
	h, _ := testserver.StreamableHandler()
	sw := &swappable{h: h}
	srv := httptest.NewServer(sw)
	t.Cleanup(srv.Close) // after the Manager's cleanup: its streams must end first
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "ts", URL: srv.URL}}})
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "one"}))

	fresh, _ := testserver.StreamableHandler()
	sw.mu.Lock()
	sw.h = fresh // the server restarted: our session ID means nothing to it
	sw.mu.Unlock()
	t.Cleanup(func() { sw.endSessions(h) }) // the old server's session must not outlive the test

	wantCode(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "two"}), toolgate.CodeConnectionLost, "")
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "three"}))
}
