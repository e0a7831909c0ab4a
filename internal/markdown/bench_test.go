package markdown

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/htmltest"
	"golang.org/x/net/html"
)

// BenchmarkRender1MB renders a parsed 1 MB page; parsing is not timed.
func BenchmarkRender1MB(b *testing.B) {
	page := htmltest.BigPage(1 << 20)
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if md := Render(doc, Options{Base: testBase}); len(md) < len(page)/4 {
			b.Fatalf("%d bytes of Markdown", len(md))
		}
	}
}
