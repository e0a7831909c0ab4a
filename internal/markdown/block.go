package markdown

import (
	"bytes"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxOrdinal is the largest number CommonMark allows as a list marker.
const maxOrdinal = 999_999_999

// A segKind is the kind of a line prefix segment.
type segKind uint8

const (
	segQuote   segKind = iota // "> "
	segBullet                 // "- ", then two spaces
	segOrdered                // "1. ", then as many spaces
	segHeading                // "## ", on the one line of a heading
)

// A segment is one level of line prefix. Its marker is written on the
// first line that has content; later lines get its continuation.
type segment struct {
	kind    segKind
	n       int  // the item number, or the heading level
	started bool // the marker has been written
	pos     int  // for a heading, where its text starts in buf
}

// writeMarker appends the segment's first-line marker.
func (r *renderer) writeMarker(s *segment) {
	switch s.kind {
	case segQuote:
		r.buf = append(r.buf, '>', ' ')
	case segBullet:
		r.buf = append(r.buf, '-', ' ')
	case segOrdered:
		r.buf = strconv.AppendInt(r.buf, int64(s.n), 10)
		r.buf = append(r.buf, '.', ' ')
	case segHeading:
		for range s.n {
			r.buf = append(r.buf, '#')
		}
		r.buf = append(r.buf, ' ')
		s.pos = len(r.buf)
	}
}

// writeCont appends the segment's continuation prefix.
func (r *renderer) writeCont(s *segment) {
	switch s.kind {
	case segQuote:
		r.buf = append(r.buf, '>', ' ')
	case segBullet:
		r.buf = append(r.buf, ' ', ' ')
	case segOrdered:
		for range digits(s.n) + 2 {
			r.buf = append(r.buf, ' ')
		}
	}
}

func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// prefix writes the line prefix of the current line.
func (r *renderer) prefix() {
	heading := false
	for i := range r.segs {
		s := &r.segs[i]
		if s.started {
			r.writeCont(s)
			continue
		}
		r.writeMarker(s)
		s.started = true
		heading = heading || s.kind == segHeading
	}
	r.needPrefix = false
	r.bol = true
	// Block syntax is recognised at the start of a line, but not in a
	// heading's text.
	r.lineStart = !heading
	r.lineDigits = 0
	if heading {
		r.lineDigits = -1
	}
}

// newline ends the current line and writes the next one's prefix; a blank
// line gets its prefix without trailing spaces.
func (r *renderer) newline(blank bool) {
	r.buf = append(r.buf, '\n')
	r.prefix()
	if blank {
		r.trimLine()
	}
}

// trimLine removes spaces at the end of buf, back to the last newline.
func (r *renderer) trimLine() {
	i := len(r.buf)
	for i > 0 && r.buf[i-1] == ' ' {
		i--
	}
	r.buf = r.buf[:i]
}

// lineBreaks writes the owed block separation or hard line breaks and the
// prefix of the new line.
func (r *renderer) lineBreaks() {
	r.resolve(' ') // closers at the end of a line stand
	r.space = false
	switch {
	case r.sep > 0 && r.written():
		r.buf = append(r.buf, '\n')
		if r.sep > 1 {
			// The blank line carries only the prefixes already started.
			for i := range r.segs {
				if r.segs[i].started {
					r.writeCont(&r.segs[i])
				}
			}
			r.trimLine()
			r.buf = append(r.buf, '\n')
		}
		r.needPrefix = true
	case r.sep == 0 && r.brk > 0:
		for range r.brk {
			if r.needPrefix {
				r.prefix()
			}
			if len(r.buf) > 0 && r.buf[len(r.buf)-1] == '\\' {
				// goldmark takes no backslash break after a backslash.
				r.buf = append(r.buf, ' ', ' ', '\n')
			} else {
				r.buf = append(r.buf, '\\', '\n')
			}
			r.needPrefix = true
		}
	}
	r.sep, r.brk = 0, 0
	if r.needPrefix {
		r.prefix()
	}
}

// endInline ends the current run of inline content: owed spaces and line
// breaks are dropped and closers written so far stand.
func (r *renderer) endInline() {
	r.space = false
	r.brk = 0
	r.risky = r.risky[:0]
}

// openBlock starts a block: it is separated from content before it by a
// blank line.
func (r *renderer) openBlock() {
	r.endInline()
	if r.wrote {
		r.sep = 2
	}
}

// closeBlock ends a block.
func (r *renderer) closeBlock() {
	r.endInline()
	if r.wrote {
		r.sep = 2
	}
	if len(r.buf) >= spillSize && len(r.frames) == 0 {
		r.spill()
	}
}

// flatten renders a block element's content as inline text, set off by
// spaces, where a block cannot be (in a heading, table cell, link or
// emphasis).
func (r *renderer) flatten(n *html.Node) {
	r.spaceOwed()
	r.children(n)
	r.spaceOwed()
}

// block renders a block container: div, p, section and the like.
func (r *renderer) block(n *html.Node) {
	if r.inline > 0 {
		r.flatten(n)
		return
	}
	r.openBlock()
	r.children(n)
	r.closeBlock()
}

// container renders the children of n in a new container with line
// prefix segment s, and reports whether they wrote anything.
func (r *renderer) container(n *html.Node, s segment) bool {
	saved := r.wrote
	r.wrote = false
	r.segs = append(r.segs, s)
	r.children(n)
	r.endInline()
	r.segs = r.segs[:len(r.segs)-1]
	wrote := r.wrote
	r.wrote = saved || wrote
	return wrote
}

// quote renders a blockquote.
func (r *renderer) quote(n *html.Node) {
	if r.inline > 0 {
		r.flatten(n)
		return
	}
	r.openBlock()
	r.container(n, segment{kind: segQuote})
	r.closeBlock()
}

// list renders a ul or ol element.
func (r *renderer) list(n *html.Node, ordered bool) {
	if r.inline > 0 {
		r.flatten(n)
		return
	}
	num := 1
	if ordered {
		if v, err := strconv.Atoi(trimSpace(attr(n, "start"))); err == nil {
			num = min(max(v, 0), maxOrdinal)
		}
	}
	r.endInline()
	if r.wrote {
		// A list right after an item's text nests without a blank line,
		// if it can interrupt a paragraph (an ordered one must start at 1).
		if len(r.segs) > 0 && r.segs[len(r.segs)-1].kind != segQuote && (!ordered || num == 1) {
			r.sep = max(r.sep, 1)
		} else {
			r.sep = 2
		}
	}
	stray := false // content outside items was written: the next item needs a blank line
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !isElement(c, atom.Li) {
			size := r.size()
			r.node(c)
			stray = stray || r.size() != size
			continue
		}
		if skipped(c) {
			continue
		}
		if stray {
			r.endInline()
			r.sep, stray = 2, false
		}
		s := segment{kind: segBullet}
		if ordered {
			s = segment{kind: segOrdered, n: num}
		}
		if r.item(c, s) && ordered {
			num = min(num+1, maxOrdinal) // empty items are left out, numbers too
		}
	}
	r.closeBlock()
}

// item renders a list item with marker segment s, and reports whether it
// wrote anything.
func (r *renderer) item(n *html.Node, s segment) bool {
	if r.inline > 0 {
		r.flatten(n)
		return false
	}
	r.endInline()
	if r.wrote {
		r.sep = max(r.sep, 1)
	}
	if !r.container(n, s) {
		return false
	}
	r.sep = 1 // items follow each other without a blank line
	return true
}

// heading renders an h1 to h6 element as an ATX heading.
func (r *renderer) heading(n *html.Node, level int) {
	if r.inline > 0 {
		r.flatten(n)
		return
	}
	r.openBlock()
	r.segs = append(r.segs, segment{kind: segHeading, n: level})
	r.inline++
	r.oneLine++
	r.children(n)
	r.oneLine--
	r.inline--
	r.endInline()
	s := r.segs[len(r.segs)-1]
	r.segs = r.segs[:len(r.segs)-1]
	if s.started {
		r.escapeClosingHashes(s.pos)
	}
	r.closeBlock()
}

// escapeClosingHashes escapes a run of '#' that ends the heading text
// starting at buf[start:] and would be taken for its closing sequence.
func (r *renderer) escapeClosingHashes(start int) {
	i := len(r.buf)
	for i > start && r.buf[i-1] == '#' {
		i--
	}
	if i == len(r.buf) || i > start && r.buf[i-1] != ' ' {
		return
	}
	r.buf = append(r.buf, 0)
	copy(r.buf[i+1:], r.buf[i:])
	r.buf[i] = '\\'
}

// rule renders an hr element as a thematic break.
func (r *renderer) rule() {
	if r.inline > 0 {
		r.spaceOwed()
		return
	}
	r.openBlock()
	r.flush('-')
	r.buf = append(r.buf, "---"...)
	r.noText()
	r.closeBlock()
}

// term renders a dt element as a line of bold text.
func (r *renderer) term(n *html.Node) {
	if r.inline > 0 {
		r.emphasis(n, kindStrong)
		return
	}
	r.openBlock()
	r.emphasis(n, kindStrong)
	r.closeBlock()
}

// pre renders a pre element as a fenced code block, or as a code span
// where a block cannot be.
func (r *renderer) pre(n *html.Node) {
	if r.inline > 0 {
		r.code(n)
		return
	}
	r.scratch = gatherPre(r.scratch[:0], n)
	code := trimCode(r.scratch)
	if len(code) == 0 {
		return
	}
	lang := language(n)
	fence := max(3, longestRun(code, '`')+1)
	r.openBlock()
	r.flush('`')
	for range fence {
		r.buf = append(r.buf, '`')
	}
	r.buf = append(r.buf, lang...)
	for len(code) > 0 {
		line := code
		if i := bytes.IndexByte(code, '\n'); i >= 0 {
			line, code = code[:i], code[i+1:]
		} else {
			code = nil
		}
		r.newline(len(line) == 0)
		r.buf = append(r.buf, line...)
	}
	r.newline(false)
	for range fence {
		r.buf = append(r.buf, '`')
	}
	r.noText()
	r.closeBlock()
}

// gatherPre appends the text of the pre element n to dst as it is shown:
// verbatim, with br elements and the ends of blocks as newlines and
// carriage returns made newlines.
func gatherPre(dst []byte, n *html.Node) []byte {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			dst = appendCode(dst, c.Data)
		case html.ElementNode:
			if skipped(c) {
				continue
			}
			if c.DataAtom == atom.Br {
				dst = append(dst, '\n')
				continue
			}
			dst = gatherPre(dst, c)
			if isBlockAtom(c.DataAtom) && len(dst) > 0 && dst[len(dst)-1] != '\n' {
				dst = append(dst, '\n')
			}
		}
	}
	return dst
}

// appendCode appends s to dst as valid UTF-8 with carriage returns made
// newlines and NUL made U+FFFD.
func appendCode(dst []byte, s string) []byte {
	s = validUTF8(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			dst = append(dst, '\n')
		case 0:
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// trimCode drops the blank lines that start code and the whitespace that
// ends it.
func trimCode(code []byte) []byte {
	for {
		i := 0
		for i < len(code) && (code[i] == ' ' || code[i] == '\t' || code[i] == '\f') {
			i++
		}
		if i == len(code) || code[i] != '\n' {
			break
		}
		code = code[i+1:]
	}
	j := len(code)
	for j > 0 && isSpace(code[j-1]) {
		j--
	}
	return code[:j]
}

// isBlockAtom reports whether a starts a new line in preformatted text.
func isBlockAtom(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Pre, atom.Blockquote, atom.Section, atom.Table:
		return true
	}
	return false
}

// language returns the language named by a "language-x" or "lang-x" class
// of the pre element n or of a code element that starts it, if it is
// usable as a fence's info string.
func language(n *html.Node) string {
	if lang := classLanguage(n); lang != "" {
		return lang
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if c.DataAtom == atom.Code {
				return classLanguage(c)
			}
			break
		}
	}
	return ""
}

// classLanguage returns the language named by a class of n.
func classLanguage(n *html.Node) string {
	for _, class := range strings.Fields(attr(n, "class")) {
		lang, ok := strings.CutPrefix(class, "language-")
		if !ok {
			lang, ok = strings.CutPrefix(class, "lang-")
		}
		if ok && lang != "" && strings.IndexFunc(lang, badInfoRune) < 0 {
			return lang
		}
	}
	return ""
}

// badInfoRune reports whether r may not be in the language of a fence.
func badInfoRune(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		r == '-' || r == '_' || r == '+' || r == '#' || r == '.')
}

// longestRun returns the length of the longest run of c in b.
func longestRun(b []byte, c byte) int {
	longest, run := 0, 0
	for _, x := range b {
		if x == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
