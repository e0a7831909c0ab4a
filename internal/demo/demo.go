// Package demo provides small, offline MCP servers that the toolgate binary
// can run over stdio, so that a fresh installation has something real to
// talk to.
//
// There are three servers: "text" (counting, hashing, encoding and regular
// expressions), "calc" (exact arithmetic and unit conversion) and "clock"
// (time zones and date arithmetic). None of them touches the network or the
// file system.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is the implementation version the demo servers report.
const version = "v1.0.0"

// demoServer describes one demo server.
type demoServer struct {
	name        string
	description string
	register    func(*mcp.Server)
}

// servers returns the demo servers in their stable order.
func servers() []demoServer {
	return []demoServer{
		{"text", "Text utilities: word_count, hash, base64, url_encode and regex_find.", registerText},
		{"calc", "Exact arithmetic (evaluate) and unit conversion (convert_units).", registerCalc},
		{"clock", "Current time, time-zone conversion and date differences (now, convert_time, date_diff).", registerClock},
	}
}

// lookup returns the named demo server.
func lookup(name string) (demoServer, bool) {
	for _, s := range servers() {
		if s.name == name {
			return s, true
		}
	}
	return demoServer{}, false
}

// Names lists the demo servers in a stable order: "text", "calc", "clock".
func Names() []string {
	var names []string
	for _, s := range servers() {
		names = append(names, s.name)
	}
	return names
}

// Describe returns a one-line description of a demo server, or the empty
// string if there is no demo server with that name.
func Describe(name string) string {
	s, _ := lookup(name)
	return s.description
}

// NewServer returns the named demo MCP server, or an error naming the
// unknown server and the valid names.
func NewServer(name string) (*mcp.Server, error) {
	s, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("demo: unknown server %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	srv := mcp.NewServer(
		&mcp.Implementation{Name: "toolgate-demo-" + s.name, Version: version},
		&mcp.ServerOptions{Instructions: s.description},
	)
	s.register(srv)
	return srv, nil
}

// ServeStdio runs the named demo server over stdin/stdout until the client
// disconnects or ctx ends.
func ServeStdio(ctx context.Context, name string) error {
	srv, err := NewServer(name)
	if err != nil {
		return err
	}
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("demo: serving %s over stdio: %w", name, err)
	}
	return nil
}

// addTool registers a read-only, idempotent, closed-world tool.
func addTool[In, Out any](srv *mcp.Server, name, title, desc string, h mcp.ToolHandlerFor[In, Out]) {
	closedWorld := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:        name,
		Title:       title,
		Description: desc,
		Annotations: &mcp.ToolAnnotations{
			Title:          title,
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  &closedWorld,
		},
	}, h)
}

// textResult returns a result holding a single text block.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
