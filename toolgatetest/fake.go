// Package toolgatetest offers an in-memory [toolgate.ToolManager] for unit
// tests of agents and other code that calls tools, with no MCP server.
package toolgatetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolgate/toolgate"
)

// Handler answers a call to a fake tool. A nil error is success with the
// returned text. A *toolgate.Error is returned as is; any other error
// becomes a tool_error with its text.
type Handler func(ctx context.Context, args map[string]any) (string, error)

// Call is one call the Fake received.
type Call struct {
	Server, Tool string
	Args         map[string]any
	Result       toolgate.Result
}

// Fake is an in-memory ToolManager. The zero value is empty and ready to
// use; it is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	servers []*fakeServer
	calls   []Call
}

type fakeServer struct {
	name  string
	err   string
	tools []toolgate.Tool
	funcs map[string]Handler
}

var _ toolgate.ToolManager = (*Fake)(nil)

func (f *Fake) server(name string) *fakeServer {
	i := slices.IndexFunc(f.servers, func(s *fakeServer) bool { return s.name == name })
	if i >= 0 {
		return f.servers[i]
	}
	s := &fakeServer{name: name, funcs: make(map[string]Handler)}
	f.servers = append(f.servers, s)
	return s
}

// AddTool adds a tool to server (creating the server if needed), answered
// by h. Servers are listed in the order they were first named.
func (f *Fake) AddTool(server string, tool toolgate.Tool, h Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.server(server)
	s.tools = slices.DeleteFunc(s.tools, func(t toolgate.Tool) bool { return t.Name == tool.Name })
	s.tools = append(s.tools, tool)
	s.funcs[tool.Name] = h
}

// FailServer makes server fail: listed with msg as its error, and every
// call to it answered with connect_failed.
func (f *Fake) FailServer(server, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.server(server).err = msg
}

// Calls returns the calls received so far, in order.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// ToolDefinitions lists the fake servers and their tools.
func (f *Fake) ToolDefinitions(ctx context.Context) ([]toolgate.ServerTools, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]toolgate.ServerTools, 0, len(f.servers))
	for _, s := range f.servers {
		st := toolgate.ServerTools{Name: s.name, Tools: slices.Clone(s.tools)}
		if st.Tools == nil {
			st.Tools = []toolgate.Tool{}
		}
		if s.err != "" {
			st.Tools, st.Error = []toolgate.Tool{}, string(toolgate.CodeConnectFailed)+": "+s.err
		}
		out = append(out, st)
	}
	return out, ctx.Err()
}

// CallTool runs the fake tool's handler and records the call.
func (f *Fake) CallTool(ctx context.Context, server, tool string, args map[string]any) toolgate.Result {
	start := time.Now()
	res := f.call(ctx, server, tool, args)
	res.Server, res.Tool, res.Duration = server, tool, time.Since(start)
	f.mu.Lock()
	f.calls = append(f.calls, Call{Server: server, Tool: tool, Args: args, Result: res})
	f.mu.Unlock()
	return res
}

func (f *Fake) call(ctx context.Context, server, tool string, args map[string]any) toolgate.Result {
	fail := func(code toolgate.Code, format string, a ...any) toolgate.Result {
		return toolgate.Result{Err: &toolgate.Error{Code: code, Message: fmt.Sprintf(format, a...)}}
	}
	f.mu.Lock()
	i := slices.IndexFunc(f.servers, func(s *fakeServer) bool { return s.name == server })
	var s *fakeServer
	var h Handler
	if i >= 0 {
		s = f.servers[i]
		h = s.funcs[tool]
	}
	f.mu.Unlock()
	switch {
	case s == nil:
		return fail(toolgate.CodeUnknownServer, "server %q is not configured", server)
	case s.err != "":
		return fail(toolgate.CodeConnectFailed, "%s", s.err)
	case h == nil:
		return fail(toolgate.CodeUnknownTool, "server %q has no tool %q", server, tool)
	case ctx.Err() != nil:
		return fail(toolgate.CodeCanceled, "the call was canceled by the caller")
	}
	text, err := h(ctx, args)
	var te *toolgate.Error
	switch {
	case err == nil:
		return toolgate.Result{Text: text}
	case errors.As(err, &te):
		return toolgate.Result{Err: te}
	default:
		return fail(toolgate.CodeToolError, "%s", err.Error())
	}
}
