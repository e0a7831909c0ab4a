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
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/internal/upstream"
	"github.com/toolgate/toolgate/policy"
)

// codeTransportRejected is the JSON-RPC error code the go-sdk gives a
// request that its transport failed to deliver, such as an HTTP 500 or a
// reset connection (jsonrpc2.ErrRejected, which is internal to the go-sdk).
const codeTransportRejected = -32005

// errCallTimeout is the cause of a context ended by toolgate's own call timeout.
var errCallTimeout = errors.New("toolgate call timeout")

// CallTool runs tool on server with args under the call timeout (the
// server's, else the config's, else 1200 s; a sooner ctx deadline wins).
// Before anything reaches the server, the call must pass the allow/deny
// lists and the policy rules (for the [Caller] in ctx), and its arguments
// must match the tool's input schema. The result text is cut to the output
// limit. It never panics and never returns a bare error: every failure is a
// Result with an [Error] whose [Code] says what happened. With an audit log
// configured, the call's record is written before CallTool returns.
func (m *Manager) CallTool(ctx context.Context, serverName, tool string, args map[string]any) (res Result) {
	start := time.Now()
	caller := CallerFrom(ctx)
	var d policy.Decision
	defer func() {
		if p := recover(); p != nil {
			res = errorResult(serverName, tool, CodeProtocolError, fmt.Sprintf("internal error: %v", p))
		}
		res.Duration = time.Since(start)
		m.logCallEnd(res)
		m.record(res, caller, d, args)
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
	if d = m.decide(serverName, tool, args, caller); d.Action == policy.Deny {
		return errorResult(serverName, tool, CodeBlocked, d.Message)
	}
	res = m.callScoped(ctx, s, tool, args) // stateful servers: see stateful.go
	return m.fetchInstead(ctx, s, tool, args, caller, res)
}

// call runs an admitted call: tool check, argument validation, the call,
// and the output limit.
func (m *Manager) call(ctx context.Context, s *server, tool string, args map[string]any) Result {
	callCtx, cancel := context.WithTimeoutCause(ctx, s.callTimeout, errCallTimeout)
	defer cancel()
	if s.cfg.Session != SessionPerCall {
		t, r := m.checkTool(callCtx, ctx, s, tool)
		if t == nil {
			return r
		}
		if e := m.schemas.validate(s.cfg.Name, t, args); e != nil {
			return Result{Server: s.cfg.Name, Tool: tool, Err: e}
		}
	}
	if args == nil {
		args = map[string]any{} // "arguments": null is not an object; servers may refuse it
	}
	out, err := s.up.Call(callCtx, tool, args)
	if err != nil {
		return Result{Server: s.cfg.Name, Tool: tool, Err: m.classify(callCtx, ctx, err, s.callTimeout)}
	}
	r := resultFrom(s.cfg.Name, tool, out)
	limitResult(&r, s.maxResultChars)
	return r
}

// decide applies the allow/deny lists, then the policy rules.
func (m *Manager) decide(server, tool string, args map[string]any, caller Caller) policy.Decision {
	if why := m.filter.check(server, tool); why != "" {
		return policy.Decision{Action: policy.Deny, Rule: "toolgate.deny/allow", Message: why}
	}
	if m.policy.Empty() {
		return policy.Decision{Action: policy.Allow}
	}
	return m.policy.Decide(policy.Call{Server: server, Tool: tool, Args: args, Caller: caller})
}

// Check reports what the allow/deny lists and the policy rules decide for
// a call by the [Caller] in ctx, without calling anything.
func (m *Manager) Check(ctx context.Context, server, tool string, args map[string]any) policy.Decision {
	return m.decide(server, tool, args, CallerFrom(ctx))
}

// checkTool returns the server's definition of tool, listing its tools
// again once if the cached list does not have it; or nil and the failure.
func (m *Manager) checkTool(callCtx, ctx context.Context, s *server, tool string) (*mcp.Tool, Result) {
	find := func(tools []*mcp.Tool) *mcp.Tool {
		if i := slices.IndexFunc(tools, func(t *mcp.Tool) bool { return t.Name == tool }); i >= 0 {
			return tools[i]
		}
		return nil
	}
	tools, err := s.up.Tools(callCtx)
	if err == nil && find(tools) == nil {
		s.up.InvalidateTools()
		tools, err = s.up.Tools(callCtx)
	}
	if err != nil {
		return nil, Result{Server: s.cfg.Name, Tool: tool, Err: m.classify(callCtx, ctx, err, s.callTimeout)}
	}
	if t := find(tools); t != nil {
		return t, Result{}
	}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if m.filter.check(s.cfg.Name, t.Name) == "" {
			names = append(names, t.Name)
		}
	}
	return nil, errorResult(s.cfg.Name, tool, CodeUnknownTool,
		fmt.Sprintf("server %q has no tool %q (it has: %s)", s.cfg.Name, tool, listOrNone(names, 20)))
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

// record writes the call's audit record, if there is an audit log.
func (m *Manager) record(r Result, caller Caller, d policy.Decision, args map[string]any) {
	if m.audit == nil {
		return
	}
	rec := audit.Record{
		Time:       time.Now().UTC(),
		Agent:      caller.Agent,
		Role:       caller.Role,
		Server:     r.Server,
		Tool:       r.Tool,
		Decision:   string(d.Action),
		Rule:       d.Rule,
		Logged:     d.Logged,
		DurationMS: float64(r.Duration.Microseconds()) / 1000,
		ResultSize: len(r.Text),
		Arguments:  args,
	}
	if rec.Decision == "" {
		rec.Decision = "none" // refused before any decision: closed or unknown server
	}
	if r.Err != nil {
		rec.ErrorCode = string(r.Err.Code)
	}
	if err := m.audit.Write(rec); err != nil {
		m.log.LogStep(LevelError, "audit", "writing the audit record failed: "+err.Error(),
			map[string]any{"server": r.Server, "tool": r.Tool})
	}
}
