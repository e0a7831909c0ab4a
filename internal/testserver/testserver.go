// Package testserver provides an MCP server whose behaviour tests control.
//
// The server exposes a fixed set of tools (echo, slow, fail, image,
// structured, mixed, add_tool, remove_tool, crash, stderr and big) that
// exercise the interesting corners of the protocol: cancellation, tool
// errors, non-text content, structured output, list-changed notifications,
// abrupt exits and large results. It can be used in-process (see [New]),
// over HTTP (see [StreamableHandler] and [SSEHandler]) or over stdio by
// re-executing the running test binary (see [Command] and [MainIfRequested]).
package testserver

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ImplementationName is the implementation name the test server reports
// during initialization.
const ImplementationName = "toolgate-testserver"

// Stats counts tool calls received, per tool name; safe for concurrent use.
// The zero value is ready to use.
type Stats struct {
	mu        sync.Mutex
	calls     map[string]int64
	total     int64
	cancelled int64
}

// Calls reports how many calls of the named tool have been received.
func (s *Stats) Calls(tool string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[tool]
}

// Total reports how many tool calls have been received, across all tools.
func (s *Stats) Total() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Cancelled reports how many calls of the slow tool were cancelled before
// they completed.
func (s *Stats) Cancelled() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

func (s *Stats) record(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil {
		s.calls = make(map[string]int64)
	}
	s.calls[tool]++
	s.total++
}

func (s *Stats) recordCancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled++
}

// New returns a fresh MCP server (implementation name "toolgate-testserver")
// with the test tools, and the Stats it records calls in.
//
// The crash tool of a server returned by New does not exit the process; it
// reports a tool error instead, so that New is safe to use in-process.
func New() (*mcp.Server, *Stats) {
	return newServer(false)
}

// StreamableHandler returns an http.Handler serving one shared [New] server
// over the streamable HTTP transport, and the server's Stats.
func StreamableHandler() (http.Handler, *Stats) {
	srv, stats := New()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return h, stats
}

// SSEHandler returns an http.Handler serving one shared [New] server over
// the (2024-11-05) SSE transport, and the server's Stats.
func SSEHandler() (http.Handler, *Stats) {
	srv, stats := New()
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return h, stats
}

// newServer returns a server with all test tools registered. If exitOnCrash
// is set, the crash tool exits the process.
func newServer(exitOnCrash bool) (*mcp.Server, *Stats) {
	srv := mcp.NewServer(&mcp.Implementation{Name: ImplementationName, Version: "v0.0.1"}, nil)
	t := &tools{server: srv, stats: new(Stats), png: tinyPNG(), exitOnCrash: exitOnCrash}
	t.register()
	return srv, t.stats
}

// tinyPNG returns a valid 2x2 PNG image.
func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(1, 0, color.RGBA{G: 255, A: 255})
	img.Set(0, 1, color.RGBA{B: 255, A: 255})
	img.Set(1, 1, color.RGBA{R: 255, G: 255, B: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		// Encoding an in-memory RGBA image to a bytes.Buffer cannot fail.
		panic(fmt.Sprintf("testserver: encoding PNG: %v", err))
	}
	return buf.Bytes()
}

// counted wraps a typed tool handler so that every call is recorded in stats.
func counted[In, Out any](stats *Stats, name string, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		stats.record(name)
		return h(ctx, req, in)
	}
}

// addTool registers a typed tool whose calls are counted in stats.
func addTool[In, Out any](srv *mcp.Server, stats *Stats, name, desc string, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc}, counted(stats, name, h))
}

// textResult returns a result holding a single text block.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// errorResult returns a tool-error result holding a single text block.
func errorResult(text string) *mcp.CallToolResult {
	res := textResult(text)
	res.IsError = true
	return res
}
