package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxColumns bounds a table's width, so that padding short rows cannot
// blow up the output; cells past it join the last column.
const maxColumns = 64

// table renders a table element as a GitHub pipe table: its first row is
// the header, every row is padded to the same number of cells, and a
// caption comes first as a paragraph. A table inside a table cell, or
// anywhere a block cannot be, is flattened to its text.
func (r *renderer) table(n *html.Node) {
	if r.inline > 0 {
		r.flatten(n)
		return
	}
	rows := collectRows(r.rows[:0], n)
	r.rows = nil // a table in a caption needs its own
	r.captions(n, rows, true)
	cols := 0
	for _, tr := range rows {
		cols = max(cols, countCells(tr))
	}
	cols = min(cols, maxColumns)
	if cols > 0 {
		r.grid(rows, cols)
	}
	r.captions(n, rows, false)
	clear(rows)
	r.rows = rows[:0]
}

// captions renders as paragraphs the captions of table n that come
// before its first row, or, if !before, the others.
func (r *renderer) captions(n *html.Node, rows []*html.Node, before bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if len(rows) > 0 && (c == rows[0] || c == rows[0].Parent) {
			before = !before
		}
		if before && isElement(c, atom.Caption) && !skipped(c) {
			r.block(c)
		}
	}
}

// grid writes rows as a pipe table of cols columns.
func (r *renderer) grid(rows []*html.Node, cols int) {
	r.openBlock()
	r.flush('|')
	r.row(rows[0], cols)
	r.newline(false)
	r.buf = append(r.buf, '|')
	for range cols {
		r.buf = append(r.buf, " --- |"...)
	}
	for _, tr := range rows[1:] {
		r.newline(false)
		r.row(tr, cols)
	}
	r.noText()
	r.closeBlock()
}

// collectRows appends to rows the rows of the table n that have cells, in
// document order.
func collectRows(rows []*html.Node, n *html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.Namespace != "" || skipped(c) {
			continue
		}
		switch c.DataAtom {
		case atom.Thead, atom.Tbody, atom.Tfoot:
			rows = collectRows(rows, c)
		case atom.Tr:
			if countCells(c) > 0 {
				rows = append(rows, c)
			}
		}
	}
	return rows
}

// countCells returns the number of shown cells in the row tr.
func countCells(tr *html.Node) int {
	k := 0
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if isCell(c) {
			k++
		}
	}
	return k
}

// isCell reports whether n is a shown td or th element.
func isCell(n *html.Node) bool {
	return (isElement(n, atom.Td) || isElement(n, atom.Th)) && !skipped(n)
}

// isElement reports whether n is an HTML element of kind a.
func isElement(n *html.Node, a atom.Atom) bool {
	return n.Type == html.ElementNode && n.DataAtom == a && n.Namespace == ""
}

// row writes the table row tr with cols cells, its content on one line.
func (r *renderer) row(tr *html.Node, cols int) {
	r.buf = append(r.buf, '|')
	r.cell = true
	r.inline++
	r.oneLine++
	k := 0
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if !isCell(c) {
			continue
		}
		if k < cols {
			if k > 0 {
				r.endCell()
			}
			r.buf = append(r.buf, ' ')
			r.noText()
			r.bol = true
		} else {
			r.spaceOwed()
		}
		r.children(c)
		k++
	}
	r.endCell()
	for ; k < cols; k++ {
		r.buf = append(r.buf, ' ', ' ', '|')
	}
	r.cell = false
	r.inline--
	r.oneLine--
}

// endCell ends a cell's content.
func (r *renderer) endCell() {
	r.endInline()
	r.buf = append(r.buf, ' ', '|')
}
