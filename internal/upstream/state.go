package upstream

// Generation returns how many sessions the Server has opened so far. A
// caller that remembers it can tell that a later call ran on a new session,
// one that replaced a lost or released session and so kept none of its
// state.
func (s *Server) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.generation
}

// Pid returns the process id of the current session's stdio child, or 0
// when there is no live stdio session.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil || s.sess.proc == nil || s.sess.isDead() || s.sess.proc.cmd.Process == nil {
		return 0
	}
	return s.sess.proc.cmd.Process.Pid
}

// Release ends the current session, if any, with its processes, and keeps
// the Server usable: the next use connects anew. Requests in flight on the
// session fail.
func (s *Server) Release() {
	s.mu.Lock()
	sess := s.sess
	s.sess = nil
	s.mu.Unlock()
	if sess != nil {
		sess.close(s.spec.CloseGrace)
		s.opts.Log("info", "release", "session released", map[string]any{"server": s.spec.Name})
	}
}
