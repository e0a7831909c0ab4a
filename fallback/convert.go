package fallback

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/toolgate/toolgate/internal/markdown"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// kind is how a media type is converted.
type kind int

const (
	kindUnsupported kind = iota
	kindSniff            // no usable Content-Type: decide by the body's first bytes
	kindHTML
	kindText
	kindPDF
)

// textTypes are application/* types passed through as text.
var textTypes = map[string]bool{
	"application/json":       true,
	"application/x-ndjson":   true,
	"application/xml":        true,
	"application/yaml":       true,
	"application/x-yaml":     true,
	"application/javascript": true,
}

// classify says how the media type mt is converted.
func classify(mt string) kind {
	switch {
	case mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream":
		return kindSniff
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return kindUnsupported // including image/svg+xml
	case strings.HasPrefix(mt, "text/"), textTypes[mt],
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return kindText
	case mt == "application/pdf" && pdfSupported:
		return kindPDF
	}
	return kindUnsupported
}

// convert turns a body of kind k into a Page (without URL, ContentType and
// Truncated, which the caller sets).
func (f *Fetcher) convert(ctx context.Context, pageURL *url.URL, k kind, mediaType, header string, body []byte, truncated bool) (*Page, error) {
	switch k {
	case kindHTML:
		title, md, err := f.htmlToMarkdown(ctx, pageURL, decodeHTML(body, header))
		if err != nil {
			return nil, &Error{Reason: "converting HTML to Markdown failed: " + err.Error(), Err: err}
		}
		return &Page{Title: title, Text: md}, nil
	case kindText:
		text := decodeText(body, header)
		var title string
		if mediaType == "text/markdown" || mediaType == "text/x-markdown" {
			title = markdownTitle(text)
		}
		return &Page{Title: title, Text: text}, nil
	case kindPDF:
		return pdfPage(ctx, body, truncated, f.opts.MaxBytes)
	}
	return nil, unsupportedType(0, mediaType)
}

// decodeHTML decodes an HTML body to UTF-8 by its byte order mark, the
// Content-Type charset or a <meta> charset in its first 1024 bytes. A
// page that declares nothing is UTF-8 if it is valid UTF-8, else
// windows-1252, as browsers do.
func decodeHTML(body []byte, header string) string {
	e, name, certain := charset.DetermineEncoding(body, header)
	if !certain && name == "windows-1252" && validUTF8(body) {
		// DetermineEncoding looks at 1024 bytes only; the whole body decides.
		e, name = encoding.Nop, "utf-8"
	}
	return decode(body, e, name)
}

// decodeText decodes a text body to UTF-8 by its byte order mark or
// Content-Type charset; without either it is UTF-8 if valid, else
// windows-1252.
func decodeText(body []byte, header string) string {
	for _, b := range []struct {
		bom   []byte
		label string
	}{{[]byte{0xEF, 0xBB, 0xBF}, "utf-8"}, {[]byte{0xFE, 0xFF}, "utf-16be"}, {[]byte{0xFF, 0xFE}, "utf-16le"}} {
		if bytes.HasPrefix(body, b.bom) {
			e, name := charset.Lookup(b.label)
			return decode(body, e, name)
		}
	}
	if _, params, err := mime.ParseMediaType(header); err == nil && params["charset"] != "" {
		if e, name := charset.Lookup(params["charset"]); e != nil {
			return decode(body, e, name)
		}
	}
	if validUTF8(body) {
		return decode(body, encoding.Nop, "utf-8")
	}
	return decode(body, charmap.Windows1252, "windows-1252")
}

// decode converts body from encoding e to valid UTF-8, dropping a UTF-8
// byte order mark.
func decode(body []byte, e encoding.Encoding, name string) string {
	if name == "utf-8" {
		body = bytes.TrimPrefix(body, []byte{0xEF, 0xBB, 0xBF})
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	out, err := e.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

// validUTF8 reports whether b is valid UTF-8, but for a rune cut off at
// its end (a body cut at the size limit).
func validUTF8(b []byte) bool {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return utf8.Valid(b)
}

// markdownTitle returns the text of a Markdown document's first level-one
// ATX heading, if it is among its first lines.
func markdownTitle(text string) string {
	lines := strings.SplitN(text, "\n", 21)
	for _, line := range lines[:min(len(lines), 20)] {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// htmlToMarkdown converts a decoded HTML page to Markdown, after keeping
// only its main content if Options.MainContent is set. Relative links are
// made absolute against pageURL.
func (f *Fetcher) htmlToMarkdown(ctx context.Context, pageURL *url.URL, src string) (title, md string, err error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", "", fmt.Errorf("parsing HTML: %w", err)
	}
	title = documentTitle(doc)
	node := doc
	if f.opts.MainContent {
		node, title = mainContent(doc, src, pageURL, title)
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	md = markdown.Render(node, markdown.Options{Base: pageURL})
	if f.opts.MainContent && title != "" && !strings.Contains(firstLines(md, 3), title) {
		// Readability takes the title out of the content; put it back.
		md = "# " + title + "\n\n" + md
	}
	return title, md, nil
}

// mainContent returns the node holding the main content of doc, found by
// readability after the page's navigation, banner, footer and sidebars are
// taken out, and the article's title. When readability finds nothing, it
// returns src parsed anew with only the boilerplate taken out.
func mainContent(doc *html.Node, src string, pageURL *url.URL, title string) (*html.Node, string) {
	stripBoilerplate(doc)
	p := readability.NewParser()
	p.DisableJSONLD = true
	article, err := p.ParseAndMutate(doc, pageURL)
	if err == nil && article.Node != nil && strings.TrimSpace(textOf(article.Node)) != "" {
		if t := strings.TrimSpace(article.Title()); t != "" {
			title = t
		}
		return article.Node, title
	}
	// ParseAndMutate changed doc; start again from the source.
	doc, err = html.Parse(strings.NewReader(src))
	if err != nil {
		return &html.Node{Type: html.DocumentNode}, title
	}
	stripBoilerplate(doc)
	return doc, title
}

// boilerplateRoles are ARIA landmark roles of page furniture.
var boilerplateRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true}

// stripBoilerplate removes the page's navigation and sidebars, its
// banner and footer, and elements with their ARIA roles. A header or
// footer inside an article or main element belongs to it and stays.
func stripBoilerplate(doc *html.Node) {
	var doomed []*html.Node
	var visit func(n *html.Node, inArticle bool)
	visit = func(n *html.Node, inArticle bool) {
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom == atom.Nav, n.DataAtom == atom.Aside,
				!inArticle && (n.DataAtom == atom.Header || n.DataAtom == atom.Footer),
				boilerplateRoles[attr(n, "role")]:
				doomed = append(doomed, n)
				return
			}
			inArticle = inArticle || n.DataAtom == atom.Article || n.DataAtom == atom.Main
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, inArticle)
		}
	}
	visit(doc, false)
	for _, n := range doomed {
		n.Parent.RemoveChild(n)
	}
}

// attr returns the value of n's attribute key, lower-cased.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return strings.ToLower(strings.TrimSpace(a.Val))
		}
	}
	return ""
}

// documentTitle returns the text of the document's <title>.
func documentTitle(doc *html.Node) string {
	var t *html.Node
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			t = n
			return false
		}
		return t == nil && n.DataAtom != atom.Body && n.DataAtom != atom.Svg
	})
	if t == nil {
		return ""
	}
	return strings.Join(strings.Fields(textOf(t)), " ")
}

// walk calls visit on n and its descendants in document order; visit
// returns whether to descend into a node's children.
func walk(n *html.Node, visit func(*html.Node) bool) {
	if !visit(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

// textOf returns the text content of n.
func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i]
}
