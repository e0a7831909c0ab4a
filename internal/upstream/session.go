package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is one connected MCP client session and, for stdio, its child.
type session struct {
	cs   *mcp.ClientSession
	proc *process // nil for remote servers
	stop context.CancelFunc

	dead      chan struct{} // closed when the connection ends
	closeOnce sync.Once
}

// connect opens a new session, under the connect timeout.
func (s *Server) connect(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.spec.ConnectTimeout,
		fmt.Errorf("timed out after %v connecting", s.spec.ConnectTimeout))
	defer cancel()
	stopOnClose := context.AfterFunc(s.life, cancel)
	defer stopOnClose()

	start := time.Now()
	sess := &session{dead: make(chan struct{})}
	transport, err := s.transport(sess)
	if err == nil {
		sess.cs, err = s.client.Connect(ctx, transport, nil)
	}
	if err != nil {
		sess.release()
		if s.life.Err() != nil {
			return nil, ErrClosed
		}
		if ctx.Err() != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %v", ctx.Err(), err)
		}
		if cause := context.Cause(ctx); ctx.Err() != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		cerr := &ConnectError{Server: s.spec.Name, Err: err, Child: sess.child()}
		s.opts.Log("error", "connect", "connect failed: "+cerr.Error(), map[string]any{"server": s.spec.Name})
		return nil, cerr
	}
	go func() {
		_ = sess.cs.Wait()
		close(sess.dead)
	}()
	s.mu.Lock()
	s.generation++
	gen := s.generation
	s.mu.Unlock()
	s.InvalidateTools() // a new session may offer other tools
	meta := map[string]any{"server": s.spec.Name, "transport": s.spec.Transport, "duration_ms": time.Since(start).Milliseconds()}
	step := "connect"
	if gen > 1 && !s.spec.PerCall {
		step = "reconnect"
		meta["session"] = gen
	}
	s.opts.Log("info", step, "connected", meta)
	return sess, nil
}

// transport builds the go-sdk transport for the spec.
func (s *Server) transport(sess *session) (mcp.Transport, error) {
	if s.spec.NewTransport != nil {
		return s.spec.NewTransport(), nil
	}
	switch s.spec.Transport {
	case SSE:
		life, stop := context.WithCancel(context.Background())
		sess.stop = stop
		t := &mcp.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: httpClient(s.spec.Headers)}
		return &detachedConnect{Transport: t, life: life, cancel: stop}, nil
	case Streamable:
		return &mcp.StreamableClientTransport{Endpoint: s.spec.URL, HTTPClient: httpClient(s.spec.Headers)}, nil
	default:
		p, err := newProcess(&s.spec)
		if err != nil {
			return nil, err
		}
		sess.proc = p
		return p.transport(s.spec.CloseGrace), nil
	}
}

func (sess *session) isDead() bool {
	select {
	case <-sess.dead:
		return true
	default:
		return false
	}
}

// lost reports whether err means the session can no longer be used.
func (sess *session) lost(err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	if sess.isDead() {
		return true
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return false // the server answered
	}
	// The read loop may lag the failed request by a moment.
	select {
	case <-sess.dead:
		return true
	case <-time.After(20 * time.Millisecond):
		return false
	}
}

// close ends the session and, for stdio, the child's whole process group.
func (sess *session) close(grace time.Duration) {
	sess.closeOnce.Do(func() {
		if sess.proc != nil {
			sess.proc.noteGroups()
		}
		if sess.cs != nil {
			done := make(chan struct{})
			go func() {
				_ = sess.cs.Close()
				close(done)
			}()
			// Close waits on the child; the go-sdk's own escalation takes
			// about three graces, so bound it and kill the group ourselves.
			select {
			case <-done:
			case <-time.After(3 * grace):
			}
			if sess.proc != nil {
				sess.proc.killGroup()
			}
			<-done
		}
		sess.release()
	})
}

// release frees what a session holds without talking to the server.
func (sess *session) release() {
	if sess.proc != nil {
		sess.proc.killGroup()
	}
	if sess.stop != nil {
		sess.stop()
	}
}

// child reports what the session's child left behind (nothing for remote servers).
func (sess *session) child() Child {
	return Child{Stderr: sess.stderrTail(), Exit: sess.exit()}
}

func (sess *session) stderrTail() string {
	if sess.proc == nil {
		return ""
	}
	return sess.proc.stderr.Lines(10)
}

// exit describes how the child ended, or "" if it has not been reaped.
func (sess *session) exit() string {
	if sess.proc == nil {
		return ""
	}
	if sess.cs != nil {
		// The go-sdk reaps the child while closing the connection, and the
		// connection reports itself closed only after that: wait for it, so
		// as not to read the process state while it is being written.
		select {
		case <-sess.dead:
		case <-time.After(50 * time.Millisecond):
			return ""
		}
	}
	// A failed connect has already closed (and reaped) what it started.
	return sess.proc.exitStatus()
}
