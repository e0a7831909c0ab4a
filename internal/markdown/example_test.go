package markdown_test

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/toolgate/toolgate/internal/markdown"
	"golang.org/x/net/html"
)

func ExampleRender() {
	page := `<html><head><title>Notes</title></head><body>
<h1>Release notes</h1>
<p>toolgate now <strong>fetches</strong> pages itself; see <a href="/docs/fetch">the docs</a>.</p>
<ul><li>HTML becomes Markdown</li><li>private addresses are refused</li></ul>
<pre><code class="language-sh">toolgate fetch https://example.com</code></pre>
<table><tr><th>step</th><th>time</th></tr><tr><td>parse</td><td>30 ms</td></tr></table>
</body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		panic(err)
	}
	base, _ := url.Parse("https://example.com/blog/notes")
	fmt.Println(markdown.Render(doc, markdown.Options{Base: base}))
	// Output:
	// # Release notes
	//
	// toolgate now **fetches** pages itself; see [the docs](https://example.com/docs/fetch).
	//
	// - HTML becomes Markdown
	// - private addresses are refused
	//
	// ```sh
	// toolgate fetch https://example.com
	// ```
	//
	// | step | time |
	// | --- | --- |
	// | parse | 30 ms |
}
