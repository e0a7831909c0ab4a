package policy

import (
	"fmt"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestDecide(t *testing.T) {
	e := mustCompile(t, Config{
		Presets: []string{"huggingface-datasets"},
		Rules: []Rule{
			{Action: Allow, Tool: "scrape", URLHost: "huggingface.co", URLPath: "/datasets/public-ok"},
			{Action: Deny, Server: "web", Tool: "scrape*", URLHost: "*.example.com", URLPath: "/private/*", Message: "private pages are off limits"},
			{Action: Deny, Tool: "run_python_code", Role: "sub-agent"},
			{Action: Log, Arg: "q", Regex: "(?i)password"},
			{Action: Deny, URLScheme: "http", Args: []string{"url"}, Message: "https only"},
			{Action: Deny, Agent: "intern-*", Tool: "delete_*"},
		},
	})
	for _, tc := range []struct {
		name   string
		call   Call
		action Action
		rule   string
		logged string
	}{
		{"no rule matches", Call{Server: "web", Tool: "search", Args: map[string]any{"q": "go"}}, Allow, "", ""},
		{"url host and path glob", Call{Server: "web", Tool: "scrape_website", Args: map[string]any{"url": "https://docs.example.com/private/x"}}, Deny, "rules[1]", ""},
		{"host is not a subdomain", Call{Server: "web", Tool: "scrape", Args: map[string]any{"url": "https://example.com/private/x"}}, Allow, "", ""},
		{"path outside", Call{Server: "web", Tool: "scrape", Args: map[string]any{"url": "https://a.example.com/public"}}, Allow, "", ""},
		{"other server", Call{Server: "other", Tool: "scrape", Args: map[string]any{"url": "https://a.example.com/private/x"}}, Allow, "", ""},
		{"nested url", Call{Server: "web", Tool: "scrape_many", Args: map[string]any{"pages": []any{map[string]any{"u": "https://A.Example.com/private/y"}}}}, Deny, "rules[1]", ""},
		{"role", Call{Tool: "run_python_code", Caller: Caller{Agent: "helper", Role: "sub-agent"}}, Deny, "rules[2]", ""},
		{"main agent may", Call{Tool: "run_python_code", Caller: Caller{Agent: "main", Role: "main"}}, Allow, "", ""},
		{"log goes on", Call{Tool: "search", Args: map[string]any{"q": "my PASSWORD is"}}, Allow, "", "rules[3]"},
		{"scheme in named arg", Call{Tool: "fetch", Args: map[string]any{"url": "http://plain.test/"}}, Deny, "rules[4]", ""},
		{"scheme elsewhere ignored", Call{Tool: "fetch", Args: map[string]any{"ref": "http://plain.test/"}}, Allow, "", ""},
		{"agent glob", Call{Tool: "delete_file", Caller: Caller{Agent: "intern-7"}}, Deny, "rules[5]", ""},
		{"preset", Call{Tool: "scrape", Args: map[string]any{"url": "https://huggingface.co/datasets/gaia-benchmark/GAIA"}}, Deny, "preset huggingface-datasets[0]", ""},
		{"preset spaces, any tool", Call{Tool: "browse", Args: map[string]any{"target": " https://www.huggingface.co/spaces/x "}}, Deny, "preset huggingface-datasets[3]", ""},
		{"preset leaves models alone", Call{Tool: "scrape", Args: map[string]any{"url": "https://huggingface.co/models"}}, Allow, "", ""},
		{"user allow beats preset", Call{Tool: "scrape", Args: map[string]any{"url": "https://huggingface.co/datasets/public-ok"}}, Allow, "rules[0]", ""},
	} {
		d := e.Decide(tc.call)
		if d.Action != tc.action || d.Rule != tc.rule || strings.Join(d.Logged, ",") != tc.logged {
			t.Errorf("%s: Decide = %+v, want %s by %q, logged %q", tc.name, d, tc.action, tc.rule, tc.logged)
		}
	}
	d := e.Decide(Call{Tool: "scrape", Args: map[string]any{"url": "https://huggingface.co/spaces/x"}})
	if d.Message != HuggingFaceMessage {
		t.Errorf("preset message = %q", d.Message)
	}
}

func TestListed(t *testing.T) {
	e := mustCompile(t, Config{Rules: []Rule{
		{Action: Deny, Tool: "run_python_code", Role: "sub-agent"},
		{Action: Deny, Tool: "scrape", URLHost: "example.com"},
		{Action: Allow, Tool: "shell", URLHost: "ok.test"},
		{Action: Deny, Tool: "shell"},
	}})
	for _, tc := range []struct {
		tool   string
		caller Caller
		want   bool
	}{
		{"run_python_code", Caller{Role: "sub-agent"}, false},
		{"run_python_code", Caller{Role: "main"}, true},
		{"scrape", Caller{}, true}, // only some calls are denied
		{"shell", Caller{}, true},  // some calls are allowed
		{"other", Caller{}, true},
	} {
		if got := e.Listed("s", tc.tool, tc.caller); got != tc.want {
			t.Errorf("Listed(%s, %+v) = %v, want %v", tc.tool, tc.caller, got, tc.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Rules: []Rule{{}}}, "rules[0].action: required"},
		{Config{Rules: []Rule{{Action: "block"}}}, `rules[0].action: unknown action "block"`},
		{Config{Rules: []Rule{{Action: Deny}, {Action: Deny, Regex: "("}}}, "rules[1].regex: error parsing regexp"},
		{Config{Rules: []Rule{{Action: Deny, Tool: "scrape[0-9]"}}}, `rules[0].tool: bad glob "scrape[0-9]"`},
		{Config{Rules: []Rule{{Action: Deny, URLHost: "https://x.com"}}}, "rules[0].urlHost: bad host"},
		{Config{Rules: []Rule{{Action: Deny, URLScheme: "ftp"}}}, `rules[0].urlScheme: unknown scheme "ftp"`},
		{Config{Rules: []Rule{{Action: Deny, URLPath: "private"}}}, "rules[0].urlPath"},
		{Config{Rules: []Rule{{Action: Deny, Arg: "q"}}}, "rules[0].regex: required with arg"},
		{Config{Rules: []Rule{{Action: Deny, Args: []string{"url"}}}}, "rules[0].args"},
		{Config{Presets: []string{"nope"}}, `presets[0]: unknown preset "nope"`},
	} {
		if _, err := Compile(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestExtractURLs(t *testing.T) {
	urls := ExtractURLs(map[string]any{
		"b":   []any{"https://b.test/x", 3, map[string]any{"deep": "http://deep.test"}},
		"a":   "https://a.test",
		"txt": "see https://not-a-whole-url.test",
		"ftp": "ftp://files.test/x",
		"rel": "/just/a/path",
		"odd": "http://",
	})
	var got []string
	for _, u := range urls {
		got = append(got, u.Arg+"="+u.URL.Host)
	}
	if strings.Join(got, " ") != "a=a.test b=b.test b=deep.test" {
		t.Errorf("ExtractURLs = %v", got)
	}
}

func TestMatchHost(t *testing.T) {
	for _, tc := range []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "EXAMPLE.com.", true},
		{"example.com", "a.example.com", false},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
	} {
		if got := MatchHost(tc.pattern, tc.host); got != tc.want {
			t.Errorf("MatchHost(%q, %q) = %v", tc.pattern, tc.host, got)
		}
	}
}

func TestManyRegexRulesKeepTheirOrder(t *testing.T) {
	var rules []Rule
	for i := range 30 {
		rules = append(rules, Rule{Action: Log, Arg: "q", Regex: fmt.Sprintf(`(?i)^word%d$`, i)})
	}
	rules = append(rules,
		Rule{Action: Allow, Arg: "q", Regex: `^WORD7$`, Name: "allow7"},
		Rule{Action: Deny, Regex: `(?i)word`, Name: "deny-words"},
	)
	e := mustCompile(t, Config{Rules: rules})
	for _, tc := range []struct {
		q, rule, logged string
	}{
		{"WORD7", "allow7", "rules[7]"},
		{"word12", "deny-words", "rules[12]"},
		{"nothing", "", ""},
	} {
		d := e.Decide(Call{Tool: "t", Args: map[string]any{"q": tc.q}})
		if d.Rule != tc.rule || strings.Join(d.Logged, ",") != tc.logged {
			t.Errorf("q=%s: %+v, want rule %q logged %q", tc.q, d, tc.rule, tc.logged)
		}
	}
}
