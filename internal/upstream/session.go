package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
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
	closed    chan struct{} // closed when close is done; closeErr is then set
	closeErr  error         // what closing the go-sdk session returned
}

// connect opens a new session, under the connect timeout.
func (s *Server) connect(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.spec.ConnectTimeout,
		fmt.Errorf("timed out after %v connecting", s.spec.ConnectTimeout))
	defer cancel()
	stopOnClose := context.AfterFunc(s.life, cancel)
	defer stopOnClose()

	start := time.Now()
	sess := &session{dead: make(chan struct{}), closed: make(chan struct{})}
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
	if errors.As(err, &rpcErr) && rpcErr.Code != jsonrpc.CodeParseError {
		return false // the server answered
	}
	// A parse error is also what every call in flight gets when the server
	// writes something that is not JSON: then the reader has stopped.
	// A connection whose reader failed (on output that is not JSON, or on
	// a message over the go-sdk's 16 MiB stdio limit) closes itself, but
	// only once its child has exited, which takes up to about three close
	// graces; until then sess.dead stays open. (Waiting 20 ms for it called
	// these sessions alive and the calls protocol_error.) Ask with a ping:
	// a live server answers it at once, and on a closing connection it
	// returns ErrConnectionClosed when the close is done.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if perr := sess.cs.Ping(ctx, nil); errors.Is(perr, mcp.ErrConnectionClosed) {
		return true
	}
	return sess.isDead()
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
				sess.closeErr = sess.cs.Close()
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
		close(sess.closed)
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
		// The go-sdk reaps the child while closing the connection, but it
		// stops waiting for a child that outlives SIGKILL by a grace (as one
		// may under load) and leaves its Wait running. Read the state only
		// once our close has seen Wait's own answer, so as never to read it
		// while Wait writes it. (Waiting for sess.dead raced with that Wait;
		// the soak test found it under -race.)
		select {
		case <-sess.closed:
		case <-time.After(50 * time.Millisecond):
			return ""
		}
		var exitErr *exec.ExitError
		if sess.closeErr != nil && !errors.As(sess.closeErr, &exitErr) {
			return ""
		}
	}
	// A failed connect has already closed (and reaped) what it started.
	return sess.proc.exitStatus()
}
