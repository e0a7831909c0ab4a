package markdown

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/htmltest"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// commonMark converts Markdown to HTML: CommonMark with GitHub's tables
// and strikethrough, the dialect Render writes.
var commonMark = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// visibleText returns the text a reader sees in n: its text nodes and
// images' alt text, leaving out what Render leaves out. Each node's
// invalid UTF-8 is replaced on its own, as Render does.
func visibleText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(validUTF8(n.Data))
		case html.ElementNode:
			if skipped(n) {
				return
			}
			if n.DataAtom == atom.Img && n.Namespace == "" {
				b.WriteString(validUTF8(attr(n, "alt")))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// squeeze returns s without whitespace.
func squeeze(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsSpace(r) && r != 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkRoundTrip renders the HTML page src as Markdown, converts that back
// to HTML with goldmark, and checks that the reader sees the same text in
// both HTML pages, whitespace aside, and that the Markdown is valid UTF-8.
func checkRoundTrip(t *testing.T, src string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return // x/net/html gives up on a few pathological inputs
	}
	want := squeeze(visibleText(doc))
	md := Render(doc, Options{Base: testBase})
	if !utf8.ValidString(md) {
		t.Fatalf("Render(%q) is not valid UTF-8: %q", src, md)
	}
	var out bytes.Buffer
	if err := commonMark.Convert([]byte(md), &out); err != nil {
		t.Fatalf("goldmark: %v", err)
	}
	back, err := html.Parse(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("parsing goldmark's HTML: %v", err)
	}
	if got := squeeze(visibleText(back)); got != want {
		t.Errorf("round trip of %q\nmarkdown: %q\ngoldmark: %q\ntext in:  %q\ntext out: %q", src, md, out.String(), want, got)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range goldens {
		t.Run(tc.name, func(t *testing.T) { checkRoundTrip(t, tc.in) })
	}
}

// TestRoundTripRealPages round-trips the 134 real-world pages (news,
// blogs, Wikipedia; 29 MB) that readability, a dependency of fallback,
// ships as its test data.
func TestRoundTripRealPages(t *testing.T) {
	pages := htmltest.RealPages(t)
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		src, err := os.ReadFile(pages[name])
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { checkRoundTrip(t, string(src)) })
	}
}
