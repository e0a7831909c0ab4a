// Package markdown renders an HTML tree, as parsed by golang.org/x/net/html,
// as Markdown for a language model to read.
//
// The output is CommonMark with two GitHub extensions, pipe tables and
// strikethrough. Headings are ATX headings, lists use "-" and "1." markers,
// code blocks are fenced, and a hard line break is a backslash at the end
// of the line (two spaces where the line already ends with a backslash).
// Blocks are separated by one blank line; the output has no leading or
// trailing blank lines and does not end with a newline.
//
// Text is escaped so that a CommonMark reader sees the same text: \ ` * _
// [ ] < and ~ always, | in tables, & where it would start an entity, and
// block syntax (# > + - = : | and "1." or "1)") at the start of a line.
// Emphasis that CommonMark would not read as emphasis where it stands,
// such as bold punctuation inside a word, is written as plain text.
//
// Where a block cannot be, in a heading, a table cell, a link or emphasis,
// block elements are flattened into the text. A table's first row is its
// header; rows are padded to the widest, up to 64 columns.
//
// Scripts, styles, form controls, embedded media, SVG, the document head
// and elements hidden by the hidden attribute, aria-hidden="true" or an
// inline display:none style are left out; so are data: image sources, for
// which the alt text stands, and javascript: links, for which the text
// does. Buttons keep their text.
//
// Rendering is a single pass over the tree into one buffer: a page of a
// megabyte renders in a few milliseconds.
package markdown

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Options control rendering.
type Options struct {
	// Base, if not nil, is the URL that relative links and image sources
	// are resolved against.
	Base *url.URL
}

// Render returns n, an HTML document or any node of one, as Markdown.
func Render(n *html.Node, opts Options) string {
	r := renderer{
		base:       opts.Base,
		buf:        make([]byte, 0, 4096),
		needPrefix: true,
		bol:        true,
		closerEnd:  -1,
		bang:       -1,
		codeEnd:    -1,
	}
	if b := opts.Base; b != nil && b.Host != "" && b.Opaque == "" {
		r.origin = (&url.URL{Scheme: b.Scheme, User: b.User, Host: b.Host}).String()
	}
	r.node(n)
	r.spill()
	return r.out.String()
}

// renderer holds the state of one rendering. Output is written lazily:
// separators, line prefixes, collapsed spaces and inline openers are owed
// until content follows them, so that nothing dangles at the end of a
// block or of the output.
type renderer struct {
	out    strings.Builder // the output, but for buf
	buf    []byte          // the output's end, still open to changes
	base   *url.URL
	origin string // scheme and host of base, for links relative to its root

	// Block state.
	segs       []segment // prefixes of the enclosing quotes, list items and heading
	sep        int       // newlines owed before the next content: 0, 1 or 2 (a blank line)
	brk        int       // hard line breaks owed before the next content
	needPrefix bool      // the current line has not got its prefix yet
	wrote      bool      // the innermost quote or list item (or the output) holds content
	lineStart  bool      // no text yet on this line, so block syntax in text is escaped
	lineDigits int       // how many digits the line's text is so far, or -1 if it is more

	// Inline state.
	space     bool          // a collapsed space is owed before the next content
	bol       bool          // nothing written since the line's prefix or the cell's start
	inline    int           // > 0: block elements are flattened into the surrounding text
	oneLine   int           // > 0: line breaks become spaces (headings, table cells)
	cell      bool          // in a table cell, where '|' is escaped
	frames    []frame       // open emphasis and link elements, outermost first
	active    [numKinds]int // open frames of each kind
	unwritten int           // frames[unwritten:] have their openers owed
	risky     []pair        // closers that stand only if no letter follows them
	closerEnd int           // len(buf) just after the last closer written, or -1
	bang      int           // len(buf) just after a '!' of text, or -1
	codeStart int           // where the last code span starts in buf
	codeEnd   int           // len(buf) just after the last code span, or -1
	lastCode  []byte        // the last code span's text

	scratch []byte       // code text being gathered
	rows    []*html.Node // the rows of the table being rendered
}

// spillSize is how much output buf holds before it moves to out at the
// end of a block.
const spillSize = 32 << 10

// spill moves buf to out. It is called between blocks, where no offset
// into buf is kept.
func (r *renderer) spill() {
	if free := r.out.Cap() - r.out.Len(); free < len(r.buf) {
		r.out.Grow(max(len(r.buf), r.out.Cap())) // double, rather than grow by a quarter
	}
	r.out.Write(r.buf)
	r.buf = r.buf[:0]
	r.closerEnd, r.bang, r.codeEnd = -1, -1, -1
}

// written reports whether any output has been written.
func (r *renderer) written() bool { return len(r.buf) > 0 || r.out.Len() > 0 }

// size returns the length of the output so far.
func (r *renderer) size() int { return r.out.Len() + len(r.buf) }

// node renders n.
func (r *renderer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		r.text(n.Data)
	case html.ElementNode:
		r.element(n)
	case html.DocumentNode:
		r.children(n)
	}
}

// children renders the children of n.
func (r *renderer) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.node(c)
	}
}

// element renders the element n according to its kind.
func (r *renderer) element(n *html.Node) {
	if skipped(n) {
		return
	}
	if n.Namespace != "" { // MathML: its text only
		r.children(n)
		return
	}
	switch a := n.DataAtom; a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		r.heading(n, int(headingLevel(a)))
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header,
		atom.Footer, atom.Nav, atom.Aside, atom.Address, atom.Center, atom.Figure,
		atom.Figcaption, atom.Details, atom.Summary, atom.Dialog, atom.Fieldset,
		atom.Legend, atom.Form, atom.Hgroup, atom.Dl, atom.Dd, atom.Body, atom.Html,
		atom.Caption, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Frameset, atom.Noframes:
		r.block(n)
	case atom.Ul, atom.Menu, atom.Dir:
		r.list(n, false)
	case atom.Ol:
		r.list(n, true)
	case atom.Li:
		r.item(n, segment{kind: segBullet})
	case atom.Blockquote:
		r.quote(n)
	case atom.Pre, atom.Listing, atom.Xmp, atom.Plaintext:
		r.pre(n)
	case atom.Hr:
		r.rule()
	case atom.Table:
		r.table(n)
	case atom.Td, atom.Th: // outside a table
		r.spaceOwed()
		r.children(n)
		r.spaceOwed()
	case atom.Dt:
		r.term(n)
	case atom.Br:
		r.lineBreak()
	case atom.Strong, atom.B:
		r.emphasis(n, kindStrong)
	case atom.Em, atom.I:
		r.emphasis(n, kindEm)
	case atom.Del, atom.S, atom.Strike:
		r.emphasis(n, kindDel)
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		r.code(n)
	case atom.A:
		r.link(n)
	case atom.Img:
		r.image(n)
	default:
		r.children(n)
	}
}

// headingLevel returns the level of a heading element's atom.
func headingLevel(a atom.Atom) byte {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	}
	return 6
}

// skipped reports whether the element n and all it holds are left out:
// it is not shown, or shows nothing a reader of text can use.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Title,
		atom.Meta, atom.Link, atom.Base, atom.Iframe, atom.Frame, atom.Object, atom.Embed,
		atom.Param, atom.Canvas, atom.Audio, atom.Video, atom.Source, atom.Track,
		atom.Input, atom.Select, atom.Option, atom.Optgroup, atom.Datalist,
		atom.Textarea, atom.Area, atom.Svg:
		return true
	}
	if n.Namespace == "svg" {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if equalFoldTrim(a.Val, "true") {
				return true
			}
		case "style":
			if displayNone(a.Val) {
				return true
			}
		}
	}
	return false
}

// attr returns the value of n's attribute key.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

// htmlSpace is the whitespace of HTML.
const htmlSpace = " \t\n\f\r"

// equalFoldTrim reports whether s, without surrounding HTML whitespace, is
// lower, ignoring case.
func equalFoldTrim(s, lower string) bool {
	return strings.EqualFold(trimSpace(s), lower)
}

// displayNone reports whether the inline style s has display: none.
func displayNone(s string) bool {
	for i := 0; i+len("display") <= len(s); i++ {
		if !hasPrefixFold(s[i:], "display") {
			continue
		}
		if i > 0 && isNameByte(s[i-1]) { // e.g. "-webkit-display" is not it
			continue
		}
		j := skipSpace(s, i+len("display"))
		if j >= len(s) || s[j] != ':' {
			continue
		}
		j = skipSpace(s, j+1)
		if hasPrefixFold(s[j:], "none") && (j+4 == len(s) || !isNameByte(s[j+4])) {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// hasPrefixFold reports whether s begins with prefix, ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// trimSpace trims HTML whitespace from both ends of s.
func trimSpace(s string) string { return strings.Trim(s, htmlSpace) }
