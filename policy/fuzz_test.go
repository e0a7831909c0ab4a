package policy

import (
	"encoding/json"
	"testing"
)

// FuzzExtractURLs checks that URL extraction never fails on any arguments
// and only ever yields absolute http(s) URLs with a host.
func FuzzExtractURLs(f *testing.F) {
	f.Add(`{"url": "https://huggingface.co/datasets/x"}`)
	f.Add(`{"a": ["http://x.test", {"b": "HTTPS://Y.test:8080/p?q#f"}]}`)
	f.Add(`{"u": "http://[::1]:80/", "v": "http://user:pw@h/"}`)
	f.Fuzz(func(t *testing.T, data string) {
		var args map[string]any
		if json.Unmarshal([]byte(data), &args) != nil {
			return
		}
		for _, u := range ExtractURLs(args) {
			if u.URL.Scheme != "http" && u.URL.Scheme != "https" || u.URL.Hostname() == "" {
				t.Fatalf("extracted %q from %s", u.URL, data)
			}
		}
		e, _ := Compile(Config{Presets: []string{"huggingface-datasets"}})
		e.Decide(Call{Tool: "scrape", Args: args})
	})
}
