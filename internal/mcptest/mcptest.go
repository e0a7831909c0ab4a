// Package mcptest connects go-sdk clients to servers for tests.
package mcptest

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect connects a client with the given options (nil for none) to srv
// over in-memory transports. Both sessions are closed when the test ends.
func Connect(tb testing.TB, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatalf("server connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, opts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		tb.Fatalf("client connect: %v", err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}
