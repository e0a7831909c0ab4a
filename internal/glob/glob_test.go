package glob

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"delete_*", "delete_file", true},
		{"delete_*", "undelete", false},
		{"delete_*", "undelete_file", false},
		{"*_search", "google_search", true},
		{"*_search", "google_search_x", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXcYb", false},
		{"a**c", "abc", true},
		{"exact", "exact", true},
		{"exact", "exactly", false},
		{"", "", true},
		{"", "x", false},
		{"*a*a*a*a*a*b", strings.Repeat("a", 40), false},
		{"*a*a*a*a*a*a*b", strings.Repeat("a", 43), false},
	} {
		if got := Match(tc.pat, tc.s); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.pat, tc.s, got)
		}
	}
	if Check("a?b") == nil || Check("[ab]") == nil || Check("a*b") != nil {
		t.Error("Check accepts another dialect's wildcard or rejects '*'")
	}
}

// FuzzMatch checks Match against a regular expression built from the
// pattern, which is the meaning the package documents.
func FuzzMatch(f *testing.F) {
	f.Add("delete_*", "delete_all")
	f.Add("*a*", "banana")
	f.Add("a**b", "ab")
	f.Fuzz(func(t *testing.T, pat, s string) {
		if len(pat) > 64 || len(s) > 256 || !utf8.ValidString(pat) || !utf8.ValidString(s) {
			return // the oracle works on runes; Match on bytes
		}
		parts := strings.Split(pat, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile("^(?s:" + strings.Join(parts, ".*") + ")$")
		if got, want := Match(pat, s), re.MatchString(s); got != want {
			t.Fatalf("Match(%q, %q) = %v, want %v", pat, s, got, want)
		}
	})
}
