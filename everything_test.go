package toolgate_test

// Tests against the real reference server, @modelcontextprotocol/server-everything
// (pinned in scripts/npm), over stdio, legacy SSE and streamable HTTP.
// scripts/test-deps.sh installs it; without it these tests skip (fail under CI=true).

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/npmtest"
)

// everythingNode is the node that runs server-everything: the system's
// node when it is v20 or later (the server runs on it), else the pinned Node 22.
func everythingNode(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		if out, err := exec.Command(p, "--version").Output(); err == nil {
			v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
			major, _, _ := strings.Cut(v, ".")
			if n, err := strconv.Atoi(major); err == nil && n >= 20 {
				return p
			}
		}
	}
	return npmtest.Node22(t)
}

// lockedBuffer collects a child's output.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startEverythingHTTP runs server-everything in mode ("sse" or
// "streamableHttp") on a free loopback port and returns its base URL
// (http://127.0.0.1:PORT). The process group is killed when the test ends.
func startEverythingHTTP(t *testing.T, mode string) string {
	t.Helper()
	node, entry := everythingNode(t), npmtest.EverythingEntry(t)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // the free port may be taken meanwhile
		port := npmtest.FreePort(t)
		url, err := tryStartEverything(t, node, entry, mode, port)
		if err == nil {
			return url
		}
		lastErr = err
	}
	t.Fatalf("server-everything %s did not start: %v", mode, lastErr)
	return ""
}

func tryStartEverything(t *testing.T, node, entry, mode string, port int) (string, error) {
	out := &lockedBuffer{}
	cmd := exec.Command(node, entry, mode)
	cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			return "", fmt.Errorf("exited early (%v); output:\n%s", waitErr, out.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("port %d not accepting connections after 30s; output:\n%s", port, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("server-everything %s output:\n%s", mode, out.String())
		}
	})
	return "http://" + addr, nil
}

// everythingServer returns a config entry for server-everything over transport.
func everythingServer(t *testing.T, name string, transport toolgate.Transport) toolgate.ServerConfig {
	t.Helper()
	switch transport {
	case toolgate.TransportStdio:
		return toolgate.ServerConfig{Name: name, Command: everythingNode(t),
			Args: []string{npmtest.EverythingEntry(t), "stdio"}}
	case toolgate.TransportSSE:
		return toolgate.ServerConfig{Name: name, Transport: toolgate.TransportSSE,
			URL: startEverythingHTTP(t, "sse") + "/sse"}
	case toolgate.TransportStreamable:
		return toolgate.ServerConfig{Name: name, URL: startEverythingHTTP(t, "streamableHttp") + "/mcp"}
	}
	t.Fatalf("unknown transport %q", transport)
	return toolgate.ServerConfig{}
}

var everythingTransports = []toolgate.Transport{
	toolgate.TransportStdio, toolgate.TransportSSE, toolgate.TransportStreamable,
}

// listEverything lists the tools of the Manager's only server and checks
// the listing succeeded.
func listEverything(t *testing.T, ctx context.Context, m *toolgate.Manager) []string {
	t.Helper()
	defs, err := m.ToolDefinitions(ctx)
	if err != nil {
		t.Fatalf("ToolDefinitions: %v", err)
	}
	if len(defs) != 1 || defs[0].Error != "" {
		t.Fatalf("ToolDefinitions = %+v, want one server without error", defs)
	}
	return toolNames(defs[0])
}

func TestEverythingTransports(t *testing.T) {
	for _, transport := range everythingTransports {
		t.Run(string(transport), func(t *testing.T) {
			ctx := ctxT(t)
			sc := everythingServer(t, "ev", transport)
			m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}, ConnectTimeout: 20 * time.Second})

			t.Run("list", func(t *testing.T) {
				names := listEverything(t, ctx, m)
				for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content", "trigger-long-running-operation"} {
					if !slices.Contains(names, want) {
						t.Errorf("tool %q missing from %v", want, names)
					}
				}
			})
			t.Run("echo", func(t *testing.T) {
				r := m.CallTool(ctx, "ev", "echo", map[string]any{"message": "hello toolgate"})
				wantOK(t, r)
				if r.Text != "Echo: hello toolgate" {
					t.Errorf("echo text = %q, want %q", r.Text, "Echo: hello toolgate")
				}
			})
			t.Run("get-sum", func(t *testing.T) {
				r := m.CallTool(ctx, "ev", "get-sum", map[string]any{"a": 2, "b": 3.5})
				wantOK(t, r)
				if want := "The sum of 2 and 3.5 is 5.5."; r.Text != want {
					t.Errorf("get-sum text = %q, want %q", r.Text, want)
				}
			})
			t.Run("get-tiny-image", func(t *testing.T) {
				r := m.CallTool(ctx, "ev", "get-tiny-image", map[string]any{})
				wantOK(t, r)
				if !strings.Contains(r.Text, "[image image/png ") || !strings.Contains(r.Text, "Here's the image you requested:") {
					t.Errorf("get-tiny-image text = %q, want the text blocks and an [image image/png N bytes] summary", r.Text)
				}
				i := slices.IndexFunc(r.Content, func(c mcp.Content) bool { _, ok := c.(*mcp.ImageContent); return ok })
				if i < 0 {
					t.Fatalf("get-tiny-image content %v has no *mcp.ImageContent", r.Content)
				}
				img := r.Content[i].(*mcp.ImageContent)
				if img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
					t.Errorf("image = %s, %d bytes starting %q; want a PNG", img.MIMEType, len(img.Data), img.Data[:min(8, len(img.Data))])
				}
			})
			t.Run("get-structured-content", func(t *testing.T) {
				r := m.CallTool(ctx, "ev", "get-structured-content", map[string]any{"location": "Chicago"})
				wantOK(t, r)
				s, ok := r.Structured.(map[string]any)
				if !ok || s["temperature"] != float64(36) || s["conditions"] != "Light rain / drizzle" {
					t.Errorf("structured = %#v (text %q), want Chicago's weather", r.Structured, r.Text)
				}
			})
			t.Run("invalid-arguments", func(t *testing.T) {
				r := m.CallTool(ctx, "ev", "get-sum", map[string]any{"a": "two"})
				// toolgate checks the arguments against the tool's schema
				// before the server hears of the call, naming every problem.
				wantCode(t, r, toolgate.CodeInvalidArguments, "at /a: got string, want number")
				wantCode(t, r, toolgate.CodeInvalidArguments, "missing property 'b'")
				wantOK(t, m.CallTool(ctx, "ev", "echo", map[string]any{"message": "still here"}))
			})
		})
	}
}

// TestEverythingTimeout runs a long operation past a 500ms call timeout,
// then checks the same session still answers.
func TestEverythingTimeout(t *testing.T) {
	for _, transport := range everythingTransports {
		t.Run(string(transport), func(t *testing.T) {
			ctx := ctxT(t)
			sc := everythingServer(t, "ev", transport)
			sc.Timeout = 500 * time.Millisecond
			log := &stepLog{}
			m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}, ConnectTimeout: 20 * time.Second},
				toolgate.WithStepLogger(log))
			listEverything(t, ctx, m) // connect outside the call timeout

			start := time.Now()
			r := m.CallTool(ctx, "ev", "trigger-long-running-operation", map[string]any{"duration": 30, "steps": 30})
			wantCode(t, r, toolgate.CodeTimeout, "500ms")
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("timed-out call took %v, want about 500ms", d)
			}
			r = m.CallTool(ctx, "ev", "echo", map[string]any{"message": "after timeout"})
			wantOK(t, r)
			if r.Text != "Echo: after timeout" {
				t.Errorf("echo after timeout = %q", r.Text)
			}
			if strings.Contains(log.String(), "reconnect") {
				t.Errorf("the session was renewed after the timeout; want the same session:\n%s", log)
			}
		})
	}
}

// TestEverythingToolListChanged: server-everything registers some tools
// only once the client has initialized (simulate-research-query always,
// trigger-elicitation-request when the client can answer elicitation), and
// announces each with notifications/tools/list_changed. It has no tool that
// changes the list later, so this checks that discovery shows those
// late-registered tools, and, where the notification reaches toolgate, that
// it was handled and a listing after it still has them.
func TestEverythingToolListChanged(t *testing.T) {
	for _, transport := range everythingTransports {
		t.Run(string(transport), func(t *testing.T) {
			ctx := ctxT(t)
			sc := everythingServer(t, "ev", transport)
			log := &stepLog{}
			accept := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
			}
			m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{sc}, ConnectTimeout: 20 * time.Second},
				toolgate.WithStepLogger(log), toolgate.WithElicitationHandler(accept))

			listed := func() []string { return listEverything(t, ctx, m) }
			late := []string{"simulate-research-query", "trigger-elicitation-request"}
			hasLate := func(names []string) bool {
				return slices.Contains(names, late[0]) && slices.Contains(names, late[1])
			}
			deadline := time.Now().Add(10 * time.Second)
			names := listed()
			for !hasLate(names) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
				names = listed()
			}
			if !hasLate(names) {
				t.Fatalf("tools %v lack the late-registered %v", names, late)
			}
			// The notifications reach toolgate over every transport (over
			// streamable HTTP on the standalone GET stream, which the go-sdk
			// opens before it sends notifications/initialized).
			seen := 0
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if seen = strings.Count(log.String(), "tools_changed"); seen > 0 {
					break
				}
			}
			if seen == 0 {
				t.Fatalf("no notifications/tools/list_changed was handled; step log:\n%s", log)
			}
			names = listed()
			if !hasLate(names) {
				t.Errorf("tools after list_changed %v lack %v", names, late)
			}
			t.Logf("%d tools/list_changed notifications handled; tools: %v", seen, names)
		})
	}
}

// TestEverythingDoneWhen is the scenario of the Done-when: server-everything
// over stdio, the Go test server over streamable HTTP and a missing command
// are listed in config order, the first two with tools, the third with an error.
func TestEverythingDoneWhen(t *testing.T) {
	ctx := ctxT(t)
	url, _ := httpServer(t, false)
	cfg := toolgate.Config{
		Servers: []toolgate.ServerConfig{
			everythingServer(t, "everything", toolgate.TransportStdio),
			{Name: "go-test-server", URL: url},
			{Name: "missing", Command: "toolgate-no-such-command-for-tests"},
		},
		ConnectTimeout: 20 * time.Second,
	}
	m := newManager(t, cfg)
	defs, err := m.ToolDefinitions(ctx)
	if err != nil {
		t.Fatalf("ToolDefinitions: %v", err)
	}
	var got []string
	for _, d := range defs {
		got = append(got, d.Name)
	}
	if want := []string{"everything", "go-test-server", "missing"}; !slices.Equal(got, want) {
		t.Fatalf("servers = %v, want %v", got, want)
	}
	for _, d := range defs[:2] {
		if d.Error != "" || len(d.Tools) == 0 {
			t.Errorf("%s: error %q, %d tools; want tools and no error", d.Name, d.Error, len(d.Tools))
		}
	}
	if !slices.Contains(toolNames(defs[0]), "echo") {
		t.Errorf("everything tools %v lack echo", toolNames(defs[0]))
	}
	if defs[2].Error == "" || len(defs[2].Tools) != 0 {
		t.Errorf("missing: error %q, %d tools; want an error and no tools", defs[2].Error, len(defs[2].Tools))
	}
	if !strings.HasPrefix(defs[2].Error, string(toolgate.CodeConnectFailed)) {
		t.Errorf("missing: error %q, want code %s", defs[2].Error, toolgate.CodeConnectFailed)
	}
	t.Logf("missing server: %s", defs[2].Error)
	wantOK(t, m.CallTool(ctx, "everything", "echo", map[string]any{"message": "done"}))
}
