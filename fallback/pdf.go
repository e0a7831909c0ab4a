package fallback

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfSupported says that application/pdf is converted to text.
const pdfSupported = true

// pdfPage extracts the text of a PDF body, page by page, with
// github.com/ledongthuc/pdf (pure Go). The text of a page is put together
// from the positions of its glyphs: a new line where the baseline moves, a
// space where a gap is wider than a sixth of the font size. A PDF cut at
// the size limit cannot be read, since its cross-reference table is at the
// end.
//
// The library takes some 0.1 to 0.7 s per page of text on a slow core and
// cannot be interrupted, so the extraction runs in its own goroutine: when
// ctx is done, pdfPage returns ctx's error at once, and the goroutine stops
// after the page it is on.
func pdfPage(ctx context.Context, body []byte, truncated bool, limit int64) (*Page, error) {
	if truncated {
		return nil, &Error{Reason: fmt.Sprintf("the PDF is larger than the %d-byte limit, and a PDF cannot be read in part", limit)}
	}
	type result struct {
		page *Page
		err  error
	}
	done := make(chan result, 1)
	go func() {
		p, err := extractPDF(ctx, body, limit)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.page, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("converting the PDF: %w", ctx.Err())
	}
}

// extractPDF does the work of pdfPage, checking ctx between pages.
func extractPDF(ctx context.Context, body []byte, limit int64) (page *Page, err error) {
	defer func() {
		if p := recover(); p != nil {
			page, err = nil, &Error{Reason: fmt.Sprintf("cannot read the PDF: %v", p)}
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, &Error{Reason: "cannot read the PDF: " + err.Error(), Err: err}
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		text := pageText(p.Content().Text)
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(text)
		if int64(b.Len()) > limit {
			break
		}
	}
	title := strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	return &Page{Title: title, Text: b.String()}, nil
}

// pageText joins glyphs, in content-stream order, into lines.
func pageText(glyphs []pdf.Text) string {
	var b strings.Builder
	var prev *pdf.Text
	for i := range glyphs {
		g := &glyphs[i]
		if g.S == "" {
			continue
		}
		if prev != nil {
			size := math.Max(math.Abs(prev.FontSize), 1)
			dy := math.Abs(g.Y - prev.Y)
			end := prev.X + prev.W
			switch {
			case dy > size/2 || g.X < prev.X-size:
				b.WriteByte('\n')
			case prev.W > 0 && g.X-end > size/6 && prev.S != " " && g.S != " ":
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.S)
		prev = g
	}
	// Trim the ends of lines and drop empty ones.
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
