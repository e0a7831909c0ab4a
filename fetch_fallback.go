package toolgate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/toolgate/toolgate/fallback"
	"github.com/toolgate/toolgate/policy"
)

// FallbackConfig is the toolgate.fallback section: when a scrape tool fails
// in one of the listed ways, toolgate fetches the URL itself and converts
// the page (see package fallback). It is on by default, as in the original.
type FallbackConfig struct {
	// Disabled turns the fallback off ("enabled": false in JSON).
	Disabled bool
	// Tools that get the fallback; empty means "scrape" and "scrape_website".
	Tools []string
	// URLArg names the argument that holds the URL; empty means "url".
	URLArg string
	// OnCodes are the error codes that trigger it; empty means
	// connect_failed, connection_lost, protocol_error and timeout.
	// tool_error is opt-in.
	OnCodes []Code
	// MaxBytes limits the fetched body; zero means 10 MiB.
	MaxBytes int64
	// MainContent converts only a page's main content, dropping navigation,
	// headers and footers.
	MainContent bool
	// AllowHosts lists hosts and CIDR ranges that may be fetched even though
	// they are loopback or private; empty by default.
	AllowHosts []string
}

// Defaults of FallbackConfig.
var (
	defaultFallbackTools = []string{"scrape", "scrape_website"}
	defaultFallbackCodes = []Code{CodeConnectFailed, CodeConnectionLost, CodeProtocolError, CodeTimeout}
)

// fetchFallback is the Manager's fallback: the fetcher and its settings.
type fetchFallback struct {
	fetcher *fallback.Fetcher
	tools   []string
	urlArg  string
	onCodes []Code
}

// fallbackCall is what the fetcher's policy check needs to know of the call
// it stands in for; it travels in the fetch's context.
type fallbackCall struct {
	server, tool string
	caller       Caller
}

type fallbackCallKey struct{}

// newFetchFallback builds the fallback, or nil when it is disabled. check
// decides a URL for a call, with the call's policy.
func newFetchFallback(fc FallbackConfig, check func(fallbackCall, string) policy.Decision) (*fetchFallback, error) {
	if fc.Disabled {
		return nil, nil
	}
	fb := &fetchFallback{tools: fc.Tools, urlArg: fc.URLArg, onCodes: fc.OnCodes}
	if len(fb.tools) == 0 {
		fb.tools = defaultFallbackTools
	}
	if fb.urlArg == "" {
		fb.urlArg = "url"
	}
	if len(fb.onCodes) == 0 {
		fb.onCodes = defaultFallbackCodes
	}
	f, err := fallback.New(fallback.Options{
		MaxBytes:    fc.MaxBytes,
		MainContent: fc.MainContent,
		AllowHosts:  fc.AllowHosts,
		// Every URL, redirects included, goes through the same policy as
		// the call: the original's fallback bypassed its own rule.
		Check: func(ctx context.Context, u *url.URL) error {
			call, _ := ctx.Value(fallbackCallKey{}).(fallbackCall)
			if d := check(call, u.String()); d.Action == policy.Deny {
				return errors.New(d.Message)
			}
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("toolgate.fallback: %w", err)
	}
	fb.fetcher = f
	return fb, nil
}

// applies reports whether a failed call of tool, with res's code, gets the
// fallback, and the URL to fetch.
func (fb *fetchFallback) applies(s *server, tool string, args map[string]any, res Result) (string, bool) {
	if fb == nil || res.Err == nil || s.cfg.NoFallback ||
		!slices.Contains(fb.tools, tool) || !slices.Contains(fb.onCodes, res.Err.Code) {
		return "", false
	}
	raw, ok := args[fb.urlArg].(string)
	return raw, ok && raw != ""
}

// fetchInstead runs the fallback for a failed call: on success a result
// with Fallback "fetch" that keeps the original error in FallbackFrom; on
// failure the original error, with the fallback's reason added.
func (m *Manager) fetchInstead(ctx context.Context, s *server, tool string, args map[string]any, caller Caller, res Result) Result {
	raw, ok := m.fallback.applies(s, tool, args, res)
	if !ok {
		return res
	}
	meta := map[string]any{"server": s.cfg.Name, "tool": tool, "error_code": string(res.Err.Code)}
	m.log.LogStep(LevelWarning, "fallback", "call failed ("+res.Err.Message+"); fetching the page instead", meta)
	ctx = context.WithValue(ctx, fallbackCallKey{}, fallbackCall{server: s.cfg.Name, tool: tool, caller: caller})
	page, err := m.fallback.fetcher.Fetch(ctx, raw)
	if err != nil {
		reason := err.Error()
		var fe *fallback.Error
		if errors.As(err, &fe) {
			reason = fe.Reason
		}
		m.log.LogStep(LevelWarning, "fallback", "fetch fallback failed: "+reason, meta)
		res.Err = &Error{Code: res.Err.Code, Message: res.Err.Message + "; the fetch fallback failed too: " + reason}
		return res
	}
	m.log.LogStep(LevelInfo, "fallback", "fetch fallback succeeded", meta)
	out := Result{Server: s.cfg.Name, Tool: tool, Text: page.Text, Truncated: page.Truncated,
		Fallback: "fetch", FallbackFrom: res.Err}
	limitResult(&out, s.maxResultChars)
	return out
}

// checkFallbackURL decides a URL the fallback is about to fetch, as if the
// call had been made with it.
func (m *Manager) checkFallbackURL(call fallbackCall, u string) policy.Decision {
	return m.decide(call.server, call.tool, map[string]any{m.fallbackURLArg(): u}, call.caller)
}

func (m *Manager) fallbackURLArg() string {
	if m.fallback == nil {
		return "url"
	}
	return m.fallback.urlArg
}

// validate reports problems in the fallback section, named by field.
func (fc *FallbackConfig) validate() []error {
	var errs []error
	for i, c := range fc.OnCodes {
		if !c.known() {
			errs = append(errs, fmt.Errorf("toolgate.fallback.onCodes[%d]: unknown error code %q", i, c))
		}
	}
	if fc.MaxBytes < 0 {
		errs = append(errs, errors.New("toolgate.fallback.maxBytes: must not be negative"))
	}
	if err := fallback.CheckAllowHosts(fc.AllowHosts); err != nil {
		errs = append(errs, fmt.Errorf("toolgate.fallback.allowHosts: %w", err))
	}
	return errs
}

// decodeFallback decodes the toolgate.fallback section.
func decodeFallback(raw []byte) (FallbackConfig, error) {
	var fc FallbackConfig
	enabled := true
	err := decodeObject("toolgate.fallback", raw, map[string]any{
		"enabled": &enabled, "tools": &fc.Tools, "urlArg": &fc.URLArg, "onCodes": &fc.OnCodes,
		"maxBytes": &fc.MaxBytes, "mainContent": &fc.MainContent, "allowHosts": &fc.AllowHosts,
	})
	fc.Disabled = !enabled
	return fc, err
}
