package markdown

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var testBase, _ = url.Parse("https://example.com/dir/page")

// render parses the HTML page src and renders it against testBase.
func render(t testing.TB, src string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return Render(doc, Options{Base: testBase})
}

// goldens are HTML fragments and the Markdown they render as, one or more
// per construct and per escaping rule.
var goldens = []struct{ name, in, want string }{
	// Blocks.
	{"empty", ``, ``},
	{"text", `hello`, `hello`},
	{"paragraphs", `<p>one</p><p>two</p>`, "one\n\ntwo"},
	{"text between blocks", `<div>a<p>b</p>c</div>`, "a\n\nb\n\nc"},
	{"divs", `<div><div>a</div><section>b</section></div><article><main>c</main></article>`, "a\n\nb\n\nc"},
	{"other blocks", `<header>h</header><nav>n</nav><aside>a</aside><footer>f</footer><address>ad</address><center>c</center>`, "h\n\nn\n\na\n\nf\n\nad\n\nc"},
	{"whitespace", "<p>  a \n\t b  </p>  <p>\n c</p>", "a b\n\nc"},
	{"nbsp kept", `<p>a&nbsp;&nbsp;b</p>`, "a\u00a0\u00a0b"},
	{"headings", `<h1>One</h1><h2>Two</h2><h3>3</h3><h4>4</h4><h5>5</h5><h6>6</h6>`, "# One\n\n## Two\n\n### 3\n\n#### 4\n\n##### 5\n\n###### 6"},
	{"heading on one line", "<h2>a<br>b<p>c</p></h2>", "## a b c"},
	{"heading closing hashes", `<h2>C #</h2><h3>#</h3><h3>C#</h3>`, "## C \\#\n\n### \\#\n\n### C#"},
	{"empty heading", `<h2> </h2><p>x</p>`, "x"},
	{"hard break", `<p>a<br>b<br/><br>c</p>`, "a\\\nb\\\n\\\nc"},
	{"hard break after backslash", `<p>a\<br>b</p>`, "a\\\\  \nb"},
	{"break at edges", `<p><br>a<br></p><p>b</p>`, "a\n\nb"},
	{"thematic break", `<p>a</p><hr><p>b</p>`, "a\n\n---\n\nb"},

	// Inline formatting.
	{"strong", `<p><strong>a</strong> <b>b</b></p>`, "**a** **b**"},
	{"em", `<p><em>a</em> <i>b</i></p>`, "*a* *b*"},
	{"strikethrough", `<p><del>a</del> <s>b</s> <strike>c</strike></p>`, "~~a~~ ~~b~~ ~~c~~"},
	{"nested emphasis", `<p><b>a <i>b</i> c</b></p>`, "**a *b* c**"},
	{"same emphasis nested", `<p><b>a <strong>b</strong></b></p>`, "**a b**"},
	{"emphasis spaces outside", `<p>a<b> b </b>c</p>`, "a **b** c"},
	{"empty emphasis", `<p>a<b></b><i> </i>b</p>`, "a b"},
	{"intraword emphasis", `<p>un<b>believ</b>able</p>`, "un**believ**able"},
	{"emphasis before punctuation in a word", `<p>a<b>.</b>b</p>`, "a.b"},
	{"emphasis ending in punctuation before a letter", `<p><b>a.</b>b</p>`, "a.b"},
	{"emphasis ending in punctuation", `<p><b>Note:</b> x</p>`, "**Note:** x"},
	{"adjacent emphasis", `<p><b>a</b><b>b</b></p>`, "**a**b"},
	{"emphasis with nbsp edge", "<p>a<b>\u00a0b</b></p>", "a\u00a0b"},
	{"emphasis with blocks", `<b>a<div>b</div>c</b>`, "**a b c**"},
	{"intraword emphasis in emphasis", `<p><b>x<i>y</i></b>z</p>`, "**xy**z"},
	{"strikethrough next to tildes", `<p><del>~</del> a~<del>b</del></p>`, "\\~ a\\~b"},
	{"inline code", `<p>use <code>x := 1</code> here</p>`, "use `x := 1` here"},
	{"inline code backticks", "<p><code>a`b</code> <code>`x``</code></p>", "``a`b`` ``` `x`` ```"},
	{"inline code spaces outside", "<p>a<code> b  c </code>d</p>", "a `b c` d"},
	{"inline code not escaped", `<p><code>*a* [b] \c</code></p>`, "`*a* [b] \\c`"},
	{"adjacent code spans", `<p><code>a</code><code>b` + "`" + `</code></p>`, "`` ab` ``"},
	{"kbd", `<p><kbd>Ctrl</kbd></p>`, "`Ctrl`"},

	// Code blocks.
	{"pre", "<pre>a\n  b\n</pre>", "```\na\n  b\n```"},
	{"pre code language", `<pre><code class="language-go">x := 1</code></pre>`, "```go\nx := 1\n```"},
	{"pre lang class", `<pre class="lang-py">x = 1</pre>`, "```py\nx = 1\n```"},
	{"pre leading newline", "<pre>\n\nx</pre>", "```\nx\n```"},
	{"pre fence", "<pre>a\n```\nb</pre>", "````\na\n```\nb\n````"},
	{"pre verbatim", "<pre>*a* &lt;b&gt; # c\n\n  d</pre>", "```\n*a* <b> # c\n\n  d\n```"},
	{"pre br and spans", `<pre><span>a</span><br><span>b</span></pre>`, "```\na\nb\n```"},
	{"pre blank", "<pre>  \n </pre><p>x</p>", "x"},

	// Quotes and lists.
	{"blockquote", `<blockquote><p>a</p><p>b</p></blockquote>`, "> a\n>\n> b"},
	{"nested blockquote", `<blockquote>a<blockquote>b</blockquote></blockquote>`, "> a\n>\n> > b"},
	{"unordered list", `<ul><li>a</li><li>b</li></ul>`, "- a\n- b"},
	{"ordered list", `<ol><li>a</li><li>b</li></ol>`, "1. a\n2. b"},
	{"ordered list start", `<ol start="9"><li>a</li><li>b<br>c</li></ol>`, "9. a\n10. b\\\n    c"},
	{"nested list", `<ul><li>a<ul><li>b<ol><li>c</li></ol></li></ul></li><li>d</li></ul>`, "- a\n  - b\n    1. c\n- d"},
	{"list item paragraphs", `<ul><li><p>a</p><p>b</p></li><li>c</li></ul>`, "- a\n\n  b\n- c"},
	{"list item blocks", "<ol><li><h3>T</h3><pre>x\ny</pre><blockquote>q</blockquote></li></ol>", "1. ### T\n\n   ```\n   x\n   y\n   ```\n\n   > q"},
	{"list after text", `<p>a</p><ul><li>b</li></ul><p>c</p>`, "a\n\n- b\n\nc"},
	{"list in quote", `<blockquote><ul><li>a</li><li>b</li></ul></blockquote>`, "> - a\n> - b"},
	{"nested ordered list not at 1", `<ul><li>a<ol start="3"><li>b</li></ol></li></ul>`, "- a\n\n  3. b"},
	{"list with stray text", `<ol start="3">x<li>a</li></ol>`, "x\n\n3. a"},
	{"list numbers skip empty items", `<ol><li>a</li><li></li><li>b</li></ol>`, "1. a\n2. b"},
	{"empty items", `<ul><li></li><li>a</li><li> </li></ul>`, "- a"},
	{"definition list", `<dl><dt>Term</dt><dd>Definition</dd><dt>T2</dt><dd><p>D2</p></dd></dl>`, "**Term**\n\nDefinition\n\n**T2**\n\nD2"},
	{"figure", `<figure><img src="/a.png" alt="A"><figcaption>Caption</figcaption></figure>`, "![A](https://example.com/a.png)\n\nCaption"},
	{"details", `<details><summary>More</summary><p>Hidden text</p></details>`, "More\n\nHidden text"},

	// Links and images.
	{"link", `<a href="/x">text</a>`, "[text](https://example.com/x)"},
	{"link relative", `<a href="y?a=1&amp;b=2#f">t</a>`, "[t](https://example.com/dir/y?a=1&b=2#f)"},
	{"link absolute", `<a href="http://other.example/a b">t</a>`, "[t](http://other.example/a%20b)"},
	{"link parentheses", `<a href="https://en.wikipedia.org/wiki/Go_(language)">Go</a>`, "[Go](https://en.wikipedia.org/wiki/Go_%28language%29)"},
	{"link javascript", `<a href="javascript:alert(1)">js</a> <a href=" JavaScript:x">js2</a>`, "js js2"},
	{"link empty href", `<a href="">a</a> <a>b</a>`, "a b"},
	{"link without text", `<p>a<a href="/x"></a><a href="/y"> </a>b</p>`, "a b"},
	{"link with image", `<a href="/x"><img src="/i.png"></a>`, "[![](https://example.com/i.png)](https://example.com/x)"},
	{"link in link", `<a href="/x">a <span><a href="/y">b</a></span></a>`, "[a](https://example.com/x) [b](https://example.com/y)"},
	{"link with blocks", `<a href="/x"><div><h3>Title</h3><p>Text</p></div></a>`, "[Title Text](https://example.com/x)"},
	{"link after bang", `<p>Wow!<a href="/x">link</a></p>`, "Wow\\![link](https://example.com/x)"},
	{"link entity in url", `<a href="/a?x=1&amp;copy;">t</a>`, "[t](https://example.com/a?x=1\\&copy;)"},
	{"image", `<img src="i.png" alt="An *image*">`, "![An \\*image\\*](https://example.com/dir/i.png)"},
	{"image data uri", `<p>a <img src="data:image/png;base64,AAAA" alt="chart"> <img src="data:image/gif;base64,R0"> b</p>`, "a chart b"},
	{"image without src", `<img alt="x">`, "x"},

	// Tables.
	{"table thead", `<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>`, "| a | b |\n| --- | --- |\n| 1 | 2 |"},
	{"table th row", `<table><tr><th>a</th></tr><tr><td>1</td></tr></table>`, "| a |\n| --- |\n| 1 |"},
	{"table td row", `<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>`, "| a | b |\n| --- | --- |\n| 1 | 2 |"},
	{"table padding", `<table><tr><td>a</td></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>`, "| a |  |  |\n| --- | --- | --- |\n| 1 | 2 | 3 |"},
	{"table cell content", `<table><tr><td>a|b<br>c<p>d</p><ul><li>e</li></ul></td></tr></table>`, "| a\\|b c d e |\n| --- |"},
	{"table nested", `<table><tr><td>x<table><tr><td>a</td><td>b</td></tr></table></td></tr></table>`, "| x a b |\n| --- |"},
	{"table caption", `<p>p</p><table><caption>Cap</caption><tr><td>a</td></tr></table><p>q</p>`, "p\n\nCap\n\n| a |\n| --- |\n\nq"},
	{"table caption after rows", `<table><tr><td>a</td></tr><caption>Cap</caption></table>`, "| a |\n| --- |\n\nCap"},
	{"table caption between rows", `<table><tr><td>a</td></tr><caption>Cap</caption><tr><td>b</td></tr></table>`, "| a |\n| --- |\n\nCap\n\n| b |\n| --- |"},
	{"table code pipe", `<table><tr><td><code>a|b</code></td></tr></table>`, "| `a\\|b` |\n| --- |"},
	{"table no cells", `<table><tr></tr></table><p>x</p>`, "x"},
	{"table in list", `<ul><li>a<table><tr><td>b</td></tr></table></li></ul>`, "- a\n\n  | b |\n  | --- |"},
	{"table emphasis", `<table><tr><td><b>a.</b></td><td><i>b</i></td></tr></table>`, "| **a.** | *b* |\n| --- | --- |"},

	// Skipped content.
	{"skipped elements", `<p>a</p><script>s()</script><style>p{}</style><noscript>n</noscript><template>t</template><iframe src="/f"></iframe><svg><text>svg</text></svg><canvas>c</canvas><video>v</video><audio>au</audio><object>o</object><select><option>o</option></select><textarea>ta</textarea><input value="i"><p>b</p>`, "a\n\nb"},
	{"button text kept", `<p><button>Show more</button></p>`, "Show more"},
	{"head skipped", `<html><head><title>T</title><meta charset="utf-8"></head><body><p>b</p></body></html>`, "b"},
	{"hidden", `<p>a</p><p hidden>h</p><div aria-hidden="true">ah</div><span style="color:red; DISPLAY : none">dn</span><p style="display:noneish">shown</p><p aria-hidden="false">shown2</p>`, "a\n\nshown\n\nshown2"},
	{"comments", `<p>a<!-- c -->b</p>`, "ab"},
	{"math text", `<p>x <math><mi>y</mi></math></p>`, "x y"},

	// Escaping.
	{"escape always", `<p>\ ` + "`" + ` * _ [ ] &lt; ~</p>`, "\\\\ \\` \\* \\_ \\[ \\] \\< \\~"},
	{"escape not ordinary punctuation", `<p>a. b, c! (d) e: f; g? h' "i" {j} $k% ^l @m</p>`, "a. b, c! (d) e: f; g? h' \"i\" {j} $k% ^l @m"},
	{"escape at line start", `<p># a</p><p>&gt; b</p><p>+ c</p><p>- d</p><p>= e</p><p>| f</p><p>: g</p>`, "\\# a\n\n\\> b\n\n\\+ c\n\n\\- d\n\n\\= e\n\n\\| f\n\n\\: g"},
	{"escape only at line start", `<p>a # b &gt; c + d - e = f | g</p>`, "a # b > c + d - e = f | g"},
	{"escape after hard break", `<p>a<br># b<br>- c</p>`, "a\\\n\\# b\\\n\\- c"},
	{"escape list numbers", `<p>1. a</p><p>2) b</p><p>1.</p><p>1.5 c</p><p>1234567890. d</p>`, "1\\. a\n\n2\\) b\n\n1\\.\n\n1.5 c\n\n1234567890. d"},
	{"escape list number across elements", `<p><span>1</span>. a</p>`, "1\\. a"},
	{"escape in list items", `<ul><li># a</li><li>1. b</li></ul>`, "- \\# a\n- 1\\. b"},
	{"escape entities", `<p>&amp;amp; &amp;#35; &amp;x AT&amp;T, &amp; b</p>`, "\\&amp; \\&#35; &x AT&T, & b"},
	{"escape pipe outside table", `<p>a | b</p>`, "a | b"},
	{"escape thematic break", `<p>***</p><p>---</p><p>___</p>`, "\\*\\*\\*\n\n\\---\n\n\\_\\_\\_"},
	{"escape fences", "<p>```</p><p>~~~</p>", "\\`\\`\\`\n\n\\~\\~\\~"},
	{"escape html", `<p>&lt;div&gt; &lt;http://x&gt;</p>`, "\\<div> \\<http://x>"},
	{"invalid utf-8", "<p>a\xffb</p>", "a\uFFFDb"},
}

func TestRender(t *testing.T) {
	for _, tc := range goldens {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(t, tc.in); got != tc.want {
				t.Errorf("Render(%q)\n got: %q\nwant: %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestRenderElement(t *testing.T) {
	doc, _ := html.Parse(strings.NewReader(`<nav>menu</nav><article id="a"><h1>T</h1><p>x <a href="p">y</a></p></article>`))
	var article *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && attr(n, "id") == "a" {
			article = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if got, want := Render(article, Options{}), "# T\n\nx [y](p)"; got != want {
		t.Errorf("Render(article) = %q, want %q", got, want)
	}
}

func TestWideTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("<table><tr>")
	for i := range maxColumns + 2 {
		fmt.Fprintf(&b, "<td>%d</td>", i)
	}
	b.WriteString("</tr><tr><td>x</td></tr></table>")
	lines := strings.Split(render(t, b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	if got, want := strings.Count(lines[1], "---"), maxColumns; got != want {
		t.Errorf("%d columns, want %d", got, want)
	}
	if !strings.HasSuffix(lines[0], "| 63 64 65 |") {
		t.Errorf("header row ends %q, want the cells past the limit in the last one", lines[0][len(lines[0])-20:])
	}
	if want := "| x |" + strings.Repeat("  |", maxColumns-1); lines[2] != want {
		t.Errorf("short row %q, want %q", lines[2], want)
	}
}
