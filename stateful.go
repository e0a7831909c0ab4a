package toolgate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/proc"
)

// StateResetNotice begins the text (or error message) of a [Result] whose
// call ran on a new session of a stateful server; see [Result.StateReset].
const StateResetNotice = "Note: the browser session was restarted, so earlier pages, tabs and logins are gone."

// callScoped runs an admitted call. A call to a stateful server runs on the
// session of the caller's scope (the default scope when ctx names none),
// after that scope's earlier calls to the server.
func (m *Manager) callScoped(ctx context.Context, s *server, tool string, args map[string]any) Result {
	if !s.cfg.Stateful {
		return m.call(ctx, s, tool, args)
	}
	sc, _ := ctx.Value(scopeKey{}).(*Scope)
	if sc == nil {
		sc = m.Scope("")
	}
	ss, e := sc.enter(s)
	if e != nil {
		return Result{Server: s.cfg.Name, Tool: tool, Err: e}
	}
	defer sc.leave()
	if err := ss.queue.acquire(ctx); err != nil {
		return Result{Server: s.cfg.Name, Tool: tool, Err: waitError(ctx, s.cfg.Name)}
	}
	defer ss.queue.release()

	up := ss.srv.up
	if ss.browsers.died(up.Generation()) {
		// The browser died between calls (or its server closed it): start
		// over, so that the loss is reported rather than hidden by a
		// server that quietly launches a new one.
		up.Release()
	}
	res := m.call(ctx, ss.srv, tool, args)
	gen := up.Generation()
	died := ss.browsers.died(gen)
	if died && res.Err != nil {
		up.Release()
		msg := fmt.Sprintf("the browser started by %q died during the call; the next call starts a new browser session", s.cfg.Name)
		return Result{Server: s.cfg.Name, Tool: tool, Err: &Error{CodeConnectionLost, msg}}
	}
	if reachedServer(res) {
		// died here means the call succeeded on a browser the server
		// launched anew.
		if died || ss.seen > 0 && gen > ss.seen {
			markStateReset(&res)
		}
		ss.seen = gen
	}
	ss.browsers.note(gen, up.Pid(), died)
	return res
}

// reachedServer reports whether the call got an answer from a session.
func reachedServer(r Result) bool {
	if r.Err == nil {
		return true
	}
	switch r.Err.Code {
	case CodeToolError, CodeInvalidArguments, CodeProtocolError, CodeUnknownTool:
		return true
	}
	return false
}

// markStateReset flags r and puts the notice in front of its text.
func markStateReset(r *Result) {
	r.StateReset = true
	if r.Err != nil {
		r.Err.Message = StateResetNotice + " " + r.Err.Message
		return
	}
	if r.Text == "" {
		r.Text = StateResetNotice
		return
	}
	r.Text = StateResetNotice + "\n" + r.Text
}

// waitError describes a call whose ctx ended while it waited for its turn.
func waitError(ctx context.Context, server string) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{CodeTimeout, fmt.Sprintf("the caller's deadline passed while the call waited for earlier calls to %q to finish", server)}
	}
	return &Error{CodeCanceled, fmt.Sprintf("the call was canceled by the caller while it waited for earlier calls to %q to finish", server)}
}

// browserWatch remembers the processes that a stateful stdio server started
// in process groups of their own (its browsers), so that a browser's death
// is noticed even when the server would quietly launch another.
type browserWatch struct {
	gen   int // the session generation they belong to
	procs []proc.Info
}

// died reports whether a remembered browser of session gen has exited.
func (w *browserWatch) died(gen int) bool {
	if w.gen != gen {
		return false
	}
	return slices.ContainsFunc(w.procs, func(p proc.Info) bool { return !p.Alive() })
}

// note remembers the current browsers of session gen, whose server runs as
// pid (0 when it is not a local process); died is what [browserWatch.died]
// just said. While the remembered browsers live, watching costs one read
// of /proc/PID/stat for each, before and after every call.
func (w *browserWatch) note(gen, pid int, died bool) {
	if pid == 0 {
		*w = browserWatch{}
		return
	}
	if w.gen == gen && len(w.procs) > 0 && !died {
		return
	}
	*w = browserWatch{gen: gen, procs: proc.Detached(pid)}
}

// ticketQueue lets its holders in one at a time, in the order they asked.
type ticketQueue struct {
	mu      sync.Mutex
	busy    bool
	waiting []chan struct{}
}

// acquire waits for the caller's turn. If ctx ends first it gives up its
// place and returns ctx's error.
func (q *ticketQueue) acquire(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	q.waiting = append(q.waiting, turn)
	q.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if i := slices.Index(q.waiting, turn); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		q.mu.Unlock()
		return ctx.Err()
	}
	q.mu.Unlock()
	q.release() // the turn came just as ctx ended: pass it on
	return ctx.Err()
}

// tryAcquire takes the queue if nobody holds it or waits for it.
func (q *ticketQueue) tryAcquire() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.busy {
		return false
	}
	q.busy = true
	return true
}

// release hands the queue to the longest waiter, or frees it.
func (q *ticketQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		q.busy = false
		return
	}
	next := q.waiting[0]
	q.waiting = q.waiting[1:]
	close(next)
}
