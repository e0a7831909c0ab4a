package toolgate_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// BenchmarkCallStdio compares a call through the Manager with a call on a
// bare go-sdk session to the same kind of stdio server, and with the
// original's connect-per-call model.
func BenchmarkCallStdio(b *testing.B) {
	args := map[string]any{"text": "ping"}
	b.Run("bare-sdk", func(b *testing.B) {
		command, cmdArgs, env := testserver.Command("serve")
		cmd := exec.Command(command, cmdArgs...)
		for k, v := range env {
			cmd.Env = append(cmd.Environ(), k+"="+v)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ResetTimer()
		bareEchoLoop(b, cs, args)
	})
	for _, mode := range []toolgate.SessionMode{toolgate.SessionPersistent, toolgate.SessionPerCall} {
		b.Run("toolgate-"+string(mode), func(b *testing.B) {
			sc := stdioServer("ts", "serve")
			sc.Session = mode
			m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{sc}})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			ctx := context.Background()
			wantOKB(b, m.CallTool(ctx, "ts", "echo", args))
			b.ResetTimer()
			for b.Loop() {
				wantOKB(b, m.CallTool(ctx, "ts", "echo", args))
			}
		})
	}
}

// BenchmarkToolDefinitionsCached measures a discovery answered from the cache.
func BenchmarkToolDefinitionsCached(b *testing.B) {
	m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{stdioServer("ts", "serve")}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if _, err := m.ToolDefinitions(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.ToolDefinitions(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func wantOKB(b *testing.B, r toolgate.Result) {
	if r.Err != nil {
		b.Fatal(r.Err)
	}
}

// bareEchoLoop calls echo on a bare go-sdk session for the benchmark's
// loop, with a deadline per call as any real caller (and toolgate) gives.
func bareEchoLoop(b *testing.B, cs *mcp.ClientSession, args map[string]any) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
}
