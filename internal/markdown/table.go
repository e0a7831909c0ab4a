package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxColumns bounds a table's width, so that padding short rows cannot
// blow up the output; cells past it join the last column.
const maxColumns = 64

// table renders a table element as a GitHub pipe table: its first row is
// the header, and every row is padded to the same number of cells. A
// caption is a paragraph where it stands, before the rows (or between
// them, where it splits the table in two). A table inside a table cell,
// or anywhere a block cannot be, is flattened to its text.
func (r *renderer) table(n *html.Node) {
	if r.inline > 0 {
		r.flatten(n)
		return
	}
	rows := r.rows[:0]
	r.rows = nil // a table in a caption needs its own
	rows = r.tableRows(rows, n)
	r.grid(rows)
	clear(rows)
	r.rows = rows[:0]
}

// tableRows appends to rows the rows of the table (or row group) n that
// have cells, in document order; at a caption it writes the rows so far
// and the caption, and starts again.
func (r *renderer) tableRows(rows []*html.Node, n *html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.Namespace != "" || skipped(c) {
			continue
		}
		switch c.DataAtom {
		case atom.Thead, atom.Tbody, atom.Tfoot:
			rows = r.tableRows(rows, c)
		case atom.Tr:
			if countCells(c) > 0 {
				rows = append(rows, c)
			}
		case atom.Caption:
			r.grid(rows)
			rows = rows[:0]
			r.block(c)
		}
	}
	return rows
}

// grid writes rows as a pipe table.
func (r *renderer) grid(rows []*html.Node) {
	cols := 0
	for _, tr := range rows {
		cols = max(cols, countCells(tr))
	}
	cols = min(cols, maxColumns)
	if cols == 0 {
		return
	}
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
