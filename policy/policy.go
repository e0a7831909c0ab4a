// Package policy decides, before a tool call reaches any server, whether
// the call may go ahead. Rules match on the server and tool, on URLs found
// in the arguments, on an argument's value, and on the caller; they are
// evaluated in order and the first deny or allow rule that matches decides.
// Log rules record a match and let evaluation go on.
//
// User rules come first, then the rules of the presets, so that a user's
// allow rule can make an exception to a preset.
package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/glob"
)

// Action is what a rule does when it matches.
type Action string

// The actions.
const (
	Deny  Action = "deny"  // refuse the call: Result code blocked, with the rule's message
	Allow Action = "allow" // let the call through; later rules are not consulted
	Log   Action = "log"   // record the match and go on to the next rule
)

// Rule is one policy rule. Every condition that is set must hold for the
// rule to match; a rule with no conditions matches every call.
type Rule struct {
	Action Action `json:"action"`
	// Name identifies the rule in decisions and the audit log; by default
	// "rules[i]" or "preset NAME[i]".
	Name string `json:"name,omitempty"`

	Server string `json:"server,omitempty"` // glob on the server name
	Tool   string `json:"tool,omitempty"`   // glob on the tool name

	// URL conditions hold when some URL in the arguments matches all of
	// them. URLs are the string arguments that parse as http(s) URLs,
	// anywhere in the arguments, or only those of the top-level arguments
	// named in Args.
	URLHost   string   `json:"urlHost,omitempty"`   // "example.com" exactly, or "*.example.com" for its subdomains
	URLPath   string   `json:"urlPath,omitempty"`   // a prefix, or a glob when it contains '*'
	URLScheme string   `json:"urlScheme,omitempty"` // "http" or "https"
	Args      []string `json:"args,omitempty"`      // where to look for URLs; empty: everywhere

	// Arg and Regex: the named top-level argument (any string argument
	// when Arg is empty) matches the regular expression. A value that is
	// not a string is matched in its JSON form.
	Arg   string `json:"arg,omitempty"`
	Regex string `json:"regex,omitempty"`

	// Caller conditions: globs on the agent name and role carried in the
	// call's context.
	Agent string `json:"agent,omitempty"`
	Role  string `json:"role,omitempty"`

	// Message is told to the caller when a deny rule matches.
	Message string `json:"message,omitempty"`
}

// Config is the toolgate.policy config section.
type Config struct {
	Presets []string `json:"presets,omitempty"`
	Rules   []Rule   `json:"rules,omitempty"`
}

// Caller is who is making a call: an agent's name and its role (for
// example "main" or "sub-agent").
type Caller struct {
	Agent string `json:"agent,omitempty"`
	Role  string `json:"role,omitempty"`
}

// Call is what a decision is made about.
type Call struct {
	Server, Tool string
	Args         map[string]any
	Caller       Caller
}

// Decision is the outcome of evaluating the rules on a call.
type Decision struct {
	Action  Action   // Deny or Allow (Allow also when no rule matched)
	Rule    string   // the rule that decided; "" when none matched
	Message string   // for Deny: why
	Logged  []string // the log rules that matched on the way
}

// Engine holds compiled rules. It is safe for concurrent use.
type Engine struct {
	rules []compiled
	// groups join the regular expressions of the rules that look at the
	// same argument into one alternation: when it does not match, none of
	// them can, and one pass over the argument replaces many.
	groups []regexGroup
}

// regexGroup is the alternation of the regular expressions on one argument.
type regexGroup struct {
	arg string // "" for any string argument
	any *regexp.Regexp
}

type compiled struct {
	Rule
	regex      *regexp.Regexp
	group      int  // index of the rule's regexGroup in Engine.groups, or -1
	argConds   bool // conditions on the arguments: URL or regex
	pathPrefix bool // URLPath has no '*': match as a prefix
}

// Compile checks and compiles the rules of cfg and its presets. An error
// names the rule's index and field, as "rules[2].regex: ...".
func Compile(cfg Config) (*Engine, error) {
	e := &Engine{}
	for i, r := range cfg.Rules {
		c, err := compile(r, fmt.Sprintf("rules[%d]", i))
		if err != nil {
			return nil, err
		}
		e.rules = append(e.rules, c)
	}
	for i, name := range cfg.Presets {
		rules, ok := preset(name)
		if !ok {
			return nil, fmt.Errorf("presets[%d]: unknown preset %q (known: %s)", i, name, strings.Join(PresetNames(), ", "))
		}
		for j, r := range rules {
			c, err := compile(r, fmt.Sprintf("preset %s[%d]", name, j))
			if err != nil {
				return nil, err // a preset is ours: this is a bug
			}
			e.rules = append(e.rules, c)
		}
	}
	e.groupRegexes()
	return e, nil
}

// groupRegexes builds the alternation of each argument's regexes.
func (e *Engine) groupRegexes() {
	byArg := make(map[string][]string)
	var order []string
	for _, r := range e.rules {
		if r.regex == nil {
			continue
		}
		if _, seen := byArg[r.Arg]; !seen {
			order = append(order, r.Arg)
		}
		byArg[r.Arg] = append(byArg[r.Arg], "(?:"+r.Regex+")")
	}
	for _, arg := range order {
		// Each part compiled alone; the whole may still be too big.
		if alt, err := regexp.Compile(strings.Join(byArg[arg], "|")); err == nil {
			e.groups = append(e.groups, regexGroup{arg: arg, any: alt})
		}
	}
	for i := range e.rules {
		r := &e.rules[i]
		r.group = slices.IndexFunc(e.groups, func(g regexGroup) bool { return r.regex != nil && g.arg == r.Arg })
	}
}

func compile(r Rule, where string) (compiled, error) {
	c := compiled{Rule: r}
	bad := func(field, format string, args ...any) (compiled, error) {
		return c, fmt.Errorf("%s.%s: %s", where, field, fmt.Sprintf(format, args...))
	}
	switch r.Action {
	case Deny, Allow, Log:
	case "":
		return bad("action", "required (deny, allow or log)")
	default:
		return bad("action", "unknown action %q (want deny, allow or log)", r.Action)
	}
	for _, g := range []struct{ field, value string }{
		{"server", r.Server}, {"tool", r.Tool}, {"urlPath", r.URLPath}, {"agent", r.Agent}, {"role", r.Role},
	} {
		if err := glob.Check(g.value); err != nil {
			return bad(g.field, "%v", err)
		}
	}
	if h := r.URLHost; h != "" {
		rest, _ := strings.CutPrefix(h, "*.")
		if rest == "" || strings.ContainsAny(rest, "*/:?#[]@ ") {
			return bad("urlHost", "bad host %q: want a host name such as \"example.com\" or \"*.example.com\"", h)
		}
	}
	switch r.URLScheme {
	case "", "http", "https":
	default:
		return bad("urlScheme", "unknown scheme %q (want http or https)", r.URLScheme)
	}
	if r.URLPath != "" && !strings.HasPrefix(r.URLPath, "/") && !strings.HasPrefix(r.URLPath, "*") {
		return bad("urlPath", "%q must start with / (or *)", r.URLPath)
	}
	if len(r.Args) > 0 && r.URLHost == "" && r.URLPath == "" && r.URLScheme == "" {
		return bad("args", "names where to look for URLs, but the rule has no urlHost, urlPath or urlScheme")
	}
	if r.Arg != "" && r.Regex == "" {
		return bad("regex", "required with arg")
	}
	if r.Regex != "" {
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return bad("regex", "%v", err)
		}
		c.regex = re
	}
	c.Name = r.Name
	if c.Name == "" {
		c.Name = where
	}
	c.URLHost = strings.ToLower(r.URLHost)
	c.argConds = r.URLHost != "" || r.URLPath != "" || r.URLScheme != "" || r.Regex != ""
	c.pathPrefix = !strings.Contains(r.URLPath, "*")
	return c, nil
}

// Decide evaluates the rules on call, in order.
func (e *Engine) Decide(call Call) Decision {
	var d Decision
	var urls []parsedURL // extracted once, on first need
	extracted := false
	var groupHit [8]int8 // per regex group: 0 unknown, 1 some rule may match, -1 none can
	for i := range e.rules {
		r := &e.rules[i]
		if !r.matchNames(call.Server, call.Tool, call.Caller) {
			continue
		}
		if r.argConds {
			if r.group >= 0 && r.group < len(groupHit) {
				hit := &groupHit[r.group]
				if *hit == 0 {
					*hit = -1
					if e.groups[r.group].matches(call.Args) {
						*hit = 1
					}
				}
				if *hit < 0 {
					continue
				}
			}
			if r.hasURLConds() && !extracted {
				urls, extracted = ExtractURLs(call.Args), true
			}
			if !r.matchArgs(call.Args, urls) {
				continue
			}
		}
		switch r.Action {
		case Log:
			d.Logged = append(d.Logged, r.Name)
			continue
		case Deny:
			d.Action, d.Rule, d.Message = Deny, r.Name, r.message()
		default:
			d.Action, d.Rule = Allow, r.Name
		}
		return d
	}
	d.Action = Allow
	return d
}

// Listed reports whether server:tool should be shown to caller: false only
// when a deny rule without argument conditions decides for every call.
func (e *Engine) Listed(server, tool string, caller Caller) bool {
	for i := range e.rules {
		r := &e.rules[i]
		if r.Action == Log || !r.matchNames(server, tool, caller) {
			continue
		}
		if r.argConds {
			if r.Action == Allow {
				return true // some calls are allowed
			}
			continue // some calls are denied; others go on to later rules
		}
		return r.Action == Allow
	}
	return true
}

// Empty reports whether there are no rules at all.
func (e *Engine) Empty() bool { return e == nil || len(e.rules) == 0 }

func (r *compiled) message() string {
	if r.Message != "" {
		return r.Message
	}
	return "denied by policy rule " + r.Name
}

func (r *compiled) matchNames(server, tool string, caller Caller) bool {
	return matchOpt(r.Server, server) && matchOpt(r.Tool, tool) &&
		matchOpt(r.Agent, caller.Agent) && matchOpt(r.Role, caller.Role)
}

// matchOpt matches an optional glob: an empty pattern matches anything.
func matchOpt(pattern, s string) bool {
	return pattern == "" || glob.Match(pattern, s)
}

func (r *compiled) hasURLConds() bool {
	return r.URLHost != "" || r.URLPath != "" || r.URLScheme != ""
}

func (r *compiled) matchArgs(args map[string]any, urls []parsedURL) bool {
	if r.hasURLConds() && !r.matchSomeURL(urls) {
		return false
	}
	if r.regex != nil && !r.matchRegex(args) {
		return false
	}
	return true
}
