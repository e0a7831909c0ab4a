package toolgate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

// FuzzParseConfigEnv feeds arbitrary bytes to the config loader: it must
// never panic, and a config it accepts must be valid and make a Manager.
func FuzzParseConfigEnv(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${HOME}"]}}}`))
	f.Add([]byte(`{"mcpServers": {"r": {"url": "http://127.0.0.1:1/mcp", "timeout": 30}}, "toolgate": {"deny": ["*:x"]}}`))
	env := map[string]string{"HOME": "/home/agent", "EMPTY": "", "TOKEN": "secret"}
	lookup := func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := toolgate.ParseConfigEnv(data, lookup)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("config error with an empty message")
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("ParseConfigEnv accepted a config that Validate rejects: %v", err)
		}
		m, err := toolgate.New(cfg)
		if err != nil {
			t.Fatalf("New rejected a parsed config: %v", err)
		}
		m.Close()
	})
}

// FuzzNormalize feeds arbitrary tool results (as JSON) to Normalize: it
// must never panic, must keep every text block, in order, and must summarize every
// image.
func FuzzNormalize(f *testing.F) {
	f.Add([]byte(`{"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]}`))
	f.Add([]byte(`{"content": [], "structuredContent": {"sum": 42}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var res mcp.CallToolResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		text := toolgate.Normalize(&res)
		rest := text
		for _, c := range res.Content {
			tc, ok := c.(*mcp.TextContent)
			if !ok {
				continue
			}
			i := strings.Index(rest, tc.Text)
			if i < 0 {
				t.Fatalf("Normalize lost text block %q (in order) from %q", tc.Text, text)
			}
			rest = rest[i+len(tc.Text):]
		}
		images := 0
		for _, c := range res.Content {
			if _, ok := c.(*mcp.ImageContent); ok {
				images++
			}
		}
		if strings.Count(text, "[image ") < images {
			t.Fatalf("%d image blocks, not all summarized: %q", images, text)
		}
		if res.IsError {
			return
		}
		if _, err := json.Marshal(toolgate.Result{Server: "s", Tool: "t", Text: text}); err != nil {
			t.Fatalf("the normalized Result does not encode: %v", err)
		}
	})
}
