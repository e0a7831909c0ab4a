package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func fetchServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><head><title>T</title></head><body><nav>NAV-LINKS</nav>
<article><h1>Hello</h1><p>Some <em>body</em> text.</p></article></body></html>`))
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func runFetchCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runFetch(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestFetchCommand(t *testing.T) {
	s, requests := fetchServer(t)

	code, out, errOut := runFetchCLI(s.URL, "--allow", "127.0.0.1")
	if code != exitOK || !strings.Contains(out, "# Hello\n\nSome *body* text.") || !strings.Contains(out, "NAV-LINKS") {
		t.Errorf("fetch: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runFetchCLI("--main", "--allow", "10.0.0.0/8,127.0.0.1", s.URL)
	if code != exitOK || strings.Contains(out, "NAV-LINKS") || !strings.Contains(out, "Some *body* text.") {
		t.Errorf("fetch --main: exit %d, stdout %q", code, out)
	}

	before := requests.Load()
	code, out, errOut = runFetchCLI(s.URL)
	if code != exitError || out != "" || !strings.Contains(errOut, "loopback address") || requests.Load() != before {
		t.Errorf("fetch without --allow: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runFetchCLI("--allow", "127.0.0.1", s.URL+"/missing")
	if code != exitError || !strings.Contains(errOut, "404 Not Found") {
		t.Errorf("fetch 404: exit %d, stderr %q", code, errOut)
	}

	for _, args := range [][]string{{}, {"a", "b"}, {"--bogus", "x"}, {"--allow", "10.0.0.0/99", s.URL}} {
		if code, _, errOut := runFetchCLI(args...); code != exitUsage || errOut == "" {
			t.Errorf("fetch %q: exit %d, stderr %q, want a usage error", args, code, errOut)
		}
	}
	if code, out, _ := runFetchCLI("--help"); code != exitOK || !strings.Contains(out, "Usage: toolgate fetch") {
		t.Errorf("fetch --help: exit %d, %q", code, out)
	}
}

// TestFetchThroughRun runs "toolgate fetch URL" as the command line does,
// with the allow list and main-content switch from the environment.
func TestFetchThroughRun(t *testing.T) {
	t.Chdir(t.TempDir())
	s, _ := fetchServer(t)
	t.Setenv("TOOLGATE_FETCH_ALLOW", "127.0.0.1")
	t.Setenv("TOOLGATE_FETCH_MAIN", "1")
	code, out, errOut := runCLI(t, "", "fetch", s.URL)
	if code != exitOK || !strings.Contains(out, "Some *body* text.") || strings.Contains(out, "NAV-LINKS") {
		t.Errorf("toolgate fetch: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", "fetch", "file:///etc/passwd")
	if code != exitError || !strings.Contains(errOut, "only http and https") {
		t.Errorf("toolgate fetch file:: exit %d, stderr %q", code, errOut)
	}
}
