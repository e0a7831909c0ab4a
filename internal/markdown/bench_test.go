package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// bigPage returns an HTML page of about size bytes: navigation, then
// sections with headings, paragraphs with links and emphasis, lists,
// tables, code and quotes, then a footer. It is the page of the fallback
// package's BenchmarkConvert1MB.
func bigPage(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Big page</title><style>p{margin:0}</style></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li><li><a href="/blog">Blog</a></li></ul></nav><main>`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<section id="s%d"><h2>Section %d</h2>
<p>The gateway keeps <strong>one session</strong> per server and applies <em>timeouts</em>, cancellation and
policy the same way on every transport. See <a href="/docs/%d?ref=big&amp;n=%d">the reference</a> and
<code>CallTool</code> for details &mdash; all of it in one stable shape.</p>
<ul><li>first point %d</li><li>second point with <a href="https://example.com/%d">a link</a></li><li>third point</li></ul>
<table><thead><tr><th>name</th><th>value</th></tr></thead><tbody><tr><td>calls</td><td>%d</td></tr><tr><td>errors</td><td>0</td></tr></tbody></table>
<pre><code>res := m.CallTool(ctx, "calc", "evaluate", args) // %d</code></pre>
<blockquote><p>Quoted text number %d, with a line that is long enough to wrap in most readers of Markdown.</p></blockquote></section>
`, i, i, i, i, i, i, i, i, i)
	}
	b.WriteString(`</main><footer><p>Copyright</p></footer></body></html>`)
	return b.String()
}

// BenchmarkRender1MB renders a parsed 1 MB page; parsing is not timed.
func BenchmarkRender1MB(b *testing.B) {
	page := bigPage(1 << 20)
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
