package upstream

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// tail keeps the last bytes written to it: a bounded record of a child's
// stderr, however much the child writes.
type tail struct {
	mu    sync.Mutex
	buf   []byte
	limit int
	total int64
}

func newTail(limit int) *tail { return &tail{limit: limit} }

// Write keeps the last limit bytes of everything written. It never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.limit {
		t.buf = append(t.buf[:0], p[len(p)-t.limit:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Lines returns at most n of the last complete or partial lines, trimmed,
// as one string; "" when nothing was written.
func (t *tail) Lines(n int) string {
	t.mu.Lock()
	s := string(t.buf)
	cut := t.total > int64(len(t.buf))
	t.mu.Unlock()
	if cut {
		// The first line is probably partial: drop it, and any split rune.
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	s = strings.ToValidUTF8(s, string(utf8.RuneError))
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
