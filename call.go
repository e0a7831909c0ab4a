package toolgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/upstream"
)

// codeTransportRejected is the JSON-RPC error code the go-sdk gives a
// request that its transport failed to deliver, such as an HTTP 500 or a
// reset connection (jsonrpc2.ErrRejected, which is internal to the go-sdk).
const codeTransportRejected = -32005

// errCallTimeout is the cause of a context ended by toolgate's own call timeout.
var errCallTimeout = errors.New("toolgate call timeout")

// CallTool runs tool on server with args under the call timeout (the
// server's, else the config's, else 1200 s; a sooner ctx deadline wins).
// It never panics and never returns a bare error: every failure is a Result
// with an [Error] whose [Code] says what happened.
func (m *Manager) CallTool(ctx context.Context, serverName, tool string, args map[string]any) (res Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res = errorResult(serverName, tool, CodeProtocolError, fmt.Sprintf("internal error: %v", p))
		}
		res.Duration = time.Since(start)
		m.logCallEnd(res)
	}()
	if m.logging {
		m.log.LogStep(LevelInfo, "call_start", "calling "+serverName+":"+tool,
			map[string]any{"server": serverName, "tool": tool})
	}

	if m.closed.Load() {
		return errorResult(serverName, tool, CodeClosed, "the tool manager is closed")
	}
	s := m.byName[serverName]
	if s == nil {
		return errorResult(serverName, tool, CodeUnknownServer,
			fmt.Sprintf("server %q is not configured (configured: %s)", serverName, m.serverNames()))
	}
	if why := m.filter.check(serverName, tool); why != "" {
		return errorResult(serverName, tool, CodeBlocked, why)
	}
	return m.callScoped(ctx, s, tool, args) // stateful servers: see stateful.go
}

// call runs an admitted call: tool check and the call.
func (m *Manager) call(ctx context.Context, s *server, tool string, args map[string]any) Result {
	callCtx, cancel := context.WithTimeoutCause(ctx, s.callTimeout, errCallTimeout)
	defer cancel()
	if s.cfg.Session != SessionPerCall {
		if r, ok := m.checkTool(callCtx, ctx, s, tool); !ok {
			return r
		}
	}
	if args == nil {
		args = map[string]any{} // "arguments": null is not an object; servers may refuse it
	}
	out, err := s.up.Call(callCtx, tool, args)
	if err != nil {
		return Result{Server: s.cfg.Name, Tool: tool, Err: m.classify(callCtx, ctx, err, s.callTimeout)}
	}
	return resultFrom(s.cfg.Name, tool, out)
}

// checkTool makes sure the server offers tool, listing its tools again
// once if the cached list does not have it.
func (m *Manager) checkTool(callCtx, ctx context.Context, s *server, tool string) (Result, bool) {
	has := func(tools []*mcp.Tool) bool {
		return slices.ContainsFunc(tools, func(t *mcp.Tool) bool { return t.Name == tool })
	}
	tools, err := s.up.Tools(callCtx)
	if err == nil && !has(tools) {
		s.up.InvalidateTools()
		tools, err = s.up.Tools(callCtx)
	}
	if err != nil {
		return Result{Server: s.cfg.Name, Tool: tool, Err: m.classify(callCtx, ctx, err, s.callTimeout)}, false
	}
	if has(tools) {
		return Result{}, true
	}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if m.filter.check(s.cfg.Name, t.Name) == "" {
			names = append(names, t.Name)
		}
	}
	return errorResult(s.cfg.Name, tool, CodeUnknownTool,
		fmt.Sprintf("server %q has no tool %q (it has: %s)", s.cfg.Name, tool, listOrNone(names, 20))), false
}

// classify turns an error from a session into an Error. callCtx is the
// context the work ran under; ctx, if not nil, is the caller's own.
func (m *Manager) classify(callCtx, ctx context.Context, err error, timeout time.Duration) *Error {
	var (
		connErr *upstream.ConnectError
		lostErr *upstream.LostError
		rpcErr  *jsonrpc.Error
		typeErr *json.UnsupportedTypeError
		valErr  *json.UnsupportedValueError
	)
	switch {
	case errors.Is(err, upstream.ErrClosed) || m.closed.Load():
		return &Error{CodeClosed, "the tool manager was closed"}
	case callCtx.Err() != nil && context.Cause(callCtx) == errCallTimeout:
		return &Error{CodeTimeout, fmt.Sprintf("timed out after %v; the server was sent a cancellation", timeout)}
	case ctx != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{CodeTimeout, "the caller's deadline passed; the server was sent a cancellation"}
	case ctx != nil && errors.Is(ctx.Err(), context.Canceled) || ctx == nil && errors.Is(callCtx.Err(), context.Canceled):
		return &Error{CodeCanceled, "the call was canceled by the caller"}
	case errors.As(err, &connErr):
		return &Error{CodeConnectFailed, connErr.Error()}
	case errors.As(err, &lostErr):
		return &Error{CodeConnectionLost, lostErr.Error() + "; the next call reconnects"}
	case errors.As(err, &typeErr) || errors.As(err, &valErr):
		return &Error{CodeInvalidArguments, "arguments cannot be sent as JSON: " + err.Error()}
	case errors.As(err, &rpcErr):
		msg := fmt.Sprintf("server error %d: %s", rpcErr.Code, rpcErr.Message)
		if rpcErr.Code == codeTransportRejected {
			// The HTTP status or network error is only in err's text; the
			// session itself lives on.
			msg = "the transport failed the request: " + err.Error()
		}
		if rpcErr.Code == jsonrpc.CodeInvalidParams {
			if strings.Contains(strings.ToLower(rpcErr.Message), "unknown tool") {
				return &Error{CodeUnknownTool, msg}
			}
			return &Error{CodeInvalidArguments, msg}
		}
		return &Error{CodeProtocolError, msg}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{CodeTimeout, err.Error()}
	default:
		return &Error{CodeProtocolError, err.Error()}
	}
}

func (m *Manager) logCallEnd(r Result) {
	if !m.logging {
		return
	}
	meta := map[string]any{"server": r.Server, "tool": r.Tool, "duration_ms": r.Duration.Milliseconds()}
	if r.Err != nil {
		meta["error_code"] = string(r.Err.Code)
		m.log.LogStep(LevelWarning, "call_end", "call failed: "+r.Err.Message, meta)
		return
	}
	m.log.LogStep(LevelInfo, "call_end", "call succeeded", meta)
}

func (m *Manager) serverNames() string {
	names := make([]string, len(m.servers))
	for i, s := range m.servers {
		names[i] = s.cfg.Name
	}
	return listOrNone(names, 20)
}

func listOrNone(names []string, max int) string {
	switch {
	case len(names) == 0:
		return "none"
	case len(names) > max:
		return strings.Join(names[:max], ", ") + fmt.Sprintf(", and %d more", len(names)-max)
	}
	return strings.Join(names, ", ")
}
