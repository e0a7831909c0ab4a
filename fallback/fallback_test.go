package fallback

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// articlePage is a page with navigation, a header, a footer and an article
// long enough for readability to find.
func articlePage() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Gateways and their tools</title>
<script>var tracking = "SCRIPT-TEXT";</script><style>body{color:red}</style></head><body>
<header class="site-header"><a href="/">HEADER-BRAND</a> <span>Sign in to HEADER-ACCOUNT</span></header>
<nav class="menu"><ul><li><a href="/a">NAV-HOME</a></li><li><a href="/b">NAV-PRICING</a></li><li><a href="/c">NAV-BLOG</a></li></ul></nav>
<main><article><h1>Gateways and their tools</h1>`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, `<p>Paragraph %d of the ARTICLE-BODY. A tool gateway sits between an agent and the servers that give it tools,
keeping one session per server, applying timeouts, cancellation and policy the same way on every transport,
and answering in one stable shape. See <a href="/docs/%d">the docs</a> for <strong>more</strong>.</p>`, i, i)
	}
	b.WriteString(`<ul><li>ARTICLE-LIST-ONE</li><li>ARTICLE-LIST-TWO</li></ul></article></main>
<aside class="sidebar">SIDEBAR-ADS</aside>
<footer class="site-footer"><p>FOOTER-COPYRIGHT 2025</p><a href="/privacy">FOOTER-PRIVACY</a></footer>
</body></html>`)
	return b.String()
}

func TestHTMLMainContent(t *testing.T) {
	t.Parallel()
	s := newServer(t, serve("text/html; charset=utf-8", articlePage()))
	boilerplate := []string{"HEADER-BRAND", "NAV-PRICING", "FOOTER-COPYRIGHT", "FOOTER-PRIVACY"}

	opts := loopback()
	opts.MainContent = true
	p := fetch(t, newFetcher(t, opts), s.URL+"/post")
	mustContain(t, p.Text, "Paragraph 1 of the ARTICLE-BODY", "Paragraph 6", "ARTICLE-LIST-TWO", "**more**",
		"[the docs]("+s.URL+"/docs/1)", "# Gateways and their tools")
	mustNotContain(t, p.Text, append(boilerplate, "SIDEBAR-ADS", "SCRIPT-TEXT", "<p>")...)
	if p.Title != "Gateways and their tools" || p.ContentType != "text/html" || p.URL != s.URL+"/post" || p.Truncated {
		t.Errorf("page = %+v", *p)
	}

	p = fetch(t, newFetcher(t, loopback()), s.URL+"/post")
	mustContain(t, p.Text, append(boilerplate, "Paragraph 1 of the ARTICLE-BODY", "- ARTICLE-LIST-ONE")...)
	mustNotContain(t, p.Text, "SCRIPT-TEXT", "color:red")
}

// TestMainContentShortPage: when readability finds no article, the page
// is still converted, without nav, header and footer.
func TestMainContentShortPage(t *testing.T) {
	t.Parallel()
	s := newServer(t, serve("text/html", `<html><head><title>T</title></head><body><nav>NAV-X</nav><p>Just SHORT-TEXT.</p><footer>FOOT-X</footer></body></html>`))
	opts := loopback()
	opts.MainContent = true
	p := fetch(t, newFetcher(t, opts), s.URL)
	mustContain(t, p.Text, "SHORT-TEXT")
	mustNotContain(t, p.Text, "NAV-X", "FOOT-X")
}

// chain serves /hop/N, which redirects to /hop/N-1, until /hop/0, which
// answers "arrived".
func chain(t *testing.T) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); err != nil {
			http.NotFound(w, r)
			return
		}
		if n == 0 {
			serve("text/plain", "arrived")(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	s := chain(t)
	f := newFetcher(t, loopback())
	p := fetch(t, f, s.URL+"/hop/3")
	if p.Text != "arrived" || p.URL != s.URL+"/hop/0" {
		t.Errorf("3 hops: page %+v", *p)
	}
	fetch(t, f, s.URL+"/hop/5") // exactly the default limit
	before := s.requests.Load()
	fetchErr(t, f, s.URL+"/hop/6", ErrTooManyRedirects, "too many redirects", "more than 5")
	if n := s.requests.Load() - before; n != 6 {
		t.Errorf("6-hop chain made %d requests, want 6 (the 6th redirect is not followed)", n)
	}

	opts := loopback()
	opts.MaxRedirects = -1
	fetchErr(t, newFetcher(t, opts), s.URL+"/hop/1", ErrTooManyRedirects, "more than 0")
}

func TestRedirectRefusedByCheck(t *testing.T) {
	t.Parallel()
	target := newServer(t, serve("text/plain", "secret"))
	origin := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/private/page", http.StatusMovedPermanently)
	})
	denied := errors.New("private pages are off limits")
	var checked []string
	var mu sync.Mutex
	opts := loopback()
	opts.Check = func(ctx context.Context, u *url.URL) error {
		mu.Lock()
		checked = append(checked, u.String())
		mu.Unlock()
		if strings.HasPrefix(u.Path, "/private/") {
			return denied
		}
		return nil
	}
	f := newFetcher(t, opts)
	e := fetchErr(t, f, origin.URL+"/start", denied, "refused the redirect to "+target.URL+"/private/page",
		"refused by policy: private pages are off limits")
	if e.Status != 0 {
		t.Errorf("Status = %d, want 0", e.Status)
	}
	if n := target.requests.Load(); n != 0 {
		t.Errorf("the refused target got %d requests", n)
	}
	want := []string{origin.URL + "/start", target.URL + "/private/page"}
	if fmt.Sprint(checked) != fmt.Sprint(want) {
		t.Errorf("Check saw %v, want %v", checked, want)
	}

	// Check refuses the first URL: no request at all.
	fetchErr(t, f, target.URL+"/private/x", denied, "refused by policy")
	if n := target.requests.Load(); n != 0 {
		t.Errorf("the refused URL got %d requests", n)
	}
}

func TestRedirectToRefusedAddress(t *testing.T) {
	t.Parallel()
	// The redirect targets are never dialed: the address check comes first,
	// so no packet leaves for them.
	for _, tc := range []struct{ location, want string }{
		{"http://10.1.2.3:8080/admin", "10.1.2.3: it is a private address"},
		{"http://192.168.1.1/", "private address"},
		{"http://169.254.169.254/latest/meta-data/", "cloud metadata address"},
		{"http://[fd00:ec2::254]/latest/meta-data/", "cloud metadata address"},
		{"http://[::1]:9/", "loopback address"},
		{"http://0.0.0.0:9/", "unspecified address"},
		{"http://0.1.2.3:9/", "\"this network\" address"},
		{"http://100.64.0.1/", "carrier-grade NAT"},
		{"http://[64:ff9b::a00:1]/", "private address"},
		{"http://[::ffff:10.0.0.1]/", "private address"},
	} {
		origin := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, tc.location, http.StatusFound)
		})
		fetchErr(t, newFetcher(t, loopback()), origin.URL, ErrBlockedAddress, tc.want, "allowHosts")
		if origin.requests.Load() != 1 {
			t.Errorf("%s: origin got %d requests", tc.location, origin.requests.Load())
		}
	}
}

func TestPrivateAddressWithoutAllowList(t *testing.T) {
	t.Parallel()
	s := newServer(t, serve("text/plain", "hello"))
	f := newFetcher(t, Options{})
	fetchErr(t, f, s.URL, ErrBlockedAddress, "127.0.0.1: it is a loopback address")
	host := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	fetchErr(t, f, host, ErrBlockedAddress, "localhost: it resolves to", "loopback")
	if n := s.requests.Load(); n != 0 {
		t.Errorf("server got %d requests", n)
	}
	// A host name on the allow list allows what it resolves to; a range
	// allows its addresses.
	fetch(t, newFetcher(t, Options{AllowHosts: []string{"LocalHost."}}), host)
	fetch(t, newFetcher(t, Options{AllowHosts: []string{"127.0.0.0/8"}}), s.URL)
}

func TestNonHTTPSchemeRefused(t *testing.T) {
	t.Parallel()
	f := newFetcher(t, loopback())
	for _, u := range []string{"file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/", "javascript:alert(1)", "/relative/path", "http://"} {
		fetchErr(t, f, u, ErrBadURL)
	}
	fetchErr(t, f, "file:///etc/passwd", ErrBadURL, `only http and https URLs can be fetched, not "file:"`)

	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	fetchErr(t, f, s.URL, ErrBadURL, "refused the redirect to file:///etc/passwd")
}

func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/moved":
			http.Redirect(w, r, "/missing", http.StatusFound)
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	})
	f := newFetcher(t, loopback())
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/missing", 404, "the server answered 404 Not Found"},
		{"/broken", 500, "the server answered 500 Internal Server Error"},
		{"/moved", 404, "404 Not Found for " + s.URL + "/missing"},
	} {
		e := fetchErr(t, f, s.URL+tc.path, ErrHTTPStatus, tc.want)
		if e.Status != tc.status {
			t.Errorf("%s: Status = %d, want %d", tc.path, e.Status, tc.status)
		}
	}
}

func TestSlowServer(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/trickle" {
			// Headers at once, then the body too slowly.
			w.Header().Set("Content-Type", "text/plain")
			for i := 0; i < 100; i++ {
				fmt.Fprintf(w, "line %d\n", i)
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
			return
		}
		select { // no answer at all
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	f := newFetcher(t, loopback())
	for _, path := range []string{"/silent", "/trickle"} {
		const deadline = 400 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		_, err := f.Fetch(ctx, s.URL+path)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after") {
			t.Errorf("%s: err = %v, want a timeout", path, err)
		}
		if took > deadline+time.Second {
			t.Errorf("%s: Fetch returned after %v, deadline %v", path, took, deadline)
		}
	}

	// Options.Timeout bounds it as well.
	opts := loopback()
	opts.Timeout = 300 * time.Millisecond
	start := time.Now()
	fetchErr(t, newFetcher(t, opts), s.URL+"/silent", context.DeadlineExceeded, "timed out")
	if took := time.Since(start); took > 1300*time.Millisecond {
		t.Errorf("Timeout 300ms: Fetch returned after %v", took)
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := newFetcher(t, loopback()).Fetch(ctx, s.URL)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("err = %v, want canceled", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t, serve("text/plain", ""))
	u := s.URL
	s.Close()
	fetchErr(t, newFetcher(t, loopback()), u, nil, "request failed", "connection refused")
}

func TestUserAgentAndAccept(t *testing.T) {
	t.Parallel()
	var ua, accept string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		ua, accept = r.UserAgent(), r.Header.Get("Accept-Encoding")
		serve("text/plain", "ok")(w, r)
	})
	fetch(t, newFetcher(t, loopback()), s.URL)
	if !strings.HasPrefix(ua, "toolgate/") || !strings.HasSuffix(ua, " (+fetch fallback)") {
		t.Errorf("User-Agent = %q", ua)
	}
	if accept != "gzip, br" {
		t.Errorf("Accept-Encoding = %q", accept)
	}
	opts := loopback()
	opts.UserAgent = "toolgate/9.9 (+test)"
	fetch(t, newFetcher(t, opts), s.URL)
	if ua != "toolgate/9.9 (+test)" {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{AllowHosts: []string{"10.0.0.0/33"}}, `allowHosts entry "10.0.0.0/33": bad CIDR range`},
		{Options{AllowHosts: []string{"127.0.0.1", "not a host"}}, `allowHosts entry "not a host"`},
		{Options{AllowHosts: []string{"[::1"}}, `allowHosts entry "[::1"`},
		{Options{MaxBytes: -1}, "MaxBytes -1 is negative"},
		{Options{Timeout: -time.Second}, "Timeout -1s is negative"},
	} {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	if _, err := New(Options{AllowHosts: []string{"127.0.0.1", "[::1]", "10.0.0.0/8", "fd00::/8", "intranet.example"}}); err != nil {
		t.Errorf("New with good AllowHosts: %v", err)
	}
}

func TestConcurrentFetches(t *testing.T) {
	t.Parallel()
	s := newServer(t, serve("text/html", articlePage()))
	opts := loopback()
	opts.MainContent = true
	f := newFetcher(t, opts)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := f.Fetch(context.Background(), s.URL)
			if err == nil && !strings.Contains(p.Text, "ARTICLE-BODY") {
				err = fmt.Errorf("text without the article: %q", p.Text)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
