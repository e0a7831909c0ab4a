package toolgate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// A Manager over one streamable HTTP server: list its tools, call one.
func Example() {
	h, _ := testserver.StreamableHandler()
	srv := httptest.NewServer(h)
	defer srv.Close()

	m, err := toolgate.New(toolgate.Config{
		Servers: []toolgate.ServerConfig{{Name: "demo", URL: srv.URL}},
		Deny:    []string{"demo:crash"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	ctx := context.Background()

	defs, _ := m.ToolDefinitions(ctx)
	fmt.Println(defs[0].Name, len(defs[0].Tools) > 0)

	res := m.CallTool(ctx, "demo", "echo", map[string]any{"text": "hello"})
	fmt.Println(res.Text)

	res = m.CallTool(ctx, "demo", "crash", nil)
	fmt.Println(res.Err.Code)
	// Output:
	// demo true
	// hello
	// blocked
}

// Every failure is a Result with a stable code, printed in the contract shape.
func ExampleManager_CallTool() {
	m, _ := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "search", Command: "toolgate-example-missing"}}})
	defer m.Close()
	res := m.CallTool(context.Background(), "nope", "google_search", map[string]any{"q": "go"})
	res.Duration = 0
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output:
	// {"server_name":"nope","tool_name":"google_search","error":"server \"nope\" is not configured (configured: search)","error_code":"unknown_server"}
}

func ExampleParseConfig() {
	os.Setenv("EXAMPLE_TOKEN", "secret")
	cfg, err := toolgate.ParseConfig([]byte(`{
	  "mcpServers": {
	    "files": {"command": "mcp-files", "args": ["--root", "${ROOT:-/tmp}"]},
	    "docs":  {"url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${EXAMPLE_TOKEN}"}}
	  },
	  "toolgate": {"deny": ["*:delete_*"], "callTimeout": "90s"}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		fmt.Println(s.Name, strings.TrimSpace(s.Command+s.URL+" "+strings.Join(s.Args, " ")))
	}
	fmt.Println(cfg.CallTimeout == 90*time.Second)

	_, err = toolgate.ParseConfig([]byte(`{"mcpServers": {"files": {"comand": "mcp-files"}}}`))
	fmt.Println(err)
	// Output:
	// files mcp-files --root /tmp
	// docs https://docs.example/mcp
	// true
	// mcpServers.files.comand: unknown key (did you mean "command"?)
}
