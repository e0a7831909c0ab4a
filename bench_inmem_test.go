package toolgate_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
)

// BenchmarkCallInMemory isolates toolgate's own cost per call: the server
// is in this process, reached through in-memory transports, so no process
// or socket stands between the two contenders and the go-sdk. Run with
// -cpuprofile to see the hot path.
func BenchmarkCallInMemory(b *testing.B) {
	srv, _ := testserver.New()
	pipe := func() mcp.Transport {
		c, s := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), s, nil); err != nil {
			b.Fatal(err)
		}
		return c
	}
	args := map[string]any{"text": "ping"}
	b.Run("bare-sdk", func(b *testing.B) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), pipe(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		bareEchoLoop(b, cs, args)
	})
	b.Run("toolgate", func(b *testing.B) {
		m, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "s", NewTransport: pipe}}})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		ctx := context.Background()
		wantOKB(b, m.CallTool(ctx, "s", "echo", args))
		for b.Loop() {
			wantOKB(b, m.CallTool(ctx, "s", "echo", args))
		}
	})
}
