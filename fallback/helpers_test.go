package fallback

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// server is an httptest server on 127.0.0.1 that counts its requests.
type server struct {
	*httptest.Server
	requests atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// serve returns a handler that answers with body as contentType.
func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}
}

// loopback are Options that allow the httptest servers.
func loopback() Options {
	return Options{AllowHosts: []string{"127.0.0.1"}}
}

func newFetcher(t *testing.T, opts Options) *Fetcher {
	t.Helper()
	f, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(f.client.CloseIdleConnections)
	return f
}

func fetch(t *testing.T, f *Fetcher, url string) *Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := f.Fetch(ctx, url)
	if err != nil {
		t.Fatalf("Fetch(%s): %v", url, err)
	}
	return p
}

// fetchErr fetches url, wanting an *Error that wraps target (if not nil)
// and whose text contains every one of want.
func fetchErr(t *testing.T, f *Fetcher, url string, target error, want ...string) *Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := f.Fetch(ctx, url)
	if err == nil {
		t.Fatalf("Fetch(%s) = page %q, want an error", url, p.Text)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Fetch(%s) error %T %v, want *Error", url, err, err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("Fetch(%s) error %v does not wrap %v", url, err, target)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Fetch(%s) error %q does not say %q", url, err, w)
		}
	}
	if e.URL != url {
		t.Errorf("Error.URL = %q, want %q", e.URL, url)
	}
	return e
}

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text does not contain %q:\n%s", w, text)
		}
	}
}

func mustNotContain(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("text contains %q:\n%s", w, text)
		}
	}
}
