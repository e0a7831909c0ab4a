package toolgate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/upstream"
)

// Scope is a view of a [Manager] with sessions of its own on every stateful
// server (see [ServerConfig.Stateful]), such as a browser, while stateless
// servers stay shared with the Manager and every other scope. Give each task
// or agent its own scope and no two of them see each other's pages.
//
// A scope's stateful sessions start on first use. When the scope has not
// been used for [Config.ScopeIdleTimeout], they are released, browsers and
// all; the next call starts new ones, and its [Result] says so
// ([Result.StateReset]). [Scope.Close] releases them at once;
// [Manager.Close] closes every scope.
//
// A Scope is safe for concurrent use; calls to one stateful server run one
// at a time, in arrival order.
type Scope struct {
	m    *Manager
	name string
	idle time.Duration

	mu       sync.Mutex
	servers  map[string]*scopedServer // stateful servers used so far, by name
	closed   bool
	inflight int // calls and listings in progress
	lastUsed time.Time
	timer    *time.Timer    // fires when the scope may have gone idle
	bg       sync.WaitGroup // idle releases in progress
}

// scopedServer is a scope's session keeper for one stateful server.
type scopedServer struct {
	srv   *server // the Manager's config and limits, with this scope's session keeper
	own   bool    // srv.up is this scope's own (the default scope shares the Manager's)
	queue ticketQueue

	// Only the holder of queue uses these.
	seen     int // session generation of the last call that reached the server
	browsers browserWatch
}

// scopeSet holds a Manager's scopes.
type scopeSet struct {
	mu     sync.Mutex
	def    *Scope
	byName map[string]*Scope
	closed bool
}

// scopeKey is the context key under which a Scope passes itself to the
// Manager's ToolDefinitions and CallTool.
type scopeKey struct{}

// Scope returns the scope named name, creating it on first use; the same
// name gives the same scope until it is closed. The empty name is the
// default scope, which the Manager's own ToolDefinitions and CallTool use.
// After [Manager.Close], the returned scope is closed.
func (m *Manager) Scope(name string) *Scope {
	set := &m.scopes
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.closed || m.closed.Load() {
		sc := m.newScope(name)
		sc.closed = true
		return sc
	}
	if name == "" {
		if set.def == nil {
			set.def = m.newScope("")
		}
		return set.def
	}
	sc := set.byName[name]
	if sc == nil {
		sc = m.newScope(name)
		if set.byName == nil {
			set.byName = make(map[string]*Scope)
		}
		set.byName[name] = sc
	}
	return sc
}

func (m *Manager) newScope(name string) *Scope {
	return &Scope{
		m:       m,
		name:    name,
		idle:    firstPositive(m.cfg.ScopeIdleTimeout, DefaultScopeIdleTimeout),
		servers: make(map[string]*scopedServer),
	}
}

// Name returns the scope's name; "" for the default scope.
func (sc *Scope) Name() string { return sc.name }

// ToolDefinitions lists every server's tools as [Manager.ToolDefinitions]
// does, listing stateful servers on this scope's own sessions.
func (sc *Scope) ToolDefinitions(ctx context.Context) ([]ServerTools, error) {
	sc.mu.Lock()
	closed := sc.closed
	sc.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("toolgate: scope %q: %w", sc.name, ErrClosed)
	}
	return sc.m.ToolDefinitions(context.WithValue(ctx, scopeKey{}, sc))
}

// CallTool runs a call as [Manager.CallTool] does; a call to a stateful
// server runs on this scope's own session, after the scope's earlier calls
// to that server.
func (sc *Scope) CallTool(ctx context.Context, server, tool string, args map[string]any) Result {
	return sc.m.CallTool(context.WithValue(ctx, scopeKey{}, sc), server, tool, args)
}

// Close ends the scope's stateful sessions and every process they started,
// browsers included. Calls on a closed scope get the code closed, and
// [Manager.Scope] with the same name then returns a new scope. Closing the
// default scope only releases its sessions: the Manager goes on, and its
// next call to a stateful server starts a new session, with the state-reset
// notice. Close is idempotent and always returns nil.
func (sc *Scope) Close() error {
	if sc.name == "" {
		sc.releaseIdle(true)
		return nil
	}
	set := &sc.m.scopes
	set.mu.Lock()
	if set.byName[sc.name] == sc {
		delete(set.byName, sc.name)
	}
	set.mu.Unlock()
	sc.shutdown()
	return nil
}

// shutdown closes the scope: no new calls, no more idle releases, and its
// own session keepers closed, all at once.
func (sc *Scope) shutdown() {
	sc.mu.Lock()
	sc.closed = true
	if sc.timer != nil {
		sc.timer.Stop()
	}
	servers := make([]*scopedServer, 0, len(sc.servers))
	for _, ss := range sc.servers {
		servers = append(servers, ss)
	}
	sc.mu.Unlock()
	sc.bg.Wait()
	var wg sync.WaitGroup
	for _, ss := range servers {
		if ss.own {
			wg.Go(func() { _ = ss.srv.up.Close() })
		}
	}
	wg.Wait()
}

// closeAll closes every scope, for [Manager.Close].
func (set *scopeSet) closeAll() {
	set.mu.Lock()
	set.closed = true
	all := make([]*Scope, 0, len(set.byName)+1)
	if set.def != nil {
		all = append(all, set.def)
	}
	for _, sc := range set.byName {
		all = append(all, sc)
	}
	set.byName = nil
	set.mu.Unlock()
	var wg sync.WaitGroup
	for _, sc := range all {
		wg.Go(sc.shutdown)
	}
	wg.Wait()
}

// scopedServers returns the servers that the scope in ctx (else the default
// scope) lists: the Manager's, with the scope's own session keepers for
// stateful servers.
func (m *Manager) scopedServers(ctx context.Context) []*server {
	sc, _ := ctx.Value(scopeKey{}).(*Scope)
	if sc == nil {
		sc = m.Scope("")
	}
	out := make([]*server, len(m.servers))
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for i, s := range m.servers {
		out[i] = s
		if s.cfg.Stateful {
			out[i] = sc.serverLocked(s).srv
		}
	}
	sc.touchLocked() // listing may start sessions: let them go idle too
	return out
}

// serverLocked returns the scope's keeper for the stateful server s,
// creating it on first use. A closed scope gets a closed keeper, so that
// nothing starts.
func (sc *Scope) serverLocked(s *server) *scopedServer {
	if ss := sc.servers[s.cfg.Name]; ss != nil {
		return ss
	}
	ss := &scopedServer{srv: s}
	if sc.name != "" {
		own := *s
		own.up = upstream.New(s.spec, sc.m.uopts)
		ss.srv, ss.own = &own, true
		if sc.closed {
			_ = own.up.Close()
			return ss
		}
	}
	sc.servers[s.cfg.Name] = ss
	return ss
}

// enter counts a call in and returns the keeper for s, or why the call
// cannot run.
func (sc *Scope) enter(s *server) (*scopedServer, *Error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return nil, &Error{CodeClosed, fmt.Sprintf("the scope %q was closed", sc.name)}
	}
	sc.inflight++
	return sc.serverLocked(s), nil
}

// leave counts a call out and, when none is left, starts the idle clock.
func (sc *Scope) leave() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.inflight--
	sc.touchLocked()
}

// touchLocked notes a use and, when nothing is in progress, (re)starts
// the idle clock.
func (sc *Scope) touchLocked() {
	sc.lastUsed = time.Now()
	if sc.inflight > 0 || sc.closed || len(sc.servers) == 0 {
		return
	}
	if sc.timer == nil {
		sc.timer = time.AfterFunc(sc.idle, func() { sc.releaseIdle(false) })
	} else {
		sc.timer.Reset(sc.idle)
	}
}

// releaseIdle releases the scope's stateful sessions if it has been idle
// for its idle timeout, or at once if now is set. Calls that arrive
// meanwhile wait for it, then start new sessions.
func (sc *Scope) releaseIdle(now bool) {
	sc.mu.Lock()
	if sc.closed || sc.inflight > 0 && !now {
		sc.mu.Unlock()
		return
	}
	if wait := sc.idle - time.Since(sc.lastUsed); wait > 0 && !now {
		sc.timer.Reset(wait)
		sc.mu.Unlock()
		return
	}
	sc.bg.Add(1)
	defer sc.bg.Done()
	servers := make([]*scopedServer, 0, len(sc.servers))
	for _, ss := range sc.servers {
		servers = append(servers, ss)
	}
	sc.mu.Unlock()
	for _, ss := range servers {
		if !now && !ss.queue.tryAcquire() {
			continue // a call holds it: not idle after all
		}
		if now {
			ss.queue.acquire(context.Background())
		}
		sc.mu.Lock()
		busy := sc.inflight > 0 && !now
		sc.mu.Unlock()
		if !busy && ss.srv.up.Generation() > 0 {
			ss.srv.up.Release()
			ss.browsers = browserWatch{}
			sc.m.log.LogStep(LevelInfo, "scope_release", "released the stateful session",
				map[string]any{"scope": sc.name, "server": ss.srv.cfg.Name, "idle": !now})
		}
		ss.queue.release()
	}
}
