package markdown

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Classes of bytes in text.
const (
	plain  = iota // written as it is
	space         // HTML whitespace, collapsed
	always        // always escaped: \ ` * _ [ ] < ~
	maybe         // escaped in some places: & | and NUL, and at a line's start
	multi         // part of a multi-byte character, or invalid UTF-8
)

// textClass classifies the bytes of text.
var textClass = func() (t [256]uint8) {
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = multi
	}
	for _, c := range " \t\n\f\r" {
		t[c] = space
	}
	// '~' because GitHub's strikethrough takes single tildes too.
	for _, c := range "\\`*_[]<~" {
		t[c] = always
	}
	for _, c := range "&|\x00" {
		t[c] = maybe
	}
	return t
}()

// isSpace reports whether c is HTML whitespace.
func isSpace(c byte) bool { return textClass[c] == space }

// isSpaceRune reports whether c is whitespace to CommonMark's emphasis rules.
func isSpaceRune(c rune) bool {
	if c < utf8.RuneSelf {
		return c == ' ' || '\t' <= c && c <= '\r'
	}
	return unicode.IsSpace(c)
}

// isPunctRune reports whether c is punctuation to CommonMark's emphasis
// rules: an ASCII punctuation character, or a Unicode punctuation or
// symbol character.
func isPunctRune(c rune) bool {
	if c < utf8.RuneSelf {
		return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
	}
	return unicode.IsPunct(c) || unicode.IsSymbol(c)
}

// entityLike reports whether '&' followed by s could be read as an entity
// or character reference: "&name;", "&#123;", or the start of one cut off
// at the end of s.
func entityLike(s string) bool {
	i := 0
	if i < len(s) && s[i] == '#' {
		i++
	}
	j := i
	for j < len(s) && isAlnum(s[j]) {
		j++
	}
	return j == len(s) || j > i && s[j] == ';'
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// validUTF8 returns s with each invalid byte replaced by U+FFFD, as a
// decoder reading it rune by rune would see it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// appendAlt appends an image's alt text, collapsed and escaped, for its
// brackets.
func (r *renderer) appendAlt(alt string) {
	alt = validUTF8(trimSpace(alt))
	for i := 0; i < len(alt); i++ {
		c := alt[i]
		switch textClass[c] {
		case space:
			if !isSpace(alt[i-1]) { // alt is trimmed: i > 0
				r.buf = append(r.buf, ' ')
			}
			continue
		case always:
			r.buf = append(r.buf, '\\')
		case maybe:
			switch {
			case c == 0:
				r.buf = append(r.buf, "\uFFFD"...)
				continue
			case c == '|' && r.cell, c == '&' && entityLike(alt[i+1:]):
				r.buf = append(r.buf, '\\')
			}
		}
		r.buf = append(r.buf, c)
	}
}

// urlClass marks the bytes of a URL that need care in a link destination.
var urlClass = func() (t [256]uint8) {
	for c := 0; c <= ' '; c++ {
		t[c] = 1
	}
	for _, c := range "\x7f()<>\\|&" {
		t[c] = 1
	}
	return t
}()

// appendURL appends u as a link destination: bytes that would end it or
// that are not allowed in it are percent-encoded, and an '&' that would
// start an entity is escaped.
func (r *renderer) appendURL(u string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(u); i++ {
		start := i
		for i < len(u) && urlClass[u[i]] == 0 {
			i++
		}
		r.buf = append(r.buf, u[start:i]...)
		if i == len(u) {
			break
		}
		switch c := u[i]; {
		case c != '&':
			r.buf = append(r.buf, '%', hex[c>>4], hex[c&15])
		case entityLike(u[i+1:]):
			r.buf = append(r.buf, '\\', '&')
		default:
			r.buf = append(r.buf, '&')
		}
	}
}

// cleanURL trims the whitespace and control characters around a URL
// attribute and removes tabs and newlines in it, as browsers do.
func cleanURL(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	if strings.IndexByte(s, '\t') >= 0 || strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0 {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return validUTF8(s)
}

// usableURL reports whether the href or src attribute s is worth writing:
// it is not empty and not a javascript:, vbscript: or data: URI.
func usableURL(s string) bool {
	s = cleanURL(s)
	if s == "" {
		return false
	}
	for _, scheme := range [...]string{"javascript:", "vbscript:", "data:"} {
		if hasPrefixFold(s, scheme) {
			return false
		}
	}
	return true
}

// appendLink appends the href or src attribute s as a link destination,
// resolved against the base URL if there is one and s is relative.
func (r *renderer) appendLink(s string) {
	s = cleanURL(s)
	switch {
	case r.base == nil || hasPrefixFold(s, "https://") || hasPrefixFold(s, "http://"):
	case r.origin != "" && len(s) > 1 && s[0] == '/' && s[1] != '/' && !strings.Contains(s, "/.") && !strings.Contains(s, "\\"):
		// Relative to the root, with no dot segments: the common case,
		// done without allocating.
		r.appendURL(r.origin)
	default:
		if ref, err := url.Parse(s); err == nil {
			s = r.base.ResolveReference(ref).String()
		}
	}
	r.appendURL(s)
}
