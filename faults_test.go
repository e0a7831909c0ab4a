package toolgate_test

// Fault injection: for each way a server can misbehave, the caller gets the
// documented code within a bound, the other servers keep working, and the
// next call recovers where recovery is possible. The faulty servers are our
// test server's fault behaviours (internal/testserver/faults.go).

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// faultManager starts a Manager with the faulty server "bad" and a healthy
// stdio server "good", and checks that good works.
func faultManager(t *testing.T, bad toolgate.ServerConfig) *toolgate.Manager {
	t.Helper()
	bad.Name = "bad"
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{bad, stdioServer("good", "serve")}})
	goodWorks(t, m)
	return m
}

// goodWorks checks that the healthy server still answers.
func goodWorks(t *testing.T, m *toolgate.Manager) {
	t.Helper()
	r := m.CallTool(ctxT(t), "good", "echo", map[string]any{"text": "fine"})
	wantOK(t, r)
	if r.Text != "fine" {
		t.Errorf("good echo = %q", r.Text)
	}
}

// within runs a call and fails the test if the caller waited longer than bound.
func within(t *testing.T, bound time.Duration, call func() toolgate.Result) toolgate.Result {
	t.Helper()
	start := time.Now()
	r := call()
	if took := time.Since(start); took > bound {
		t.Errorf("%s:%s took %v, want at most %v (result %+v)", r.Server, r.Tool, took, bound, r.Err)
	}
	return r
}

// recovers checks that the next call to bad succeeds.
func recovers(t *testing.T, m *toolgate.Manager) {
	t.Helper()
	r := within(t, 10*time.Second, func() toolgate.Result {
		return m.CallTool(ctxT(t), "bad", "echo", map[string]any{"text": "back"})
	})
	wantOK(t, r)
	if r.Text != "back" {
		t.Errorf("bad echo after recovery = %q", r.Text)
	}
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// childrenSettle waits until exactly n stdio test servers are running.
func childrenSettle(t *testing.T, n int) {
	t.Helper()
	eventually(t, "settled to the expected child processes", func() bool { return testServerProcesses(t) == n })
}

func TestFaultCrashMidCall(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourFaults))
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "bad", "echo", map[string]any{"text": "warm"}))

	inFlight := make(chan toolgate.Result, 1)
	go func() { inFlight <- m.CallTool(ctx, "bad", "slow", map[string]any{"ms": 60000}) }()
	time.Sleep(50 * time.Millisecond) // let the slow call reach the server
	r := within(t, 5*time.Second, func() toolgate.Result { return m.CallTool(ctx, "bad", "crash", nil) })
	wantCode(t, r, toolgate.CodeConnectionLost, "testserver: crashing")
	select {
	case r := <-inFlight:
		wantCode(t, r, toolgate.CodeConnectionLost, "connection lost")
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight when the server crashed did not return within 5s")
	}
	goodWorks(t, m)
	recovers(t, m)
}

func TestFaultHangForever(t *testing.T) {
	bad := stdioServer("", testserver.BehaviourFaults)
	bad.Timeout = 300 * time.Millisecond
	m := faultManager(t, bad)
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "bad", "echo", map[string]any{"text": "warm"}))

	marker := filepath.Join(t.TempDir(), "cancelled")
	hung := make(chan toolgate.Result, 1)
	go func() { hung <- m.CallTool(ctx, "bad", "hang", map[string]any{"marker": marker}) }()
	goodWorks(t, m) // while bad hangs
	select {
	case r := <-hung:
		wantCode(t, r, toolgate.CodeTimeout, "timed out after 300ms; the server was sent a cancellation")
		if r.Duration > 300*time.Millisecond+2*time.Second {
			t.Errorf("hung call returned after %v, timeout 300ms", r.Duration)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call to a hanging server did not time out within 5s")
	}
	eventually(t, "told of the cancellation", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	recovers(t, m) // the same session: a timeout does not end it
	childrenSettle(t, 2)
}

func TestFaultGarbageOnStdout(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourFaults))
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "bad", "echo", map[string]any{"text": "warm"}))
	r := within(t, 5*time.Second, func() toolgate.Result { return m.CallTool(ctx, "bad", "garbage", nil) })
	wantCode(t, r, toolgate.CodeConnectionLost, "connection lost")
	goodWorks(t, m)
	recovers(t, m)

	// Garbage instead of the answer to initialize: the connect fails.
	first := stdioServer("", testserver.BehaviourGarbageFirst)
	first.ConnectTimeout = 2 * time.Second
	m2 := faultManager(t, first)
	r = within(t, 4*time.Second, func() toolgate.Result { return m2.CallTool(ctx, "bad", "echo", nil) })
	wantCode(t, r, toolgate.CodeConnectFailed, "")
	goodWorks(t, m2)
}

func TestFaultSlowStartPastConnectTimeout(t *testing.T) {
	bad := stdioServer("", testserver.BehaviourSlowStart) // 2 s
	bad.ConnectTimeout = 300 * time.Millisecond
	m := faultManager(t, bad)
	for range 2 { // the next call tries again, within the same bound
		r := within(t, 300*time.Millisecond+2*time.Second, func() toolgate.Result {
			return m.CallTool(ctxT(t), "bad", "echo", nil)
		})
		wantCode(t, r, toolgate.CodeConnectFailed, "timed out after 300ms connecting")
		goodWorks(t, m)
	}
	childrenSettle(t, 1) // the slow child was killed; good is left
}

func TestFaultExitDuringInitialize(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourExitDuringInit))
	for range 2 {
		r := within(t, 5*time.Second, func() toolgate.Result { return m.CallTool(ctxT(t), "bad", "echo", nil) })
		wantCode(t, r, toolgate.CodeConnectFailed, "exit status 3")
		wantCode(t, r, toolgate.CodeConnectFailed, "testserver: exiting during initialize")
		goodWorks(t, m)
	}
	childrenSettle(t, 1)
}

func TestFaultUnsupportedProtocolVersion(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourBadProtocol))
	r := within(t, 5*time.Second, func() toolgate.Result { return m.CallTool(ctxT(t), "bad", "echo", nil) })
	wantCode(t, r, toolgate.CodeConnectFailed, "unsupported protocol version")
	wantCode(t, r, toolgate.CodeConnectFailed, testserver.BadProtocolVersion)
	goodWorks(t, m)
	childrenSettle(t, 1)
}

func TestFaultStdoutClosedServerKeepsRunning(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourFaults))
	ctx := ctxT(t)
	wantOK(t, m.CallTool(ctx, "bad", "echo", map[string]any{"text": "warm"}))
	r := within(t, 5*time.Second, func() toolgate.Result { return m.CallTool(ctx, "bad", "close_stdout", nil) })
	wantCode(t, r, toolgate.CodeConnectionLost, "connection lost")
	goodWorks(t, m)
	childrenSettle(t, 1) // the stubborn child, which ignores SIGTERM, was killed
	recovers(t, m)
}

func TestFaultHugeOutput(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourFaults))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const size = 50 << 20
	// Most of the wait is the server encoding 50 MB of JSON (slow under -race).
	r := within(t, time.Minute, func() toolgate.Result {
		return m.CallTool(ctx, "bad", "big", map[string]any{"chars": size})
	})
	// The go-sdk reads at most 16 MiB per stdio message; a longer one ends
	// the session rather than toolgate's memory.
	wantCode(t, r, toolgate.CodeConnectionLost, "maximum line length")
	goodWorks(t, m)
	recovers(t, m)
}

func TestFaultStderrFlood(t *testing.T) {
	m := faultManager(t, stdioServer("", testserver.BehaviourFaults))
	ctx := ctxT(t)
	before := liveHeap()
	r := within(t, 60*time.Second, func() toolgate.Result {
		return m.CallTool(ctx, "bad", "stderr_flood", map[string]any{"mb": 100})
	})
	wantOK(t, r)
	if r.Text != "flooded 104857600 bytes" {
		t.Errorf("stderr_flood = %q", r.Text)
	}
	if grew := int64(liveHeap()) - int64(before); grew > 16<<20 {
		t.Errorf("live heap grew by %d MiB while the server wrote 100 MiB to stderr", grew>>20)
	}
	goodWorks(t, m)
	recovers(t, m)
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestFaultHTTP(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault testserver.HTTPFault
		code  toolgate.Code
		msg   string
	}{
		// The go-sdk keeps the session after a failed HTTP request.
		{"500", testserver.HTTPServerError, toolgate.CodeProtocolError, "Internal Server Error"},
		{"reset", testserver.HTTPReset, toolgate.CodeProtocolError, "connection reset"},
		{"forgotten-session-404", testserver.HTTPForget, toolgate.CodeConnectionLost, "session not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := testserver.NewFaultyHandler()
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			t.Cleanup(h.EndSessions) // runs before srv.Close, after the Managers close
			bad := toolgate.ServerConfig{URL: srv.URL, ConnectTimeout: 3 * time.Second}
			m := faultManager(t, bad)
			ctx := ctxT(t)
			wantOK(t, m.CallTool(ctx, "bad", "echo", map[string]any{"text": "warm"}))

			h.SetFault(tc.fault)
			r := within(t, 5*time.Second, func() toolgate.Result { return m.CallTool(ctx, "bad", "echo", map[string]any{"text": "x"}) })
			wantCode(t, r, tc.code, tc.msg)
			goodWorks(t, m)
			if tc.fault != testserver.HTTPForget {
				// A new session cannot even be opened while the fault lasts.
				fresh := faultManager(t, bad)
				r = within(t, 5*time.Second, func() toolgate.Result { return fresh.CallTool(ctx, "bad", "echo", nil) })
				wantCode(t, r, toolgate.CodeConnectFailed, "")
			}
			h.SetFault(testserver.HTTPHealthy)
			recovers(t, m)
		})
	}
}
