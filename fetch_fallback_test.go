package toolgate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/policy"
)

// pages serves a small site on loopback and counts requests per path.
type pages struct {
	srv  *httptest.Server
	hits map[string]*atomic.Int64
}

func newPages(t *testing.T) *pages {
	p := &pages{hits: map[string]*atomic.Int64{}}
	mux := http.NewServeMux()
	handle := func(path string, h http.HandlerFunc) {
		p.hits[path] = new(atomic.Int64)
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			p.hits[path].Add(1)
			h(w, r)
		})
	}
	handle("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Gateways</title></head><body><nav>Home | About</nav>
			<article><h1>Gateways</h1><p>A tool gateway sits between an agent and its servers.</p></article>
			<footer>© footer</footer></body></html>`)
	})
	handle("/start", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/secret/x", http.StatusFound) })
	handle("/secret/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "the secret") })
	handle("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	handle("/to-hf", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://huggingface.co/datasets/gaia-benchmark/GAIA", http.StatusFound)
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// scrapeServer is an in-process server whose scrape tool hangs until
// canceled, and whose broken_scrape tool reports an error.
func scrapeServer(t *testing.T, name string, calls *atomic.Int64) toolgate.ServerConfig {
	srv := mcp.NewServer(&mcp.Implementation{Name: "scraper"}, nil)
	type in struct {
		URL string `json:"url"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "scrape"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		calls.Add(1)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "scrape_website"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		calls.Add(1)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unhandled errors in scraper"}}}, nil, nil
	})
	return toolgate.ServerConfig{Name: name, Timeout: 300 * time.Millisecond, NewTransport: func() mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), server, nil); err != nil {
			t.Errorf("scrape server: %v", err)
		}
		return client
	}}
}

func TestFetchFallback(t *testing.T) {
	p := newPages(t)
	var calls atomic.Int64
	cfg := toolgate.Config{
		Servers: []toolgate.ServerConfig{
			{Name: "down", Command: "toolgate-no-such-scraper"},
			scrapeServer(t, "slow", &calls),
		},
		Fallback: toolgate.FallbackConfig{AllowHosts: []string{"127.0.0.1"}, MainContent: true},
		Policy: policy.Config{
			Presets: []string{"huggingface-datasets"},
			Rules:   []policy.Rule{{Action: policy.Deny, URLPath: "/secret/*", Message: "no secrets"}},
		},
	}
	m := newManager(t, cfg)
	ctx := ctxT(t)

	for _, server := range []string{"down", "slow"} {
		r := m.CallTool(ctx, server, "scrape", map[string]any{"url": p.srv.URL + "/article"})
		wantOK(t, r)
		if r.Fallback != "fetch" || r.FallbackFrom == nil || !strings.Contains(r.Text, "A tool gateway sits between") || strings.Contains(r.Text, "footer") {
			t.Errorf("%s: fallback result = %+v", server, r)
		}
	}
	if r := m.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/article"}); r.FallbackFrom.Code != toolgate.CodeConnectFailed {
		t.Errorf("original error = %v, want connect_failed", r.FallbackFrom)
	}

	// tool_error is opt-in: the original's string-matched "unhandled errors" is not a trigger.
	wantCode(t, m.CallTool(ctx, "slow", "scrape_website", map[string]any{"url": p.srv.URL + "/article"}), toolgate.CodeToolError, "unhandled errors")

	// A redirect to a URL the policy denies is never fetched.
	r := m.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/start"})
	wantCode(t, r, toolgate.CodeConnectFailed, "the fetch fallback failed too")
	wantCode(t, r, toolgate.CodeConnectFailed, "no secrets")
	if n := p.hits["/secret/"].Load(); n != 0 {
		t.Errorf("denied redirect target fetched %d times", n)
	}
	// The Hugging Face preset holds for the fallback too: the original's
	// fallback bypassed it.
	before := calls.Load()
	wantCode(t, m.CallTool(ctx, "slow", "scrape", map[string]any{"url": "https://huggingface.co/datasets/x"}), toolgate.CodeBlocked, policy.HuggingFaceMessage)
	if calls.Load() != before {
		t.Error("the scrape server heard of a Hugging Face dataset call")
	}
	wantCode(t, m.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/to-hf"}), toolgate.CodeConnectFailed, policy.HuggingFaceMessage)
	// A denied URL is refused before the call and before any fetch.
	wantCode(t, m.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/secret/y"}), toolgate.CodeBlocked, "no secrets")
	// A failed fetch keeps the original error and adds the reason.
	wantCode(t, m.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/missing"}), toolgate.CodeConnectFailed, "404")
}

func TestFetchFallbackRefusesPrivateAddressesAndCanBeOff(t *testing.T) {
	p := newPages(t)
	down := toolgate.ServerConfig{Name: "down", Command: "toolgate-no-such-scraper"}
	off := toolgate.ServerConfig{Name: "off", Command: "toolgate-no-such-scraper", NoFallback: true}
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{down, off}})
	ctx := ctxT(t)
	r := m.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/article"})
	wantCode(t, r, toolgate.CodeConnectFailed, "the fetch fallback failed too")
	if p.hits["/article"].Load() != 0 {
		t.Error("loopback page fetched without allowHosts")
	}
	r = m.CallTool(ctx, "off", "scrape", map[string]any{"url": p.srv.URL + "/article"})
	if r.Err == nil || strings.Contains(r.Err.Message, "fallback") {
		t.Errorf("per-server off: %+v", r.Err)
	}

	global := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{down},
		Fallback: toolgate.FallbackConfig{Disabled: true, AllowHosts: []string{"127.0.0.1"}}})
	r = global.CallTool(ctx, "down", "scrape", map[string]any{"url": p.srv.URL + "/article"})
	if r.Err == nil || r.Fallback != "" || p.hits["/article"].Load() != 0 {
		t.Errorf("disabled globally: %+v", r)
	}
}

func TestFallbackConfig(t *testing.T) {
	cfg, err := toolgate.ParseConfig([]byte(`{"mcpServers": {"web": {"command": "x", "fallback": false}},
	  "toolgate": {"fallback": {"enabled": true, "tools": ["fetch_page"], "urlArg": "link",
	    "onCodes": ["timeout", "tool_error"], "maxBytes": 1048576, "mainContent": true, "allowHosts": ["127.0.0.1", "10.0.0.0/8"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	fb := cfg.Fallback
	if fb.Disabled || fb.URLArg != "link" || len(fb.OnCodes) != 2 || fb.MaxBytes != 1<<20 || !fb.MainContent || !cfg.Servers[0].NoFallback {
		t.Errorf("fallback config = %+v", fb)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"toolgate": {"fallback": {"onCodes": ["exploded"]}}}`, `toolgate.fallback.onCodes[0]: unknown error code "exploded"`},
		{`{"toolgate": {"fallback": {"allowHosts": ["10.0.0.0/99"]}}}`, `toolgate.fallback.allowHosts`},
		{`{"toolgate": {"fallback": {"enabeld": false}}}`, `toolgate.fallback.enabeld: unknown key (did you mean "enabled"?)`},
		{`{"toolgate": {"fallback": {"maxBytes": "big"}}}`, `toolgate.fallback.maxBytes: want an integer`},
	} {
		if _, err := toolgate.ParseConfig([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
}
