package markdown

import (
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A kind is the kind of an inline frame.
type kind uint8

const (
	kindStrong kind = iota
	kindEm
	kindDel
	kindLink
	numKinds
)

// delims are the delimiters of the emphasis kinds.
var delims = [...]string{kindStrong: "**", kindEm: "*", kindDel: "~~"}

// A frame is an open emphasis or link element.
type frame struct {
	kind kind
	pos  int    // offset of the opener in buf, or notWritten or dropped
	href string // a link's href
}

const (
	notWritten = -1 // the opener is owed until content comes
	dropped    = -2 // the opener could not be written where content came
)

// A pair is an emphasis opener and closer written in buf.
type pair struct {
	open, close int // their offsets
	n           int // the delimiter's length
}

// spaceOwed notes collapsed whitespace, unless it leads a line or cell.
func (r *renderer) spaceOwed() {
	if !r.bol {
		r.space = true
	}
}

// noText records that something other than text or an opener was just
// written: the line's start is past and no closer ends buf.
func (r *renderer) noText() {
	r.lineStart = false
	r.lineDigits = -1
	r.bol = false
	r.closerEnd = -1
}

// text writes a text node's data with whitespace collapsed and Markdown
// syntax escaped.
func (r *renderer) text(s string) {
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			r.spaceOwed()
			continue
		}
		c := rune(s[i])
		if c >= utf8.RuneSelf {
			c, _ = utf8.DecodeRuneInString(s[i:])
		}
		r.flush(c)
		i = r.run(s, i)
	}
}

// run writes s[i:] after its owed prefixes have been written, up to
// trailing whitespace, and returns where it stopped.
func (r *renderer) run(s string, i int) int {
	for i < len(s) {
		if !r.lineStart && r.lineDigits < 0 {
			start := i
			for i < len(s) {
				// Plain bytes, and single spaces between them, go as they are.
				if c := textClass[s[i]]; c != plain && (s[i] != ' ' || i+1 == len(s) || textClass[s[i+1]] != plain) {
					break
				}
				i++
			}
			r.buf = append(r.buf, s[start:i]...)
			if i == len(s) {
				break
			}
		}
		if isSpace(s[i]) {
			j := i + 1
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			if j == len(s) {
				return i // owed, in case a block or the end follows
			}
			r.buf = append(r.buf, ' ')
			r.lineDigits = -1
			i = j
			continue
		}
		i = r.char(s, i)
	}
	if r.buf[len(r.buf)-1] == '!' {
		r.bang = len(r.buf)
	}
	return len(s)
}

// char writes the character at s[i], escaped if it must be, and returns
// the index of the next one.
func (r *renderer) char(s string, i int) int {
	c := s[i]
	if c >= utf8.RuneSelf {
		ru, n := utf8.DecodeRuneInString(s[i:])
		if ru == utf8.RuneError && n == 1 {
			r.buf = append(r.buf, "\uFFFD"...)
		} else {
			r.buf = append(r.buf, s[i:i+n]...)
		}
		r.lineStart, r.lineDigits = false, -1
		return i + n
	}
	if c == 0 {
		r.buf = append(r.buf, "\uFFFD"...)
		r.lineStart, r.lineDigits = false, -1
		return i + 1
	}
	var esc bool
	switch {
	case textClass[c] == always:
		esc = true
	case c == '&':
		esc = entityLike(s[i+1:])
	case c == '|':
		esc = r.cell || r.lineStart
	case r.lineStart:
		// Headings, quotes, list items, setext underlines, table
		// delimiter rows.
		esc = c == '#' || c == '>' || c == '+' || c == '-' || c == '=' || c == ':'
	case c == '.' || c == ')':
		// After 1 to 9 digits, an ordered list marker.
		esc = r.lineDigits > 0 && (i+1 == len(s) || isSpace(s[i+1]))
	}
	if '0' <= c && c <= '9' && r.lineDigits >= 0 && r.lineDigits < 9 {
		r.lineDigits++
	} else {
		r.lineDigits = -1
	}
	r.lineStart = false
	if esc {
		r.buf = append(r.buf, '\\')
	}
	r.buf = append(r.buf, c)
	return i + 1
}

// flush writes what is owed before content whose first character is c:
// line breaks and the line prefix, or a space; then the owed openers.
func (r *renderer) flush(c rune) {
	if r.sep > 0 || r.brk > 0 || r.needPrefix {
		r.lineBreaks()
	} else if r.space {
		r.resolve(' ')
		r.buf = append(r.buf, ' ')
		r.space = false
		r.lineDigits = -1
	}
	if r.unwritten < len(r.frames) {
		r.openFrames(c)
	} else {
		r.resolve(c)
	}
	r.wrote = true
	r.bol = false
}

// openFrames writes the owed openers before content whose first character
// is c. An emphasis opener that CommonMark would not take as one where it
// stands is dropped, and so is its closer.
func (r *renderer) openFrames(c rune) {
	prev := r.lastRune()
	first, written, link := c, false, false
	for i := r.unwritten; i < len(r.frames); i++ {
		f := &r.frames[i]
		ch := byte('[')
		if f.kind != kindLink {
			ch = delims[f.kind][0]
			next := c
			if i+1 < len(r.frames) && !isSpaceRune(c) {
				next = '*' // another opener, unless it is dropped
			}
			adjacent := !written && r.closerEnd == len(r.buf) && len(r.buf) > 0 && r.buf[len(r.buf)-1] == ch
			// Inside a word, '*' could close an enclosing '*' instead.
			ambiguous := ch == '*' && rightFlanking(prev, next) && r.starOpen(i)
			// GitHub's strikethrough takes no "~~" right after a '~'.
			if adjacent || ambiguous || ch == '~' && prev == '~' || !leftFlanking(prev, next) {
				f.pos = dropped
				continue
			}
		} else {
			link = true
		}
		f.pos = 0 // to be written
		if !written {
			first, written = rune(ch), true
		}
		prev = rune(ch)
	}
	r.resolve(first)
	if link && r.bang == len(r.buf) {
		// "!" right before "[" would make the link an image.
		r.buf = append(r.buf[:len(r.buf)-1], '\\', '!')
	}
	for i := r.unwritten; i < len(r.frames); i++ {
		f := &r.frames[i]
		if f.pos == dropped {
			continue
		}
		f.pos = len(r.buf)
		if f.kind == kindLink {
			r.buf = append(r.buf, '[')
			r.lineStart, r.lineDigits = false, -1
		} else {
			r.buf = append(r.buf, delims[f.kind]...)
		}
	}
	r.unwritten = len(r.frames)
}

// leftFlanking reports whether a delimiter run between prev and next can
// open emphasis (CommonMark's left-flanking rule).
func leftFlanking(prev, next rune) bool {
	return !isSpaceRune(next) && (!isPunctRune(next) || isSpaceRune(prev) || isPunctRune(prev))
}

// rightFlanking reports whether a delimiter run between prev and next can
// close emphasis (CommonMark's right-flanking rule).
func rightFlanking(prev, next rune) bool {
	return !isSpaceRune(prev) && (!isPunctRune(prev) || isSpaceRune(next) || isPunctRune(next))
}

// starOpen reports whether an emphasis written with '*' is open outside
// frames[i].
func (r *renderer) starOpen(i int) bool {
	for _, f := range r.frames[:i] {
		if (f.kind == kindStrong || f.kind == kindEm) && f.pos >= 0 {
			return true
		}
	}
	return false
}

// lastRune returns the last character in buf; a line's start counts as a
// space.
func (r *renderer) lastRune() rune {
	if len(r.buf) == 0 {
		return ' '
	}
	c := r.buf[len(r.buf)-1]
	if c < utf8.RuneSelf {
		if c == '\n' {
			return ' '
		}
		return rune(c)
	}
	last, _ := utf8.DecodeLastRune(r.buf)
	return last
}

// resolve settles the risky closers that end buf now that next follows
// them: before a letter they cannot close, so they and their openers go.
func (r *renderer) resolve(next rune) {
	if len(r.risky) == 0 {
		return
	}
	if !isSpaceRune(next) && !isPunctRune(next) {
		for len(r.risky) > 0 {
			p := r.risky[len(r.risky)-1]
			if p.close+p.n != len(r.buf) {
				break
			}
			r.risky = r.risky[:len(r.risky)-1]
			r.buf = r.buf[:p.close]
			r.remove(p.open, p.n)
		}
	}
	r.risky = r.risky[:0]
}

// remove cuts the n bytes of a delimiter at pos out of buf and moves the
// offsets kept after it. Where backticks would meet and run together, a
// space takes its place.
func (r *renderer) remove(pos, n int) {
	if pos > 0 && pos+n < len(r.buf) && r.buf[pos-1] == '`' && r.buf[pos+n] == '`' {
		r.buf[pos] = ' '
		pos, n = pos+1, n-1
	}
	copy(r.buf[pos:], r.buf[pos+n:])
	r.buf = r.buf[:len(r.buf)-n]
	for i := range r.risky {
		p := &r.risky[i]
		if p.open > pos {
			p.open -= n
		}
		if p.close > pos {
			p.close -= n
		}
	}
	if r.bang > pos {
		r.bang -= n
	}
	r.closerEnd, r.codeEnd = -1, -1
}

// emphasis renders strong, em and del elements and their kin. An element
// inside one of its own kind adds nothing.
func (r *renderer) emphasis(n *html.Node, k kind) {
	if r.active[k] > 0 {
		r.children(n)
		return
	}
	r.framed(n, frame{kind: k, pos: notWritten})
}

// link renders an a element. One without a usable href, or inside
// another link, is its text.
func (r *renderer) link(n *html.Node) {
	href := attr(n, "href")
	if r.active[kindLink] > 0 || !usableURL(href) {
		r.children(n)
		return
	}
	r.framed(n, frame{kind: kindLink, pos: notWritten, href: href})
}

// framed renders n's children inline, inside the frame f.
func (r *renderer) framed(n *html.Node, f frame) {
	r.frames = append(r.frames, f)
	r.active[f.kind]++
	r.inline++
	r.children(n)
	r.inline--
	r.active[f.kind]--
	r.closeFrame()
}

// closeFrame closes the innermost frame. An emphasis closer that follows
// punctuation is risky: it stands only if no letter follows it.
func (r *renderer) closeFrame() {
	f := r.frames[len(r.frames)-1]
	r.frames = r.frames[:len(r.frames)-1]
	r.unwritten = min(r.unwritten, len(r.frames))
	if f.pos < 0 {
		return // no content, or dropped
	}
	if f.kind == kindLink {
		r.resolve(']')
		r.buf = append(r.buf, ']', '(')
		r.appendLink(f.href)
		r.buf = append(r.buf, ')')
		r.noText()
		return
	}
	d := delims[f.kind]
	last := r.lastRune()
	if isSpaceRune(last) || last == '~' && f.kind == kindDel {
		// A closer cannot follow a no-break space, say, nor "~~" a '~'.
		r.remove(f.pos, len(d))
		return
	}
	pos := len(r.buf)
	r.buf = append(r.buf, d...)
	r.closerEnd = len(r.buf)
	if isPunctRune(last) {
		r.risky = append(r.risky, pair{open: f.pos, close: pos, n: len(d)})
	}
}

// lineBreak renders a br element: a hard line break, or a space where
// content must stay on one line. One that starts a line is dropped.
func (r *renderer) lineBreak() {
	if r.oneLine > 0 {
		r.spaceOwed()
		return
	}
	if !r.bol && r.sep == 0 {
		r.brk++
		r.space = false
	}
}

// code renders a code element (and kbd, samp, tt) as a code span, with
// its whitespace collapsed. Spaces that start or end it go outside.
func (r *renderer) code(n *html.Node) {
	r.scratch = gatherText(r.scratch[:0], n)
	code := r.scratch
	if len(code) > 0 && code[0] == ' ' {
		r.spaceOwed()
		code = code[1:]
	}
	trailing := len(code) > 0 && code[len(code)-1] == ' '
	if trailing {
		code = code[:len(code)-1]
	}
	if len(code) > 0 {
		if r.codeEnd == len(r.buf) && !r.space && r.unwritten == len(r.frames) &&
			r.sep == 0 && r.brk == 0 && !r.needPrefix {
			// Right after another code span their fences would run
			// together: the two become one.
			r.buf = r.buf[:r.codeStart]
			code = append(r.lastCode, code...)
		} else {
			r.flush('`')
		}
		r.lastCode = append(r.lastCode[:0], code...)
		r.codeStart = len(r.buf)
		fence := longestRun(code, '`') + 1
		pad := code[0] == '`' || code[len(code)-1] == '`'
		r.appendFence(fence, pad, false)
		for _, c := range code {
			if c == '|' && r.cell {
				r.buf = append(r.buf, '\\')
			}
			r.buf = append(r.buf, c)
		}
		r.appendFence(fence, pad, true)
		r.noText()
		r.codeEnd = len(r.buf)
	}
	if trailing {
		r.spaceOwed()
	}
}

// appendFence appends a code span's fence of n backticks, and a space on
// its inner side if pad.
func (r *renderer) appendFence(n int, pad, closing bool) {
	if pad && closing {
		r.buf = append(r.buf, ' ')
	}
	for range n {
		r.buf = append(r.buf, '`')
	}
	if pad && !closing {
		r.buf = append(r.buf, ' ')
	}
}

// gatherText appends the text of n to dst with whitespace collapsed to
// single spaces; br elements and blocks count as whitespace.
func gatherText(dst []byte, n *html.Node) []byte {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s := validUTF8(c.Data)
			for i := 0; i < len(s); i++ {
				switch b := s[i]; {
				case isSpace(b):
					if len(dst) == 0 || dst[len(dst)-1] != ' ' {
						dst = append(dst, ' ')
					}
				case b == 0:
					dst = append(dst, "\uFFFD"...)
				default:
					dst = append(dst, b)
				}
			}
		case html.ElementNode:
			if skipped(c) {
				continue
			}
			block := c.DataAtom == atom.Br || isBlockAtom(c.DataAtom)
			if block && (len(dst) == 0 || dst[len(dst)-1] != ' ') {
				dst = append(dst, ' ')
			}
			dst = gatherText(dst, c)
			if block && dst[len(dst)-1] != ' ' {
				dst = append(dst, ' ')
			}
		}
	}
	return dst
}

// image renders an img element. One whose source is missing or a data URI
// is its alt text.
func (r *renderer) image(n *html.Node) {
	src, alt := attr(n, "src"), attr(n, "alt")
	if !usableURL(src) {
		r.text(alt)
		return
	}
	r.flush('!')
	r.buf = append(r.buf, '!', '[')
	r.appendAlt(alt)
	r.buf = append(r.buf, ']', '(')
	r.appendLink(src)
	r.buf = append(r.buf, ')')
	r.noText()
}
