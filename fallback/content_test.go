package fallback

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

func TestCharsets(t *testing.T) {
	t.Parallel()
	latin1, _ := charmap.ISO8859_1.NewEncoder().String("<html><head><title>Crème brûlée</title></head><body><p>Café, naïve façade, Größe</p></body></html>")
	sjis, err := japanese.ShiftJIS.NewEncoder().String(`<html><head><meta charset="Shift_JIS"><title>日本語</title></head><body><p>こんにちは、世界。東京都</p></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	sjisHTTPEquiv, _ := japanese.ShiftJIS.NewEncoder().String(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=shift_jis"></head><body><p>カタカナ</p></body></html>`)
	plainLatin1, _ := charmap.ISO8859_1.NewEncoder().String("déjà vu")
	pages := map[string][2]string{
		"/latin1-header":   {"text/html; charset=ISO-8859-1", latin1},
		"/latin1-nothing":  {"text/html", latin1}, // not UTF-8, declares nothing: windows-1252
		"/sjis-meta":       {"text/html", sjis},
		"/sjis-http-equiv": {"text/html", sjisHTTPEquiv},
		"/plain-latin1":    {"text/plain; charset=iso-8859-1", plainLatin1},
		"/utf8-late":       {"text/html", "<p>" + strings.Repeat("x", 2000) + " ünïcödé</p>"},
	}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		pg := pages[r.URL.Path]
		serve(pg[0], pg[1])(w, r)
	})
	f := newFetcher(t, loopback())
	for path, want := range map[string][]string{
		"/latin1-header":   {"Café, naïve façade, Größe"},
		"/latin1-nothing":  {"Café, naïve façade, Größe"},
		"/sjis-meta":       {"こんにちは、世界。東京都"},
		"/sjis-http-equiv": {"カタカナ"},
		"/plain-latin1":    {"déjà vu"},
		"/utf8-late":       {"ünïcödé"},
	} {
		p := fetch(t, f, s.URL+path)
		mustContain(t, p.Text, want...)
	}
	if p := fetch(t, f, s.URL+"/latin1-header"); p.Title != "Crème brûlée" {
		t.Errorf("title %q", p.Title)
	}
	if p := fetch(t, f, s.URL+"/sjis-meta"); p.Title != "日本語" {
		t.Errorf("title %q", p.Title)
	}
}

func TestPassthrough(t *testing.T) {
	t.Parallel()
	const js = `{"name": "toolgate", "tags": ["mcp", "<b>not html</b>"], "n": 1}`
	const md = "# Release notes\n\n- *fast*\n- `safe`\n"
	pages := map[string][2]string{
		"/json":     {"application/json", js},
		"/ld":       {"application/ld+json; charset=utf-8", js},
		"/md":       {"text/markdown; charset=utf-8", md},
		"/txt":      {"text/plain", "plain <b>text</b>\n"},
		"/sniffed":  {"", "just some text, no type given\n"},
		"/bom-utf8": {"text/plain", "\uFEFFwith a BOM"},
	}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		pg := pages[r.URL.Path]
		if pg[0] == "" {
			w.Header()["Content-Type"] = nil // no sniffing by net/http either
		}
		serve(pg[0], pg[1])(w, r)
	})
	f := newFetcher(t, loopback())
	for path, want := range map[string][2]string{
		"/json":     {"application/json", js},
		"/ld":       {"application/ld+json", js},
		"/md":       {"text/markdown", md},
		"/txt":      {"text/plain", "plain <b>text</b>\n"},
		"/sniffed":  {"text/plain", "just some text, no type given\n"},
		"/bom-utf8": {"text/plain", "with a BOM"},
	} {
		p := fetch(t, f, s.URL+path)
		if p.ContentType != want[0] || p.Text != want[1] {
			t.Errorf("%s: got %q %q, want %q %q", path, p.ContentType, p.Text, want[0], want[1])
		}
	}
	if p := fetch(t, f, s.URL+"/md"); p.Title != "Release notes" {
		t.Errorf("markdown title %q", p.Title)
	}
}

// pngBytes is the start of a PNG file.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)

func TestBinaryRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/png":
			w.Header().Set("Content-Type", "image/png")
		case "/svg":
			w.Header().Set("Content-Type", "image/svg+xml")
		case "/zip":
			w.Header().Set("Content-Type", "application/zip")
		case "/octet":
			w.Header().Set("Content-Type", "application/octet-stream")
		case "/untyped":
			w.Header()["Content-Type"] = nil
		}
		_, _ = w.Write(pngBytes)
	})
	f := newFetcher(t, loopback())
	for path, typ := range map[string]string{
		"/png": "image/png", "/svg": "image/svg+xml", "/zip": "application/zip",
		"/octet": "image/png", "/untyped": "image/png", // sniffed
	} {
		e := fetchErr(t, f, s.URL+path, ErrUnsupportedType, "unsupported content type "+typ)
		if e.Status != 200 {
			t.Errorf("%s: Status %d, want 200", path, e.Status)
		}
	}
}

func TestContentEncoding(t *testing.T) {
	t.Parallel()
	page := "<html><body><h1>Compressed</h1><p>" + strings.Repeat("squeeze me ", 500) + "</p></body></html>"
	var gz, br bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(page))
	_ = zw.Close()
	bw := brotli.NewWriter(&br)
	_, _ = bw.Write([]byte(page))
	_ = bw.Close()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz.Bytes())
		case "/br":
			w.Header().Set("Content-Encoding", "br")
			_, _ = w.Write(br.Bytes())
		case "/bad":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write([]byte("not gzip at all"))
		case "/zstd":
			w.Header().Set("Content-Encoding", "zstd")
			_, _ = w.Write([]byte("whatever"))
		}
	})
	f := newFetcher(t, loopback())
	for _, path := range []string{"/gzip", "/br"} {
		p := fetch(t, f, s.URL+path)
		mustContain(t, p.Text, "# Compressed", "squeeze me squeeze me")
	}
	fetchErr(t, f, s.URL+"/bad", nil, "bad gzip body")
	fetchErr(t, f, s.URL+"/zstd", nil, `unsupported content encoding "zstd"`)

	// The limit applies to the decoded body: a small gzip of a large page.
	opts := loopback()
	opts.MaxBytes = 1000
	p := fetch(t, newFetcher(t, opts), s.URL+"/br")
	if !p.Truncated || len(p.Text) > 1000 {
		t.Errorf("br with MaxBytes 1000: Truncated %v, %d bytes of text", p.Truncated, len(p.Text))
	}
}

// TestBodyLimit fetches a 20 MB body with a 1 MiB limit: the page is cut
// at the limit, and the process never holds the whole body.
func TestBodyLimit(t *testing.T) {
	const size, limit = 20_000_000, 1 << 20
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk[:min(len(chunk), size-sent)]); err != nil {
				return // the client stopped reading at the limit
			}
		}
	})
	opts := loopback()
	opts.MaxBytes = limit
	f := newFetcher(t, opts)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := f.Fetch(context.Background(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("20 MB body, 1 MiB limit: heap held %.2f MiB, allocated in all %.2f MiB", float64(held)/(1<<20), float64(allocated)/(1<<20))
	if !p.Truncated || len(p.Text) != limit || p.Text[:16] != "0123456789abcdef" {
		t.Errorf("Truncated %v, len %d", p.Truncated, len(p.Text))
	}
	if held > 3*limit {
		t.Errorf("holding the page keeps %d bytes on the heap, more than 3×MaxBytes", held)
	}
	if allocated > size/2 {
		t.Errorf("the fetch allocated %d bytes for a %d-byte body with a %d-byte limit", allocated, size, limit)
	}
	runtime.KeepAlive(p)
}

func TestBlockedKind(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"8.8.8.8": "", "1.1.1.1": "", "2606:4700::1111": "", "172.32.0.1": "", "100.128.0.1": "",
		"127.0.0.1": "loopback", "127.255.0.9": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.0.0.1": "private", "172.16.5.4": "private", "172.31.255.255": "private", "192.168.0.1": "private", "fc00::1": "private", "fd12::1": "private",
		"169.254.1.1": "link-local", "fe80::1": "link-local",
		"169.254.169.254": "cloud metadata", "fd00:ec2::254": "cloud metadata", "::ffff:169.254.169.254": "cloud metadata",
		"0.0.0.0": "unspecified", "::": "unspecified",
		"224.0.0.1": "multicast", "ff02::1": "multicast", "255.255.255.255": "reserved",
		"100.64.0.1": "shared (carrier-grade NAT)", "64:ff9b::7f00:1": "loopback", "2002:c0a8:101::1": "private",
	} {
		if got := blockedKind(netip.MustParseAddr(addr)); got != want {
			t.Errorf("blockedKind(%s) = %q, want %q", addr, got, want)
		}
	}
}
