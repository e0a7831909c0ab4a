package toolgate

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/policy"
)

// Transport names how toolgate talks to a server.
type Transport string

// The transports toolgate speaks.
const (
	TransportStdio      Transport = "stdio"           // a child process over stdin/stdout
	TransportSSE        Transport = "sse"             // the legacy HTTP+SSE transport
	TransportStreamable Transport = "streamable-http" // the current streamable HTTP transport
)

// SessionMode says how long a server's MCP session lives.
type SessionMode string

// The session modes.
const (
	// SessionPersistent keeps one session per server for every call (the default).
	SessionPersistent SessionMode = "persistent"
	// SessionPerCall connects, calls and disconnects for every call and every
	// listing, as the original ToolManager did. It exists to measure against.
	SessionPerCall SessionMode = "per-call"
)

// Defaults used when a [Config] leaves a field zero.
const (
	DefaultCallTimeout    = 1200 * time.Second // the original's per-call timeout
	DefaultConnectTimeout = 30 * time.Second
	DefaultMaxResultChars = 100_000 // the original's limit on what the model is shown
	// DefaultScopeIdleTimeout is how long a scope's stateful sessions
	// (browsers) are kept without a call.
	DefaultScopeIdleTimeout = 10 * time.Minute
)

// Config is everything a [Manager] needs: the servers, in order, and the
// gateway-wide settings. It can be loaded from JSON with [LoadConfig] or
// [ParseConfig], or built in Go.
type Config struct {
	// Servers in the order they are listed; names must be unique.
	Servers []ServerConfig
	// Deny lists "server:tool" patterns ('*' matches any run of characters)
	// that may be neither listed nor called.
	Deny []string
	// Allow, when not empty, admits only the "server:tool" patterns it names.
	Allow []string
	// CallTimeout bounds each tool call; zero means [DefaultCallTimeout].
	CallTimeout time.Duration
	// ConnectTimeout bounds connecting to a server and listing its tools;
	// zero means [DefaultConnectTimeout].
	ConnectTimeout time.Duration
	// Policy holds the rules every call is checked against before it
	// reaches a server; see package policy.
	Policy policy.Config
	// MaxResultChars caps the text of a result, in characters; zero means
	// [DefaultMaxResultChars]. Binary blocks are capped at ten times as many bytes.
	MaxResultChars int
	// AuditLog, if set, is the path of a JSON Lines file with one record per call.
	AuditLog string
	// AuditSync makes the audit log fsync every record (see package audit).
	AuditSync bool
	// Fallback fetches the page itself when a scrape tool fails; on unless
	// Fallback.Disabled.
	Fallback FallbackConfig
	// ScopeIdleTimeout is how long a [Scope] may go unused before its
	// stateful sessions are released; zero means [DefaultScopeIdleTimeout].
	ScopeIdleTimeout time.Duration
}

// ServerConfig describes one MCP server. Set Command for a stdio server or
// URL for a remote one, never both.
type ServerConfig struct {
	Name string

	Command string            // executable to run (stdio)
	Args    []string          // its arguments
	Env     map[string]string // added to the inherited environment
	Cwd     string            // working directory; empty means toolgate's own

	URL       string            // endpoint of a remote server
	Transport Transport         // empty: stdio with Command, streamable HTTP with URL
	Headers   map[string]string // sent with every HTTP request

	// Timeout bounds each call to this server, overriding Config.CallTimeout.
	Timeout time.Duration
	// ConnectTimeout overrides Config.ConnectTimeout for this server.
	ConnectTimeout time.Duration
	// Session is SessionPersistent (the default when empty) or SessionPerCall.
	Session SessionMode
	// Stateful marks a server whose session holds state between calls, such
	// as a browser: its calls run one at a time, in arrival order, and each
	// [Scope] gets a session of its own. In JSON, a server named
	// "playwright" is stateful unless it says "stateful": false; in Go the
	// field is always explicit.
	Stateful bool
	// MaxResultChars overrides Config.MaxResultChars for this server.
	MaxResultChars int
	// NoFallback turns the fetch fallback off for this server ("fallback": false).
	NoFallback bool

	// NewTransport, if set, connects to an in-process server instead of
	// Command or URL: it is called for every new session. It exists for
	// embedding servers (e.g. with mcp.NewInMemoryTransports) and for
	// benchmarks; it has no JSON form.
	NewTransport func() mcp.Transport
}

// TransportInProcess is the transport of a server reached through
// ServerConfig.NewTransport.
const TransportInProcess Transport = "in-process"

// transport returns the effective transport.
func (s *ServerConfig) transport() Transport {
	switch {
	case s.NewTransport != nil:
		return TransportInProcess
	case s.Transport != "":
		return s.Transport
	case s.URL != "":
		return TransportStreamable
	default:
		return TransportStdio
	}
}

// Validate reports every problem in the config, each naming the server and
// field it concerns, joined into one error.
func (c *Config) Validate() error {
	var errs []error
	seen := make(map[string]bool)
	for i := range c.Servers {
		s := &c.Servers[i]
		if s.Name == "" {
			errs = append(errs, fmt.Errorf("mcpServers[%d]: name: required", i))
			continue
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("mcpServers.%s: name: duplicate server name", s.Name))
		}
		seen[s.Name] = true
		errs = append(errs, s.validate()...)
	}
	if _, err := newFilter(c.Deny, c.Allow); err != nil {
		errs = append(errs, err)
	}
	if c.CallTimeout < 0 {
		errs = append(errs, errors.New("toolgate.callTimeout: must not be negative"))
	}
	if c.ConnectTimeout < 0 {
		errs = append(errs, errors.New("toolgate.connectTimeout: must not be negative"))
	}
	if c.ScopeIdleTimeout < 0 {
		errs = append(errs, errors.New("toolgate.scopeIdleTimeout: must not be negative"))
	}
	if c.MaxResultChars < 0 {
		errs = append(errs, errors.New("toolgate.maxResultChars: must not be negative"))
	}
	if _, err := compilePolicy(c.Policy); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.Fallback.validate()...)
	return errors.Join(errs...)
}

func (s *ServerConfig) validate() []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("mcpServers.%s.%s: %s", s.Name, field, fmt.Sprintf(format, args...)))
	}
	switch {
	case s.NewTransport != nil:
		if s.Command != "" || s.URL != "" {
			bad("command", "set with NewTransport; use one way to reach a server")
		}
	case s.Command == "" && s.URL == "":
		bad("command", "required (or set url for a remote server)")
	case s.Command != "" && s.URL != "":
		bad("url", "set both command and url; a server is either stdio (command) or remote (url)")
	}
	switch s.Transport {
	case "":
	case TransportStdio:
		if s.URL != "" {
			bad("transport", "%q needs command, not url", s.Transport)
		}
	case TransportSSE, TransportStreamable:
		if s.Command != "" {
			bad("transport", "%q needs url, not command", s.Transport)
		}
	default:
		bad("transport", "unknown transport %q (want %q, %q or %q)", s.Transport, TransportStdio, TransportSSE, TransportStreamable)
	}
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err != nil {
			bad("url", "%v", err)
		} else if u.Scheme != "http" && u.Scheme != "https" {
			bad("url", "scheme must be http or https, got %q", u.Scheme)
		} else if u.Host == "" {
			bad("url", "no host in %q", s.URL)
		}
	}
	if s.Command == "" {
		if len(s.Args) > 0 {
			bad("args", "only valid with command")
		}
		if len(s.Env) > 0 {
			bad("env", "only valid with command")
		}
		if s.Cwd != "" {
			bad("cwd", "only valid with command")
		}
	}
	if s.Command != "" && len(s.Headers) > 0 {
		bad("headers", "only valid with url")
	}
	if s.Timeout < 0 {
		bad("timeout", "must not be negative")
	}
	if s.ConnectTimeout < 0 {
		bad("connectTimeout", "must not be negative")
	}
	if s.MaxResultChars < 0 {
		bad("maxResultChars", "must not be negative")
	}
	if s.Session != "" && s.Session != SessionPersistent && s.Session != SessionPerCall {
		bad("session", "unknown mode %q (want %q or %q)", s.Session, SessionPersistent, SessionPerCall)
	}
	return errs
}

// LoadConfig reads and parses a JSON config file; see [ParseConfig].
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("load config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses a JSON config in the mcpServers shape, expanding
// ${VAR} and ${VAR:-default} from the process environment, and validates it.
func ParseConfig(data []byte) (Config, error) {
	return ParseConfigEnv(data, os.LookupEnv)
}

// ParseConfigEnv is [ParseConfig] with the variables for ${VAR} expansion
// looked up by lookup instead of the process environment.
func ParseConfigEnv(data []byte, lookup func(string) (string, bool)) (Config, error) {
	cfg, err := decodeConfig(data)
	if err != nil {
		return Config{}, err
	}
	if err := cfg.expand(lookup); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// expand replaces ${VAR} and ${VAR:-default} in command, args, env, cwd,
// url and headers. A variable that is unset and has no default is an error
// naming the server and field.
func (c *Config) expand(lookup func(string) (string, bool)) error {
	var errs []error
	for i := range c.Servers {
		s := &c.Servers[i]
		do := func(field string, v *string) {
			out, err := expandVars(*v, lookup)
			if err != nil {
				errs = append(errs, fmt.Errorf("mcpServers.%s.%s: %w", s.Name, field, err))
				return
			}
			*v = out
		}
		do("command", &s.Command)
		for j := range s.Args {
			do(fmt.Sprintf("args[%d]", j), &s.Args[j])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			v := s.Env[k]
			do("env."+k, &v)
			s.Env[k] = v
		}
		do("cwd", &s.Cwd)
		do("url", &s.URL)
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			v := s.Headers[k]
			do("headers."+k, &v)
			s.Headers[k] = v
		}
	}
	return errors.Join(errs...)
}

// expandVars expands ${NAME} and ${NAME:-default}; "$$" stands for "$".
// A lone "$" not followed by "{" is kept as is.
func expandVars(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '{':
		default:
			b.WriteByte('$')
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed ${ in %q", s)
		}
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("bad variable name %q in %q", name, s)
		}
		v, ok := lookup(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set (use ${%s:-default} for a default)", name, name)
		}
		i += end
	}
	return b.String(), nil
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		ok := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (i > 0 && '0' <= r && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}
