// Package htmltest provides HTML pages for the tests and benchmarks of the
// packages that convert HTML: a synthetic page of any size, and real pages.
package htmltest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BigPage returns an HTML page of about size bytes: navigation, then
// sections with headings, paragraphs with links and emphasis, lists,
// tables, code and quotes, then a footer. Its markup is dense, about one
// node for every 15 bytes.
func BigPage(size int) string {
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

// RealPages returns the real-world pages (news, blogs, Wikipedia; 134
// pages, 29 MB) that readability, a dependency of the fallback package,
// ships as its test data: the path of each page's source.html by the
// page's name, such as "wikipedia-2". It fails tb if they cannot be found.
func RealPages(tb testing.TB) map[string]string {
	tb.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", "codeberg.org/readeck/go-readability/v2").Output()
	if err != nil {
		tb.Fatalf("go mod download readability: %v", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		tb.Fatalf("go mod download readability: no directory in %s (%v)", out, err)
	}
	paths, err := filepath.Glob(filepath.Join(mod.Dir, "test-pages", "*", "source.html"))
	if err != nil || len(paths) < 100 {
		tb.Fatalf("readability's test pages: found %d in %s (%v)", len(paths), mod.Dir, err)
	}
	pages := make(map[string]string, len(paths))
	for _, p := range paths {
		pages[filepath.Base(filepath.Dir(p))] = p
	}
	return pages
}
