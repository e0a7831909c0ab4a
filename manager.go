// Package toolgate is a tool gateway for AI agents: it keeps one persistent
// MCP session per server (stdio, legacy SSE or streamable HTTP), lists every
// server's tools, and runs tool calls, always answering in one stable shape,
// a [Result] that carries either the text or an [Error] with a stable [Code].
//
// It re-implements the ToolManager of the MiroFlow research agent and fixes
// its flaws: one session per server instead of a process per call,
// concurrent discovery under timeouts, allow/deny lists applied the same way
// to listing and calling on every transport, and lossless content handling.
package toolgate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/internal/upstream"
	"github.com/toolgate/toolgate/policy"
)

// ToolManager is what an agent needs from a tool layer: the tools to show
// the model, and a way to run a call. It is the original's
// ToolManagerProtocol; [*Manager] implements it, and package toolgatetest
// offers an in-memory fake for unit tests.
type ToolManager interface {
	// ToolDefinitions lists every configured server, in config order, with
	// its tools or the error that kept them from being listed.
	ToolDefinitions(ctx context.Context) ([]ServerTools, error)
	// CallTool runs one tool call. It never panics and always returns
	// exactly one Result.
	CallTool(ctx context.Context, server, tool string, args map[string]any) Result
}

// ServerTools is one server's entry in [ToolManager.ToolDefinitions].
type ServerTools struct {
	Name  string `json:"name"`
	Tools []Tool `json:"tools"`
	// Error says why the tools could not be listed, as "code: message"; empty on success.
	Error string `json:"error,omitempty"`
}

// Tool is one tool as shown to a model.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Schema is the tool's JSON Schema for its arguments, as the server sent it.
	Schema any `json:"schema"`
	// OutputSchema is the schema of the tool's structured output, if it declares one.
	OutputSchema any `json:"output_schema,omitempty"`
}

// ErrClosed is returned by [Manager.ToolDefinitions] after [Manager.Close].
var ErrClosed = errors.New("toolgate: manager closed")

// Option configures a [Manager].
type Option func(*options)

type options struct {
	log         StepLogger
	elicitation func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	closeGrace  time.Duration
}

// WithStepLogger sends the step log to l.
func WithStepLogger(l StepLogger) Option {
	return func(o *options) { o.log = l }
}

// WithElicitationHandler answers servers that ask the user for input during
// a call (MCP elicitation). Without it, such requests are declined with an
// error, as the server is told toolgate does not support elicitation.
func WithElicitationHandler(h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) Option {
	return func(o *options) { o.elicitation = h }
}

// Manager connects to the configured MCP servers and runs calls on them.
// It is safe for concurrent use. Sessions are opened on first use and kept
// until [Manager.Close].
type Manager struct {
	cfg      Config
	servers  []*server // config order
	byName   map[string]*server
	filter   filter
	policy   *policy.Engine
	schemas  *schemas
	audit    *audit.Log     // nil without toolgate.auditLog
	fallback *fetchFallback // nil when disabled
	log      StepLogger
	logging  bool // a StepLogger was given: spend nothing on the log otherwise
	uopts    upstream.Options
	scopes   scopeSet // the stateful servers' sessions of each Scope; see scope.go

	closed    atomic.Bool
	closeOnce sync.Once
}

// server is one configured server and its session keeper.
type server struct {
	cfg            *ServerConfig
	up             *upstream.Server
	callTimeout    time.Duration
	maxResultChars int
	spec           upstream.Spec // for a Scope's own session of a stateful server
}

// New validates cfg and returns a Manager for it. It starts nothing:
// servers are connected on first use.
func New(cfg Config, opts ...Option) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("toolgate: invalid config: %w", err)
	}
	o := options{closeGrace: 300 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	logging := o.log != nil
	if !logging {
		o.log = nopLogger{}
	}
	f, err := newFilter(cfg.Deny, cfg.Allow)
	if err != nil {
		return nil, err
	}
	engine, err := compilePolicy(cfg.Policy)
	if err != nil {
		return nil, err
	}
	m := &Manager{cfg: cfg, byName: make(map[string]*server), filter: f, policy: engine, log: o.log, logging: logging}
	m.schemas = newSchemas(m.log.LogStep)
	if m.fallback, err = newFetchFallback(cfg.Fallback, m.checkFallbackURL); err != nil {
		return nil, err
	}
	if cfg.AuditLog != "" {
		if m.audit, err = audit.Open(cfg.AuditLog, audit.Options{Sync: cfg.AuditSync}); err != nil {
			return nil, fmt.Errorf("toolgate.auditLog: %w", err)
		}
	}
	uopts := upstream.Options{
		Client: &mcp.Implementation{Name: "toolgate", Version: Version},
		Log: func(level, step, msg string, meta map[string]any) {
			m.log.LogStep(Level(level), step, msg, meta)
		},
		Elicitation: o.elicitation,
	}
	m.uopts = uopts
	names := make([]string, 0, len(cfg.Servers))
	for i := range cfg.Servers {
		sc := &m.cfg.Servers[i]
		s := &server{
			cfg:            sc,
			callTimeout:    firstPositive(sc.Timeout, cfg.CallTimeout, DefaultCallTimeout),
			maxResultChars: firstPositive(sc.MaxResultChars, cfg.MaxResultChars, DefaultMaxResultChars),
		}
		s.spec = upstream.Spec{
			Name:           sc.Name,
			Transport:      string(sc.transport()),
			Command:        sc.Command,
			Args:           sc.Args,
			Env:            sc.Env,
			Dir:            sc.Cwd,
			URL:            sc.URL,
			Headers:        sc.Headers,
			NewTransport:   sc.NewTransport,
			ConnectTimeout: firstPositive(sc.ConnectTimeout, cfg.ConnectTimeout, DefaultConnectTimeout),
			PerCall:        sc.Session == SessionPerCall,
			CloseGrace:     o.closeGrace,
			KillDetached:   sc.Stateful, // a browser leaves the server's process group
		}
		s.up = upstream.New(s.spec, uopts)
		m.servers = append(m.servers, s)
		m.byName[sc.Name] = s
		names = append(names, sc.Name)
	}
	m.log.LogStep(LevelInfo, "init", fmt.Sprintf("tool manager ready with %d servers", len(names)),
		map[string]any{"servers": names})
	return m, nil
}

func firstPositive[T int | time.Duration](vals ...T) T {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

// ToolDefinitions asks every server for its tools at once, each under its
// own connect timeout, and returns them in config order. A server that
// fails is listed with its error; tools the allow/deny lists refuse are left
// out. Lists are cached per server until the server reports a change or the
// session is renewed. The error is non-nil only if the Manager is closed or
// ctx ended.
func (m *Manager) ToolDefinitions(ctx context.Context) ([]ServerTools, error) {
	if m.closed.Load() {
		return nil, ErrClosed
	}
	out := make([]ServerTools, len(m.servers))
	var wg sync.WaitGroup
	for i, s := range m.scopedServers(ctx) {
		if tools, ok := s.up.CachedTools(); ok {
			out[i] = m.serverTools(s, tools, CallerFrom(ctx))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = m.discover(ctx, s)
		}()
	}
	wg.Wait()
	if m.closed.Load() {
		return out, ErrClosed
	}
	return out, ctx.Err()
}

// discover lists one server's tools, logging the outcome.
func (m *Manager) discover(ctx context.Context, s *server) ServerTools {
	start := time.Now()
	tools, err := s.up.Tools(ctx)
	meta := map[string]any{"server": s.cfg.Name, "duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		e := m.classify(ctx, nil, err, 0)
		meta["error_code"] = string(e.Code)
		m.log.LogStep(LevelError, "discovery", "listing tools failed: "+e.Message, meta)
		return ServerTools{Name: s.cfg.Name, Tools: []Tool{}, Error: e.Error()}
	}
	st := m.serverTools(s, tools, CallerFrom(ctx))
	meta["tools"] = len(st.Tools)
	m.log.LogStep(LevelInfo, "discovery", fmt.Sprintf("listed %d tools", len(st.Tools)), meta)
	return st
}

// serverTools is what caller may see of a server's tools: those that the
// allow/deny lists admit and that a policy rule does not deny outright.
func (m *Manager) serverTools(s *server, tools []*mcp.Tool, caller Caller) ServerTools {
	st := ServerTools{Name: s.cfg.Name, Tools: make([]Tool, 0, len(tools))}
	for _, t := range tools {
		if m.filter.check(s.cfg.Name, t.Name) != "" || !m.policy.Listed(s.cfg.Name, t.Name, caller) {
			continue
		}
		st.Tools = append(st.Tools, Tool{
			Name:         t.Name,
			Description:  t.Description,
			Schema:       t.InputSchema,
			OutputSchema: t.OutputSchema,
		})
	}
	return st
}

// Close ends every session and every stdio server's process group, all
// servers at once. Calls after Close get the code closed. It is idempotent.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() {
		m.closed.Store(true)
		start := time.Now()
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = s.up.Close()
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.scopes.closeAll()
		}()
		wg.Wait()
		if m.fallback != nil {
			m.fallback.fetcher.CloseIdleConnections()
		}
		if m.audit != nil {
			if err := m.audit.Close(); err != nil {
				m.log.LogStep(LevelError, "audit", "closing the audit log: "+err.Error(), nil)
			}
		}
		m.log.LogStep(LevelInfo, "close", "tool manager closed",
			map[string]any{"duration_ms": time.Since(start).Milliseconds()})
	})
	return nil
}

var _ ToolManager = (*Manager)(nil)
