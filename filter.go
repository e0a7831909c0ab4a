package toolgate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/glob"
)

// pattern is a parsed "server:tool" pattern; either side may contain '*'.
type pattern struct {
	text         string
	server, tool string
}

func parsePattern(s string) (pattern, error) {
	server, tool, ok := strings.Cut(s, ":")
	if !ok || server == "" || tool == "" {
		return pattern{}, fmt.Errorf("bad pattern %q: want SERVER:TOOL, e.g. \"search:google_search\" or \"*:delete_*\"", s)
	}
	if err := glob.Check(s); err != nil {
		return pattern{}, err
	}
	return pattern{text: s, server: server, tool: tool}, nil
}

func (p pattern) match(server, tool string) bool {
	return glob.Match(p.server, server) && glob.Match(p.tool, tool)
}

// filter is the allow/deny decision shared by discovery and calls.
type filter struct {
	deny, allow []pattern
}

func newFilter(deny, allow []string) (filter, error) {
	var f filter
	var errs []error
	parse := func(field string, patterns []string) []pattern {
		var out []pattern
		for i, s := range patterns {
			p, err := parsePattern(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("toolgate.%s[%d]: %w", field, i, err))
			}
			out = append(out, p)
		}
		return out
	}
	f.deny, f.allow = parse("deny", deny), parse("allow", allow)
	return f, errors.Join(errs...)
}

// check returns "" when server:tool may be listed and called, or else the
// reason it may not.
func (f *filter) check(server, tool string) string {
	for _, p := range f.deny {
		if p.match(server, tool) {
			return fmt.Sprintf("%s:%s is denied by toolgate.deny pattern %q", server, tool, p.text)
		}
	}
	if len(f.allow) == 0 {
		return ""
	}
	for _, p := range f.allow {
		if p.match(server, tool) {
			return ""
		}
	}
	return fmt.Sprintf("%s:%s is not admitted by toolgate.allow", server, tool)
}
