package policy

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/glob"
)

// maxURLDepth bounds how deep ExtractURLs looks into nested arguments.
const maxURLDepth = 32

// A URL found in a call's arguments.
type parsedURL struct {
	Arg string // the top-level argument it was found under
	URL *url.URL
}

// ExtractURLs returns every string in args, at any depth, that parses as an
// absolute http or https URL with a host, with the top-level argument it was
// found under, in a stable order (arguments sorted by name).
func ExtractURLs(args map[string]any) []parsedURL {
	var out []parsedURL
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		walkStrings(args[k], 0, func(s string) {
			if u := parseHTTPURL(s); u != nil {
				out = append(out, parsedURL{Arg: k, URL: u})
			}
		})
	}
	return out
}

func walkStrings(v any, depth int, f func(string)) {
	if depth > maxURLDepth {
		return
	}
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, depth+1, f)
		}
	case []string:
		for _, e := range v {
			f(e)
		}
	case map[string]any:
		for _, e := range v {
			walkStrings(e, depth+1, f)
		}
	}
}

// parseHTTPURL parses s as an absolute http(s) URL with a host, or returns nil.
func parseHTTPURL(s string) *url.URL {
	s = strings.TrimSpace(s)
	if len(s) < len("http://x") || !strings.EqualFold(s[:4], "http") {
		return nil // cheap rejection of the common case
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" {
		return nil
	}
	return u
}

// matchSomeURL reports whether one of urls (restricted to r.Args, if set)
// meets all of the rule's URL conditions.
func (r *compiled) matchSomeURL(urls []parsedURL) bool {
	for _, pu := range urls {
		if len(r.Args) > 0 && !slices.Contains(r.Args, pu.Arg) {
			continue
		}
		if r.matchURL(pu.URL) {
			return true
		}
	}
	return false
}

func (r *compiled) matchURL(u *url.URL) bool {
	if r.URLScheme != "" && u.Scheme != r.URLScheme {
		return false
	}
	if r.URLHost != "" && !MatchHost(r.URLHost, u.Hostname()) {
		return false
	}
	if r.URLPath != "" {
		path := u.EscapedPath()
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
		if path == "" {
			path = "/"
		}
		if r.pathPrefix {
			return strings.HasPrefix(path, r.URLPath)
		}
		return glob.Match(r.URLPath, path)
	}
	return true
}

// MatchHost reports whether host matches pattern: "example.com" matches
// only itself, "*.example.com" only its subdomains. Case and a trailing dot
// are ignored.
func MatchHost(pattern, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if suffix, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return host == pattern
}

// matchRegex reports whether the rule's argument (any string argument when
// Arg is empty) matches its regular expression.
func (r *compiled) matchRegex(args map[string]any) bool {
	return matchArg(r.regex, r.Arg, args)
}

// matches reports whether some regex of the group matches.
func (g *regexGroup) matches(args map[string]any) bool {
	return matchArg(g.any, g.arg, args)
}

// matchArg reports whether the named argument (any string argument when
// arg is empty) matches re. A value that is not a string is matched in its
// JSON form.
func matchArg(re *regexp.Regexp, arg string, args map[string]any) bool {
	if arg != "" {
		v, ok := args[arg]
		if !ok {
			return false
		}
		if s, ok := v.(string); ok {
			return re.MatchString(s)
		}
		b, err := json.Marshal(v)
		return err == nil && re.Match(b)
	}
	found := false
	for _, v := range args {
		walkStrings(v, 0, func(s string) {
			found = found || re.MatchString(s)
		})
		if found {
			return true
		}
	}
	return false
}
