// Package glob matches the one wildcard toolgate's patterns use: '*', any
// run of characters (including none). Every other character stands for
// itself, so a pattern can never be malformed by accident; Check rejects
// the wildcards of other glob dialects so that they do not silently match
// only themselves.
package glob

import (
	"fmt"
	"strings"
)

// Match reports whether s matches pattern.
func Match(pattern, s string) bool {
	// Greedy matching with backtracking to the last star: linear for the
	// patterns people write, never exponential.
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// Check reports a pattern that uses '?', '[', ']', '{' or '}', which other
// glob dialects treat as wildcards but toolgate does not.
func Check(pattern string) error {
	if i := strings.IndexAny(pattern, "?[]{}"); i >= 0 {
		return fmt.Errorf("bad glob %q: %q is not a wildcard here (only '*' is)", pattern, pattern[i])
	}
	return nil
}
