package toolgate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"SERPER_API_KEY": "k-123", "TOKEN": "t-456", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := toolgate.ParseConfigEnv([]byte(`{
	  "mcpServers": {
	    "search":  {"command": "python3", "args": ["-m", "search_server", "${MODE:-fast}"], "env": {"API_KEY": "${SERPER_API_KEY}"}},
	    "docs":    {"url": "http://127.0.0.1:8080/mcp", "timeout": 5},
	    "legacy":  {"url": "http://127.0.0.1:9000/sse", "transport": "sse", "headers": {"Authorization": "Bearer ${TOKEN}"}},
	    "alias":   {"type": "http", "url": "http://127.0.0.1:8081/mcp", "session": "per-call"},
	    "playwright": {"command": "npx", "args": ["@playwright/mcp", "--headless", "$$HOME", "${EMPTY:-dflt}"], "stateful": true, "timeout": "120s"}
	  },
	  "toolgate": {"deny": ["search:dangerous_tool", "*:delete_*"], "allow": [], "callTimeout": "1200s", "connectTimeout": "10s"}
	}`), lookup)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "search,docs,legacy,alias,playwright" {
		t.Errorf("server order = %s, want config order", got)
	}
	s := cfg.Servers
	checks := []struct {
		name      string
		got, want any
	}{
		{"args expansion with default", s[0].Args[2], "fast"},
		{"env expansion", s[0].Env["API_KEY"], "k-123"},
		{"numeric timeout", s[1].Timeout, 5 * time.Second},
		{"sse transport", s[2].Transport, toolgate.TransportSSE},
		{"header expansion", s[2].Headers["Authorization"], "Bearer t-456"},
		{"type alias", s[3].Transport, toolgate.TransportStreamable},
		{"session mode", s[3].Session, toolgate.SessionPerCall},
		{"$$ escape", s[4].Args[2], "$HOME"},
		{"empty uses default", s[4].Args[3], "dflt"},
		{"stateful", s[4].Stateful, true},
		{"string timeout", s[4].Timeout, 120 * time.Second},
		{"deny", len(cfg.Deny), 2},
		{"callTimeout", cfg.CallTimeout, 1200 * time.Second},
		{"connectTimeout", cfg.ConnectTimeout, 10 * time.Second},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestConfigErrorsNameServerAndField(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"missing command and url", `{"mcpServers": {"a": {}}}`, "mcpServers.a.command: required"},
		{"both command and url", `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, "mcpServers.a.url: set both command and url"},
		{"unknown transport", `{"mcpServers": {"a": {"url": "http://h/mcp", "transport": "websocket"}}}`, `mcpServers.a.transport: unknown transport "websocket"`},
		{"stdio transport with url", `{"mcpServers": {"a": {"url": "http://h/mcp", "transport": "stdio"}}}`, `mcpServers.a.transport: "stdio" needs command`},
		{"bad duration", `{"mcpServers": {"a": {"command": "x", "timeout": "soon"}}}`, `mcpServers.a.timeout: bad duration "soon"`},
		{"bad global duration", `{"mcpServers": {}, "toolgate": {"callTimeout": "5 minutes"}}`, `toolgate.callTimeout: bad duration`},
		{"negative duration", `{"mcpServers": {"a": {"command": "x", "timeout": "-1s"}}}`, `mcpServers.a.timeout: must not be negative`},
		{"unknown key with hint", `{"mcpServers": {"a": {"comand": "x"}}}`, `mcpServers.a.comand: unknown key (did you mean "command"?)`},
		{"unknown key", `{"mcpServers": {"a": {"command": "x", "zzz": 1}}}`, `mcpServers.a.zzz: unknown key (known keys: args,`},
		{"unknown top-level key", `{"servers": {}}`, `servers: unknown key`},
		{"unknown toolgate key", `{"toolgate": {"dney": []}}`, `toolgate.dney: unknown key (did you mean "deny"?)`},
		{"invalid JSON", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", "invalid JSON at line 3, column 27"},
		{"truncated JSON", "{\n  \"mcpServers\": {", "invalid JSON at line 2"},
		{"trailing garbage", `{} {}`, "invalid JSON"},
		{"not an object", `[]`, "found an array"},
		{"args not strings", `{"mcpServers": {"a": {"command": "x", "args": [1]}}}`, "mcpServers.a.args: want an array of strings, got an array"},
		{"command not string", `{"mcpServers": {"a": {"command": 7}}}`, "mcpServers.a.command: want a string, got a number"},
		{"server not object", `{"mcpServers": {"a": "x"}}`, "mcpServers.a: want an object"},
		{"bad url scheme", `{"mcpServers": {"a": {"url": "ftp://h/x"}}}`, `mcpServers.a.url: scheme must be http or https`},
		{"bad session", `{"mcpServers": {"a": {"command": "x", "session": "sometimes"}}}`, `mcpServers.a.session: unknown mode "sometimes"`},
		{"headers on stdio", `{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`, `mcpServers.a.headers: only valid with url`},
		{"unset variable", `{"mcpServers": {"a": {"command": "x", "env": {"K": "${TOOLGATE_TEST_UNSET}"}}}}`, `mcpServers.a.env.K: environment variable TOOLGATE_TEST_UNSET is not set`},
		{"bad deny pattern", `{"toolgate": {"deny": ["nocolon"]}}`, `toolgate.deny[0]: bad pattern "nocolon"`},
		{"duplicate key", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, `duplicate key "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := toolgate.ParseConfigEnv([]byte(tc.json), func(string) (string, bool) { return "", false })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestConfigInGoAndFromFile(t *testing.T) {
	if _, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "a"}}}); err == nil ||
		!strings.Contains(err.Error(), "mcpServers.a.command: required") {
		t.Errorf("New with bad config: %v", err)
	}
	if _, err := toolgate.New(toolgate.Config{Servers: []toolgate.ServerConfig{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}}); err == nil ||
		!strings.Contains(err.Error(), "duplicate server name") {
		t.Errorf("New with duplicate names: %v", err)
	}
	path := filepath.Join(t.TempDir(), "toolgate.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": 1}}}`), 0o600)
	if _, err := toolgate.LoadConfig(path); err == nil || !strings.Contains(err.Error(), path+": mcpServers.a.command") {
		t.Errorf("LoadConfig error = %v, want the path and field", err)
	}
	if _, err := toolgate.LoadConfig(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("LoadConfig of a missing file succeeded")
	}
}
