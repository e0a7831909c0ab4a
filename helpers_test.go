package toolgate_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	testserver.MainIfRequested()
	goleak.VerifyTestMain(m)
}

// stdioServer is a config entry that runs this test binary as a stdio test
// server with the given behaviour.
func stdioServer(name, behaviour string) toolgate.ServerConfig {
	cmd, args, env := testserver.Command(behaviour)
	return toolgate.ServerConfig{Name: name, Command: cmd, Args: args, Env: env}
}

// httpServer serves the test server over streamable HTTP or SSE on loopback.
func httpServer(t *testing.T, sse bool) (url string, stats *testserver.Stats) {
	t.Helper()
	var h http.Handler
	if sse {
		h, stats = testserver.SSEHandler()
	} else {
		h, stats = testserver.StreamableHandler()
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, stats
}

// newManager starts a Manager and closes it when the test ends.
func newManager(t *testing.T, cfg toolgate.Config, opts ...toolgate.Option) *toolgate.Manager {
	t.Helper()
	m, err := toolgate.New(cfg, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantOK(t *testing.T, r toolgate.Result) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("%s:%s failed: %v", r.Server, r.Tool, r.Err)
	}
}

func wantCode(t *testing.T, r toolgate.Result, code toolgate.Code, msgPart string) {
	t.Helper()
	if r.Err == nil || r.Err.Code != code || !strings.Contains(r.Err.Message, msgPart) {
		t.Fatalf("%s:%s = %+v (err %v), want code %s with %q", r.Server, r.Tool, r, r.Err, code, msgPart)
	}
}

// testServerProcesses counts live processes started as stdio test servers
// by this test binary.
func testServerProcesses(t *testing.T) int {
	t.Helper()
	self, _ := os.Executable()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	n := 0
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(testserver.EnvVar+"=")) {
			continue
		}
		exe, _ := os.Readlink(filepath.Join(d, "exe"))
		stat, _ := os.ReadFile(filepath.Join(d, "stat"))
		if strings.TrimSuffix(exe, " (deleted)") == self && !isZombie(stat) {
			n++
		}
	}
	return n
}

func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// stepLog collects step-log entries.
type stepLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *stepLog) LogStep(level toolgate.Level, step, msg string, meta map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	b.WriteString(string(level) + " " + step + " " + msg)
	for k, v := range meta {
		b.WriteString(" " + k + "=")
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(fmtAny(v)), "\n", "\\n"))
	}
	l.entries = append(l.entries, b.String())
}

func (l *stepLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.entries, "\n")
}
