package toolgate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

// statefulServer is a stdio test server marked stateful.
func statefulServer(name string) toolgate.ServerConfig {
	sc := stdioServer(name, "serve")
	sc.Stateful = true
	return sc
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStatefulCallsRunOneAtATimeInArrivalOrder(t *testing.T) {
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{statefulServer("ts")}})
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "warm"}))

	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	run := func(tool string, args map[string]any, label string) {
		wg.Go(func() {
			wantOK(t, m.CallTool(ctx, "ts", tool, args))
			mu.Lock()
			order = append(order, label)
			mu.Unlock()
		})
	}
	run("slow", map[string]any{"ms": 300}, "slow")
	for i := range 5 {
		time.Sleep(30 * time.Millisecond) // arrive in this order, all while slow runs
		run("echo", map[string]any{"text": "x"}, fmt.Sprint(i))
	}
	wg.Wait()
	if got := strings.Join(order, " "); got != "slow 0 1 2 3 4" {
		t.Errorf("calls finished in order %q, want %q", got, "slow 0 1 2 3 4")
	}
}

func TestStatefulWaitHonoursContext(t *testing.T) {
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{statefulServer("ts")}})
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "warm"}))
	slow := make(chan toolgate.Result)
	go func() { slow <- m.CallTool(ctx, "ts", "slow", map[string]any{"ms": 1500}) }()
	time.Sleep(100 * time.Millisecond)

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	wantCode(t, m.CallTool(short, "ts", "echo", map[string]any{"text": "late"}), toolgate.CodeTimeout, "waited")
	if d := time.Since(start); d > time.Second {
		t.Errorf("a waiting call whose deadline passed returned after %v", d)
	}
	canceled, cancel2 := context.WithCancel(ctx)
	cancel2()
	wantCode(t, m.CallTool(canceled, "ts", "echo", map[string]any{"text": "gone"}), toolgate.CodeCanceled, "")
	wantOK(t, <-slow)
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "after"})) // the queue is free again
}

func TestStatefulCrashSaysStateReset(t *testing.T) {
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{statefulServer("ts"), stdioServer("plain", "serve")}})
	ctx := ctxT(t)
	for _, name := range []string{"ts", "plain"} {
		wantOK(t, m.CallTool(ctx, name, "echo", map[string]any{"text": "before"}))
		wantCode(t, m.CallTool(ctx, name, "crash", nil), toolgate.CodeConnectionLost, "")
		r := m.CallTool(ctx, name, "echo", map[string]any{"text": "after"})
		wantOK(t, r)
		if stateful := name == "ts"; r.StateReset != stateful {
			t.Errorf("%s: StateReset = %v after a crash, want %v", name, r.StateReset, stateful)
		}
		if name == "plain" {
			continue
		}
		if r.Text != toolgate.StateResetNotice+"\nafter" {
			t.Errorf("text after the crash = %q, want the notice first", r.Text)
		}
		data, _ := json.Marshal(r)
		if !strings.Contains(string(data), `"state_reset":true`) {
			t.Errorf("JSON lacks state_reset: %s", data)
		}
		r = m.CallTool(ctx, name, "echo", map[string]any{"text": "again"})
		if r.StateReset || r.Text != "again" {
			t.Errorf("second call after the crash = %+v, want no notice", r)
		}
		data, _ = json.Marshal(r)
		if strings.Contains(string(data), "state_reset") {
			t.Errorf("JSON has state_reset when false: %s", data)
		}
	}
}

func TestScopesOwnStatefulSessionsAndShareTheRest(t *testing.T) {
	before := testServerProcesses(t)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{statefulServer("ts"), stdioServer("plain", "serve")}})
	ctx := ctxT(t)
	a, b := m.Scope("a"), m.Scope("b")
	if m.Scope("a") != a || m.Scope("") == a {
		t.Fatal("Scope does not return the same scope for the same name")
	}
	for _, sc := range []*toolgate.Scope{a, b} {
		defs, err := sc.ToolDefinitions(ctx)
		if err != nil || len(defs) != 2 || defs[0].Error != "" || len(defs[0].Tools) == 0 {
			t.Fatalf("scope %s: ToolDefinitions = %+v, %v", sc.Name(), defs, err)
		}
		wantOK(t, sc.CallTool(ctx, "ts", "echo", map[string]any{"text": sc.Name()}))
		wantOK(t, sc.CallTool(ctx, "plain", "echo", map[string]any{"text": sc.Name()}))
	}
	if n := testServerProcesses(t) - before; n != 3 {
		t.Errorf("%d servers run, want 3: one stateful per scope and one shared", n)
	}
	// A crash in one scope leaves the other's session alone.
	wantCode(t, a.CallTool(ctx, "ts", "crash", nil), toolgate.CodeConnectionLost, "")
	if r := b.CallTool(ctx, "ts", "echo", map[string]any{"text": "b"}); r.Err != nil || r.StateReset {
		t.Errorf("scope b after a's crash: %+v", r)
	}
	if r := a.CallTool(ctx, "ts", "echo", map[string]any{"text": "a"}); r.Err != nil || !r.StateReset {
		t.Errorf("scope a after its crash: %+v, want StateReset", r)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, a.CallTool(ctx, "ts", "echo", nil), toolgate.CodeClosed, "scope")
	if _, err := a.ToolDefinitions(ctx); err == nil {
		t.Error("ToolDefinitions on a closed scope succeeded")
	}
	if n := testServerProcesses(t) - before; n != 2 {
		t.Errorf("%d servers run after closing scope a, want 2", n)
	}
	if m.Scope("a") == a {
		t.Error("Scope returned the closed scope")
	}
	m.Close()
	wantCode(t, b.CallTool(ctx, "ts", "echo", nil), toolgate.CodeClosed, "")
	if n := testServerProcesses(t) - before; n != 0 {
		t.Errorf("%d servers run after Close", n)
	}
}

func TestIdleScopeIsReleasedAndRecreated(t *testing.T) {
	before := testServerProcesses(t)
	log := &stepLog{}
	m := newManager(t, toolgate.Config{
		Servers:          []toolgate.ServerConfig{statefulServer("ts")},
		ScopeIdleTimeout: 300 * time.Millisecond,
	}, toolgate.WithStepLogger(log))
	ctx := ctxT(t)
	sc := m.Scope("idle")
	wantOK(t, sc.CallTool(ctx, "ts", "echo", map[string]any{"text": "one"}))
	wantOK(t, m.CallTool(ctx, "ts", "echo", map[string]any{"text": "default"}))
	waitFor(t, "the idle sessions to be released", func() bool { return testServerProcesses(t) == before })
	if !strings.Contains(log.String(), "scope_release") {
		t.Errorf("no scope_release in the step log:\n%s", log)
	}
	for _, tm := range []toolgate.ToolManager{sc, m} {
		r := tm.CallTool(ctx, "ts", "echo", map[string]any{"text": "two"})
		wantOK(t, r)
		if !r.StateReset || !strings.HasPrefix(r.Text, toolgate.StateResetNotice) {
			t.Errorf("first call after the idle release = %+v, want the state-reset notice", r)
		}
	}
}

func TestStatefulFromJSON(t *testing.T) {
	cfg, err := toolgate.ParseConfig([]byte(`{
		"mcpServers": {
			"playwright": {"command": "node", "args": ["cli.js"]},
			"other": {"command": "node", "stateful": true},
			"plain": {"command": "node"}
		},
		"toolgate": {"scopeIdleTimeout": "90s"}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false} {
		if got := cfg.Servers[i].Stateful; got != want {
			t.Errorf("%s: Stateful = %v, want %v", cfg.Servers[i].Name, got, want)
		}
	}
	if cfg.ScopeIdleTimeout != 90*time.Second {
		t.Errorf("ScopeIdleTimeout = %v", cfg.ScopeIdleTimeout)
	}
	cfg, err = toolgate.ParseConfig([]byte(`{"mcpServers": {"playwright": {"command": "node", "stateful": false}}}`))
	if err != nil || cfg.Servers[0].Stateful {
		t.Errorf("playwright with stateful false: %+v, %v", cfg.Servers, err)
	}
	for in, want := range map[string]string{
		`{"toolgate": {"scopeIdleTimeout": "-1s"}}`:  "toolgate.scopeIdleTimeout: must not be negative",
		`{"toolgate": {"scopeIdleTimout": "1s"}}`:    `did you mean "scopeIdleTimeout"`,
		`{"toolgate": {"scopeIdleTimeout": "soon"}}`: "toolgate.scopeIdleTimeout: bad duration",
	} {
		if _, err := toolgate.ParseConfig([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}
