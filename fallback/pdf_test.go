package fallback

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// makePDF writes a PDF with one page per content stream, in Helvetica
// (with a Widths array, as embedded fonts have), and an Info title.
func makePDF(title string, pages ...string) []byte {
	widths := strings.TrimSpace(strings.Repeat("556 ", 95))
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"", // the page tree, below
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [" + widths + "] >>",
		fmt.Sprintf("<< /Title (%s) /Producer (toolgate test) >>", title),
	}
	var kids []string
	for _, content := range pages {
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		contentRef := len(objs)
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", contentRef))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))

	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func TestPDF(t *testing.T) {
	t.Parallel()
	doc := makePDF("Quarterly report",
		// Lines moved with Td inside one text object, as most generators do.
		"BT /F1 12 Tf 72 720 Td (Revenue grew in the third quarter.) Tj 0 -16 Td (Costs stayed flat.) Tj ET\n"+
			// Words spaced by TJ adjustments, not space characters, as TeX does;
			// -20 is kerning inside a word.
			"BT /F1 12 Tf 72 680 Td [(Spaced)-300(by)-300(posi)-20(tion)] TJ ET",
		"BT /F1 12 Tf 72 720 Td (Page two: outlook.) Tj ET")
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		if r.URL.Path == "/broken" {
			_, _ = w.Write(doc[:len(doc)/2])
			return
		}
		_, _ = w.Write(doc)
	})
	p := fetch(t, newFetcher(t, loopback()), s.URL+"/report.pdf")
	want := "Revenue grew in the third quarter.\nCosts stayed flat.\nSpaced by position\n\nPage two: outlook."
	if p.Text != want {
		t.Errorf("PDF text:\n%q\nwant\n%q", p.Text, want)
	}
	if p.Title != "Quarterly report" || p.ContentType != "application/pdf" {
		t.Errorf("page %+v", *p)
	}

	fetchErr(t, newFetcher(t, loopback()), s.URL+"/broken", nil, "cannot read the PDF")
	opts := loopback()
	opts.MaxBytes = 100
	fetchErr(t, newFetcher(t, opts), s.URL+"/report.pdf", nil, "the PDF is larger than the 100-byte limit")
}
