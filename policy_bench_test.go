package toolgate

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/policy"
)

// hundredRules is a realistic policy: globs, URL rules, regexes and caller
// rules, none of which decides the benchmark's call, so all are evaluated.
func hundredRules() policy.Config {
	var rules []policy.Rule
	for i := range 40 {
		rules = append(rules, policy.Rule{Action: policy.Deny, Server: fmt.Sprintf("srv%d*", i), Tool: "delete_*"})
	}
	for i := range 25 {
		rules = append(rules, policy.Rule{Action: policy.Deny, Tool: "scrape*", URLHost: fmt.Sprintf("*.blocked%d.test", i), URLPath: "/private/*"})
	}
	for i := range 20 {
		rules = append(rules, policy.Rule{Action: policy.Log, Arg: "q", Regex: fmt.Sprintf(`(?i)secret%d\b`, i)})
	}
	for i := range 15 {
		rules = append(rules, policy.Rule{Action: policy.Deny, Tool: "run_*", Role: fmt.Sprintf("sub-agent-%d", i)})
	}
	return policy.Config{Presets: []string{"huggingface-datasets"}, Rules: rules}
}

// searchTool has the shape of the original's google_search.
var searchTool = &mcp.Tool{Name: "google_search", InputSchema: map[string]any{
	"type": "object",
	"properties": map[string]any{
		"q": map[string]any{"type": "string"}, "gl": map[string]any{"type": "string"},
		"hl": map[string]any{"type": "string"}, "num": map[string]any{"type": "integer", "minimum": 1},
		"url": map[string]any{"type": "string"},
	},
	"required":             []any{"q"},
	"additionalProperties": false,
}}

// BenchmarkPolicyOverhead measures what toolgate adds before a call reaches
// a server: the decision with no policy (A) and with 100 rules plus schema
// validation (B), run alternately in one loop so that drift hits both. It
// reports the median of each and the difference.
func BenchmarkPolicyOverhead(b *testing.B) {
	none, err := New(Config{Servers: []ServerConfig{{Name: "search", Command: "unused"}}})
	if err != nil {
		b.Fatal(err)
	}
	full, err := New(Config{Servers: []ServerConfig{{Name: "search", Command: "unused"}}, Policy: hundredRules()})
	if err != nil {
		b.Fatal(err)
	}
	defer none.Close()
	defer full.Close()
	args := map[string]any{"q": "golang mcp gateway", "num": 10, "gl": "us", "url": "https://example.org/page"}
	caller := WithCaller(context.Background(), Caller{Agent: "main", Role: "main"})
	run := func(m *Manager, validate bool) time.Duration {
		start := time.Now()
		d := m.decide("search", "google_search", args, CallerFrom(caller))
		if validate {
			if e := m.schemas.validate("search", searchTool, args); e != nil {
				b.Fatal(e)
			}
		}
		if d.Action != policy.Allow {
			b.Fatalf("decision %+v", d)
		}
		return time.Since(start)
	}
	var a, c []time.Duration
	for b.Loop() {
		a = append(a, run(none, false))
		c = append(c, run(full, true))
	}
	slices.Sort(a)
	slices.Sort(c)
	medA, medB := a[len(a)/2], c[len(c)/2]
	b.ReportMetric(float64(medA.Nanoseconds())/1000, "µs-p50-none")
	b.ReportMetric(float64(medB.Nanoseconds())/1000, "µs-p50-100rules+schema")
	b.ReportMetric(float64((medB-medA).Nanoseconds())/1000, "µs-p50-added")
}
