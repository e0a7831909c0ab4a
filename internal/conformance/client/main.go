// Command client is an MCP conformance-suite client built on toolgate: it
// reaches the suite's test server only through a toolgate.Manager, so the
// suite checks what toolgate sends, not what a bare go-sdk client would.
//
// Usage, as the suite runs it:
//
//	MCP_CONFORMANCE_SCENARIO=<scenario> client <server-url>
//
// It exits non-zero with a message when the scenario fails on its side.
// Modeled on the go-sdk's conformance/everything-client.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

// server is the name the test server has in the config.
const server = "conformance"

// scenario runs one scenario against a Manager whose only server is the suite's.
type scenario func(ctx context.Context, m *toolgate.Manager) error

var scenarios = map[string]scenario{
	"initialize": func(ctx context.Context, m *toolgate.Manager) error {
		_, err := listTools(ctx, m)
		return err
	},
	"tools_call": func(ctx context.Context, m *toolgate.Manager) error {
		return listAndCall(ctx, m, "add_numbers", map[string]any{"a": 5, "b": 3})
	},
	"sse-retry": func(ctx context.Context, m *toolgate.Manager) error {
		return listAndCall(ctx, m, "test_reconnection", map[string]any{})
	},
	"elicitation-sep1034-client-defaults": func(ctx context.Context, m *toolgate.Manager) error {
		return listAndCall(ctx, m, "test_client_elicitation_defaults", map[string]any{})
	},
}

// acceptElicitation accepts every elicitation with no content of its own,
// so that the server's defaults apply.
func acceptElicitation(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

// listTools lists the server's tools, failing on a per-server error.
func listTools(ctx context.Context, m *toolgate.Manager) ([]string, error) {
	defs, err := m.ToolDefinitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("ToolDefinitions: %w", err)
	}
	if len(defs) != 1 {
		return nil, fmt.Errorf("ToolDefinitions listed %d servers, want 1", len(defs))
	}
	if defs[0].Error != "" {
		return nil, fmt.Errorf("listing tools failed: %s", defs[0].Error)
	}
	names := make([]string, len(defs[0].Tools))
	for i, t := range defs[0].Tools {
		names[i] = t.Name
	}
	return names, nil
}

// listAndCall lists the tools, checks tool is among them, and calls it.
func listAndCall(ctx context.Context, m *toolgate.Manager, tool string, args map[string]any) error {
	names, err := listTools(ctx, m)
	if err != nil {
		return err
	}
	if !slices.Contains(names, tool) {
		return fmt.Errorf("tool %q not listed (tools: %v)", tool, names)
	}
	r := m.CallTool(ctx, server, tool, args)
	if r.Err != nil {
		return fmt.Errorf("CallTool(%q): %v", tool, r.Err)
	}
	fmt.Fprintf(os.Stderr, "%s: %s\n", tool, r.Text)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "toolgate conformance client: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: %s <server-url> (with MCP_CONFORMANCE_SCENARIO set)", os.Args[0])
	}
	url := os.Args[1]
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	sc, ok := scenarios[name]
	if !ok {
		names := make([]string, 0, len(scenarios))
		for n := range scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("unknown scenario %q (MCP_CONFORMANCE_SCENARIO); known: %s", name, strings.Join(names, ", "))
	}
	cfg := toolgate.Config{
		Servers:        []toolgate.ServerConfig{{Name: server, URL: url, Transport: toolgate.TransportStreamable}},
		ConnectTimeout: 20 * time.Second,
		CallTimeout:    25 * time.Second,
	}
	m, err := toolgate.New(cfg, toolgate.WithElicitationHandler(acceptElicitation))
	if err != nil {
		return err
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 28*time.Second)
	defer cancel()
	if err := sc(ctx, m); err != nil {
		return fmt.Errorf("scenario %q failed: %w", name, err)
	}
	return nil
}
