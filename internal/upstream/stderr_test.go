package upstream

import (
	"strings"
	"testing"
)

func TestTailKeepsOnlyTheEnd(t *testing.T) {
	tl := newTail(64)
	if got := tl.Lines(5); got != "" {
		t.Errorf("empty tail = %q", got)
	}
	for i := range 10000 {
		tl.Write([]byte(strings.Repeat("x", i%7) + "line\n"))
	}
	tl.Write([]byte("last words\n"))
	if len(tl.buf) > 64 {
		t.Errorf("tail holds %d bytes, limit 64", len(tl.buf))
	}
	got := tl.Lines(2)
	if !strings.HasSuffix(got, "last words") || strings.Count(got, "\n") != 1 {
		t.Errorf("Lines(2) = %q", got)
	}
	big := newTail(8)
	big.Write([]byte("0123456789abcdef"))
	if string(big.buf) != "89abcdef" {
		t.Errorf("one large write kept %q", big.buf)
	}
}
