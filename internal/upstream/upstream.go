// Package upstream keeps one MCP client session per server: it connects on
// first use, notices when the session dies, reconnects on the next use,
// caches the server's tool list, and ends every child process on Close.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports a Spec can name.
const (
	Stdio      = "stdio"
	SSE        = "sse"
	Streamable = "streamable-http"
)

// Spec describes how to reach one server.
type Spec struct {
	Name      string
	Transport string // Stdio, SSE or Streamable

	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	URL     string
	Headers map[string]string

	// NewTransport, if set, makes each session's transport instead.
	NewTransport func() mcp.Transport

	// ConnectTimeout bounds connecting and listing tools.
	ConnectTimeout time.Duration
	// PerCall makes every call and listing use a session of its own.
	PerCall bool
	// CloseGrace is how long closing waits for a stdio child after closing
	// its stdin, and again after SIGTERM, before it kills the process group.
	CloseGrace time.Duration
	// KillDetached makes closing a stdio session also end what the child
	// started outside its process group, such as a browser (Linux only).
	KillDetached bool
}

// Options are shared by every server of a gateway.
type Options struct {
	// Client names toolgate to servers.
	Client *mcp.Implementation
	// Log receives the server's lifecycle events. It must not be nil.
	Log func(level, step, msg string, meta map[string]any)
	// Elicitation, if set, answers servers' elicitation requests.
	Elicitation func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
}

// ErrClosed is returned for any use of a Server after Close.
var ErrClosed = errors.New("closed")

// ConnectError is a failure to start, reach or initialize a server.
type ConnectError struct {
	Server string
	Err    error
	Child  // what the child left behind, for stdio servers
}

func (e *ConnectError) Error() string { return e.Child.describe(e.Err.Error()) }

func (e *ConnectError) Unwrap() error { return e.Err }

// LostError is a session that died while a request was in flight.
type LostError struct {
	Err error
	Child
}

func (e *LostError) Error() string { return e.Child.describe("connection lost: " + e.Err.Error()) }

func (e *LostError) Unwrap() error { return e.Err }

// Child is what a stdio server's process left behind when it failed.
type Child struct {
	Stderr string // the tail of its stderr, if any
	Exit   string // how it ended, if it did
}

// describe appends the child's exit status and stderr tail to msg.
func (c Child) describe(msg string) string {
	if c.Exit != "" {
		msg += " (server " + c.Exit + ")"
	}
	if c.Stderr != "" {
		msg += "; stderr: " + c.Stderr
	}
	return msg
}

// Server is one configured MCP server. It is safe for concurrent use.
type Server struct {
	spec   Spec
	opts   Options
	client *mcp.Client
	life   context.Context // ended by Close, so that work in progress gives up
	stop   context.CancelFunc
	bg     sync.WaitGroup // per-call sessions and retiring sessions, awaited by Close

	mu         sync.Mutex
	sess       *session
	connecting *attempt
	closed     bool
	generation int // sessions opened so far

	toolsMu      sync.Mutex
	tools        []*mcp.Tool
	toolsVersion int // bumped by every invalidation
	toolsCached  int // the version tools was listed at; -1 for none
}

// attempt is one connect in progress, shared by the callers waiting on it.
type attempt struct {
	done chan struct{}
	sess *session
	err  error
	// gaveUp is set when the connect failed because the connecting
	// caller's own context ended, not for a reason of the server's.
	gaveUp bool
}

// New returns a Server for spec. It connects on first use.
func New(spec Spec, opts Options) *Server {
	s := &Server{spec: spec, opts: opts, toolsCached: -1}
	s.life, s.stop = context.WithCancel(context.Background())
	copts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.InvalidateTools()
			s.opts.Log("debug", "tools_changed", "server reported a changed tool list", map[string]any{"server": spec.Name})
		},
		ElicitationHandler: opts.Elicitation,
	}
	s.client = mcp.NewClient(opts.Client, copts)
	return s
}

// Name returns the server's name.
func (s *Server) Name() string { return s.spec.Name }

// InvalidateTools drops the cached tool list.
func (s *Server) InvalidateTools() {
	s.toolsMu.Lock()
	s.toolsVersion++
	s.toolsMu.Unlock()
}

// CachedTools returns the cached tool list, if it is current.
func (s *Server) CachedTools() ([]*mcp.Tool, bool) {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	if s.toolsCached == s.toolsVersion {
		return s.tools, true
	}
	return nil, false
}

// Tools returns the server's tools, from the cache when it is current,
// else by listing them (following pagination) under the connect timeout.
func (s *Server) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	if tools, ok := s.CachedTools(); ok {
		return tools, nil
	}
	var tools []*mcp.Tool
	var listCtx context.Context
	err := s.use(ctx, func(cs *mcp.ClientSession) error {
		// Connecting has its own timeout; listing gets one as long.
		var cancel context.CancelFunc
		listCtx, cancel = context.WithTimeout(ctx, s.spec.ConnectTimeout)
		defer cancel()
		ctx := listCtx
		s.toolsMu.Lock()
		version := s.toolsVersion
		s.toolsMu.Unlock()
		tools = tools[:0]
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		if !s.spec.PerCall {
			s.toolsMu.Lock()
			if version == s.toolsVersion {
				s.tools, s.toolsCached = slices.Clip(tools), version
			}
			s.toolsMu.Unlock()
		}
		return nil
	})
	if err != nil && listCtx != nil && errors.Is(listCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("listing tools timed out after %v: %w", s.spec.ConnectTimeout, err)
	}
	return tools, err
}

// Call calls a tool. The error, if any, is a *ConnectError, a *LostError,
// ErrClosed, a context error, or the go-sdk's error for a protocol failure.
func (s *Server) Call(ctx context.Context, tool string, args any) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	err := s.use(ctx, func(cs *mcp.ClientSession) error {
		var err error
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		return err
	})
	return res, err
}

// use runs f on a live session, connecting first if needed, and classifies
// a failure that came from the session dying under f.
func (s *Server) use(ctx context.Context, f func(*mcp.ClientSession) error) error {
	var sess *session
	var err error
	if s.spec.PerCall {
		sess, err = s.perCallSession(ctx)
		if err == nil {
			defer s.bg.Done()
			defer sess.close(s.spec.CloseGrace)
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(s.life, cancel)()
		}
	} else {
		sess, err = s.session(ctx)
	}
	if err != nil {
		return err
	}
	err = f(sess.cs)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if sess.lost(err) {
		s.drop(sess)
		return &LostError{Err: err, Child: sess.child()}
	}
	return err
}

// session returns the live session, connecting if there is none. Callers
// that arrive during a connect wait for it instead of starting their own.
func (s *Server) session(ctx context.Context) (*session, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		if sess := s.sess; sess != nil && !sess.isDead() {
			s.mu.Unlock()
			return sess, nil
		}
		if old := s.sess; old != nil {
			s.sess = nil
			s.bg.Add(1)
			go func() {
				defer s.bg.Done()
				s.retire(old)
			}()
		}
		if a := s.connecting; a != nil {
			s.mu.Unlock()
			select {
			case <-a.done:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			if a.gaveUp && ctx.Err() == nil {
				// The caller who was connecting gave up, canceled or past its
				// own deadline: try again. (Only Canceled used to count, so a
				// caller with a short deadline failed every waiter with
				// connect_failed "context deadline exceeded"; the soak found it.)
				continue
			}
			return a.sess, a.err
		}
		a := &attempt{done: make(chan struct{})}
		s.connecting = a
		s.mu.Unlock()

		a.sess, a.err = s.connect(ctx)
		a.gaveUp = a.err != nil && ctx.Err() != nil

		s.mu.Lock()
		s.connecting = nil
		if a.err == nil {
			if s.closed {
				a.sess.close(s.spec.CloseGrace)
				a.sess, a.err = nil, ErrClosed
			} else {
				s.sess = a.sess
			}
		}
		s.mu.Unlock()
		close(a.done)
		return a.sess, a.err
	}
}

// perCallSession opens a session for one use; the caller must call s.bg.Done
// after closing it.
func (s *Server) perCallSession(ctx context.Context) (*session, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	s.bg.Add(1)
	s.mu.Unlock()
	sess, err := s.connect(ctx)
	if err != nil {
		s.bg.Done()
	}
	return sess, err
}

// drop forgets sess if it is still the current session, and ends it.
func (s *Server) drop(sess *session) {
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
	} else {
		sess = nil
	}
	s.mu.Unlock()
	if sess != nil {
		s.retire(sess)
	}
}

// retire ends a dead session and reports it.
func (s *Server) retire(sess *session) {
	sess.close(s.spec.CloseGrace)
	meta := map[string]any{"server": s.spec.Name}
	if c := sess.child(); c != (Child{}) {
		meta["stderr"], meta["exit"] = c.Stderr, c.Exit
	}
	s.opts.Log("warning", "session_lost", "session ended; the next call reconnects", meta)
}

// Close ends the session and its child processes. Calls after Close get
// ErrClosed. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.stop()
	sess, a := s.sess, s.connecting
	s.sess = nil
	s.mu.Unlock()
	if sess != nil {
		sess.close(s.spec.CloseGrace)
	}
	if a != nil {
		<-a.done // the connect sees closed and ends its own session
	}
	s.bg.Wait()
	return nil
}
