package toolgate

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFilter checks the allow/deny decision for one "server:tool" pattern
// against its documented meaning: '*' matches any run of characters on
// either side, deny wins over allow, and a non-empty allow list admits only
// what it matches.
func FuzzFilter(f *testing.F) {
	f.Add("search:google_search", "search", "google_search")
	f.Add("*:delete_*", "fs", "delete_file")
	f.Add("*:*", "a", "b")
	f.Add("s*:*x*", "server", "tool")
	f.Fuzz(func(t *testing.T, pat, server, tool string) {
		if len(pat) > 64 || len(server) > 128 || len(tool) > 128 ||
			!utf8.ValidString(pat) || !utf8.ValidString(server) || !utf8.ValidString(tool) {
			return // the oracle works on runes; matching works on bytes
		}
		p, err := parsePattern(pat)
		if err != nil {
			if _, ferr := newFilter([]string{pat}, nil); ferr == nil {
				t.Fatalf("newFilter accepted %q, which parsePattern rejects: %v", pat, err)
			}
			return
		}
		sp, tp, _ := strings.Cut(pat, ":")
		want := oracle(sp, server) && oracle(tp, tool)
		if got := p.match(server, tool); got != want {
			t.Fatalf("pattern %q on %s:%s = %v, want %v", pat, server, tool, got, want)
		}
		deny, _ := newFilter([]string{pat}, nil)
		if why := deny.check(server, tool); (why != "") != want || want && !strings.Contains(why, pat) {
			t.Fatalf("deny %q on %s:%s: %q", pat, server, tool, why)
		}
		allow, _ := newFilter(nil, []string{pat})
		if why := allow.check(server, tool); (why == "") != want {
			t.Fatalf("allow %q on %s:%s: %q", pat, server, tool, why)
		}
		both, _ := newFilter([]string{pat}, []string{pat})
		if why := both.check(server, tool); why == "" {
			t.Fatalf("deny and allow %q on %s:%s admitted it", pat, server, tool)
		} else if want && !strings.Contains(why, "toolgate.deny") {
			t.Fatalf("deny and allow %q on %s:%s: %q, want deny to win", pat, server, tool, why)
		}
	})
}

// oracle matches s against pat by a regular expression in which '*' is
// ".*" and everything else is literal.
func oracle(pat, s string) bool {
	parts := strings.Split(pat, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^(?s:" + strings.Join(parts, ".*") + ")$").MatchString(s)
}
