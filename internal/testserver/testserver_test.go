package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/mcptest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	MainIfRequested()
	goleak.VerifyTestMain(m)
}

// call calls the named tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

// texts returns the text of every text block in res, and "<T>" for others.
func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		} else {
			out = append(out, "<other>")
		}
	}
	return out
}

// wantText checks that res is a non-error result with exactly one text block equal to want.
func wantText(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if res.IsError {
		t.Errorf("IsError = true, content %q", texts(res))
	}
	if got := texts(res); len(got) != 1 || got[0] != want {
		t.Errorf("content = %q, want [%q]", got, want)
	}
}

// checkPNG checks that c is image content holding a decodable PNG.
func checkPNG(t *testing.T, c mcp.Content) {
	t.Helper()
	img, ok := c.(*mcp.ImageContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.ImageContent", c)
	}
	if img.MIMEType != "image/png" {
		t.Errorf("MIMEType = %q, want image/png", img.MIMEType)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("decoding PNG: %v", err)
	}
	if cfg.Width != 2 || cfg.Height != 2 {
		t.Errorf("PNG is %dx%d, want 2x2", cfg.Width, cfg.Height)
	}
}

func TestToolsListed(t *testing.T) {
	srv, _ := New()
	cs := mcptest.Connect(t, srv, nil)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != ImplementationName {
		t.Errorf("server name = %q, want %q", init.ServerInfo.Name, ImplementationName)
	}
	if caps := init.Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want listChanged", caps.Tools)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"add_tool", "big", "crash", "echo", "fail", "image", "mixed", "remove_tool", "slow", "stderr", "structured"}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
		if tool.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tool.Name)
		}
		if (tool.OutputSchema != nil) != (tool.Name == "structured") {
			t.Errorf("tool %s: output schema = %v", tool.Name, tool.OutputSchema)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tools = %v, want %v", got, want)
	}
}

func TestSimpleTools(t *testing.T) {
	srv, stats := New()
	cs := mcptest.Connect(t, srv, nil)
	wantText(t, call(t, cs, "echo", map[string]any{"text": "héllo"}), "héllo")
	wantText(t, call(t, cs, "echo", map[string]any{"text": ""}), "")
	wantText(t, call(t, cs, "slow", map[string]any{"ms": 10}), "slept 10ms")
	wantText(t, call(t, cs, "stderr", map[string]any{"text": "testserver test: stderr tool"}), "ok")
	wantText(t, call(t, cs, "big", map[string]any{"chars": 100000}), strings.Repeat("x", 100000))
	wantText(t, call(t, cs, "big", map[string]any{"chars": 0}), "")

	res := call(t, cs, "fail", map[string]any{"message": "it broke"})
	if !res.IsError || strings.Join(texts(res), "|") != "it broke" {
		t.Errorf("fail: IsError=%v content=%q", res.IsError, texts(res))
	}
	res = call(t, cs, "crash", nil)
	if !res.IsError || strings.Join(texts(res), "|") != "crash only works over stdio" {
		t.Errorf("crash: IsError=%v content=%q", res.IsError, texts(res))
	}
	if got := stats.Calls("echo"); got != 2 {
		t.Errorf("Calls(echo) = %d, want 2", got)
	}
	if got := stats.Total(); got != 8 {
		t.Errorf("Total() = %d, want 8", got)
	}
}

func TestImageAndMixed(t *testing.T) {
	srv, _ := New()
	cs := mcptest.Connect(t, srv, nil)
	res := call(t, cs, "image", nil)
	if len(res.Content) != 2 {
		t.Fatalf("image: %d content blocks, want 2", len(res.Content))
	}
	checkPNG(t, res.Content[0])
	if got := texts(res)[1]; got != "an image" {
		t.Errorf("image text = %q", got)
	}

	res = call(t, cs, "mixed", map[string]any{})
	if got, want := strings.Join(texts(res), ","), "first,<other>,<other>,<other>,last"; got != want {
		t.Fatalf("mixed texts = %s, want %s", got, want)
	}
	checkPNG(t, res.Content[1])
	er, ok := res.Content[2].(*mcp.EmbeddedResource)
	if !ok || er.Resource == nil || er.Resource.URI != "test://doc" ||
		er.Resource.MIMEType != "text/plain" || er.Resource.Text != "embedded text" {
		t.Errorf("content[2] = %#v, want embedded test://doc", res.Content[2])
	}
	rl, ok := res.Content[3].(*mcp.ResourceLink)
	if !ok || rl.URI != "test://link" || rl.Name != "link" {
		t.Errorf("content[3] = %#v, want resource link test://link", res.Content[3])
	}
}

func TestStructured(t *testing.T) {
	srv, _ := New()
	cs := mcptest.Connect(t, srv, nil)
	res := call(t, cs, "structured", map[string]any{"a": 2, "b": 40})
	if res.IsError {
		t.Fatalf("IsError: %q", texts(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"sum":42}` {
		t.Errorf("structuredContent = %s, want {\"sum\":42}", data)
	}
}

func TestSlowCancelled(t *testing.T) {
	srv, stats := New()
	cs := mcptest.Connect(t, srv, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 60000}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool error = %v, want deadline exceeded", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for stats.Cancelled() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("Cancelled() = %d, want 1", stats.Cancelled())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAddRemoveTool(t *testing.T) {
	srv, stats := New()
	changed := make(chan struct{}, 10)
	cs := mcptest.Connect(t, srv, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	waitChanged := func() {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatal("no tools/list_changed notification")
		}
	}
	wantText(t, call(t, cs, "add_tool", map[string]any{"name": "dyn"}), "added dyn")
	waitChanged()
	wantText(t, call(t, cs, "dyn", map[string]any{"text": "hi"}), "hi")
	if got := stats.Calls("dyn"); got != 1 {
		t.Errorf("Calls(dyn) = %d, want 1", got)
	}
	wantText(t, call(t, cs, "remove_tool", map[string]any{"name": "dyn"}), "removed dyn")
	waitChanged()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dyn"}); err == nil {
		t.Error("calling removed tool succeeded")
	}
	if res := call(t, cs, "add_tool", map[string]any{"name": ""}); !res.IsError {
		t.Error("add_tool with empty name: IsError = false")
	}
}

func TestStreamable(t *testing.T) {
	h, stats := StreamableHandler()
	testHTTP(t, stats, h, func(url string, c *http.Client) mcp.Transport {
		return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: c}
	})
}

func TestSSE(t *testing.T) {
	h, stats := SSEHandler()
	testHTTP(t, stats, h, func(url string, c *http.Client) mcp.Transport {
		return &mcp.SSEClientTransport{Endpoint: url, HTTPClient: c}
	})
}

// testHTTP serves h, connects to it with the transport from newTransport and calls echo and crash.
func testHTTP(t *testing.T, stats *Stats, h http.Handler, newTransport func(string, *http.Client) mcp.Transport) {
	httpSrv := httptest.NewServer(h)
	defer httpSrv.Close()
	httpClient := &http.Client{Transport: &http.Transport{}}
	defer httpClient.CloseIdleConnections()

	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, newTransport(httpSrv.URL, httpClient), nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	wantText(t, call(t, cs, "echo", map[string]any{"text": "over http"}), "over http")
	if res := call(t, cs, "crash", nil); !res.IsError {
		t.Error("crash over HTTP: IsError = false")
	}
	if got := stats.Calls("echo"); got != 1 {
		t.Errorf("Calls(echo) = %d, want 1", got)
	}
}

// startStdio starts this test binary as a stdio server with the given behaviour.
func startStdio(t *testing.T, behaviour string, stderr *bytes.Buffer) (*mcp.ClientSession, error) {
	t.Helper()
	return startStdioTerminate(t, behaviour, stderr, 0)
}

// startStdioTerminate is like startStdio, with the given CommandTransport.TerminateDuration.
func startStdioTerminate(t *testing.T, behaviour string, stderr *bytes.Buffer, terminate time.Duration) (*mcp.ClientSession, error) {
	t.Helper()
	command, args, env := Command(behaviour)
	cmd := exec.Command(command, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}, nil)
}

func TestStdio(t *testing.T) {
	var stderr bytes.Buffer
	cs, err := startStdio(t, BehaviourStderrNoise, &stderr)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	wantText(t, call(t, cs, "echo", map[string]any{"text": "over stdio"}), "over stdio")
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !strings.Contains(stderr.String(), "noise line 100\n") {
		t.Errorf("stderr = %q, want noise lines", stderr.String())
	}
}

func TestStdioCrash(t *testing.T) {
	var stderr bytes.Buffer
	cs, err := startStdio(t, BehaviourServe, &stderr)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crash"}); err == nil {
		t.Error("crash: CallTool succeeded")
	}
	cs.Close() // waits for the process, so stderr is complete
	if !strings.Contains(stderr.String(), "testserver: crashing") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

func TestStdioExitDuringInit(t *testing.T) {
	var stderr bytes.Buffer
	cs, err := startStdio(t, BehaviourExitDuringInit, &stderr)
	if err == nil {
		cs.Close()
		t.Fatal("connect succeeded")
	}
	if !strings.Contains(stderr.String(), "testserver: exiting during initialize") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

func TestStdioSlowStart(t *testing.T) {
	var stderr bytes.Buffer
	start := time.Now()
	cs, err := startStdio(t, BehaviourSlowStart, &stderr)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("connect took %v, want at least 2s", d)
	}
	wantText(t, call(t, cs, "echo", map[string]any{"text": "late"}), "late")
}

func TestStdioIgnoreStdinClose(t *testing.T) {
	var stderr bytes.Buffer
	const terminate = 200 * time.Millisecond
	cs, err := startStdioTerminate(t, BehaviourIgnoreStdinClose, &stderr, terminate)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	wantText(t, call(t, cs, "echo", map[string]any{"text": "x"}), "x")
	start := time.Now()
	err = cs.Close()
	// Closing stdin and SIGTERM are both ignored, so the process is killed.
	if d := time.Since(start); d < 2*terminate {
		t.Errorf("Close took %v, want at least %v (process should outlive stdin close and SIGTERM)", d, 2*terminate)
	}
	t.Logf("Close error after kill: %v", err)
}
