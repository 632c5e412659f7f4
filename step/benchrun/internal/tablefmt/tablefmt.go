// Package tablefmt lays out plain-text tables in fixed-width columns, such
// as the tables benchstat prints.
//
// # Layout
//
// A [Table] is a list of rows; each row holds [Cell]s placed at column
// indexes, left to right, without overlapping. A row need not fill every
// column: the columns it skips are left blank.
//
// A cell has a text, an alignment, a margin and a span. The margin (" │ ",
// " ± ", " ", or "" for none) is printed just before the text, in the gap
// to the left of the cell's first column; a margin is printed even when the
// text is empty, which is how a table draws a rule with no text beside it.
// The span is the number of columns the cell covers (1 unless set).
//
// Widths are counted in runes (so every character is taken to fill one
// terminal cell) and computed column by column:
//
//   - the gap of a column is its widest margin, over the cells, spanning
//     or not, that start in it;
//   - the width of a column is its widest text, over the cells that cover
//     only that column; a column no cell covers has width and gap 0;
//   - the room of a spanning cell is the width of its first column plus the
//     gap and width of each further column it covers. When the text is
//     wider than the room, the columns it covers that are not fixed (see
//     [Table.Fix]) are widened, evenly, the leftmost first by any
//     remainder. Spans are applied narrowest first, so a wide span sees the
//     widths the narrower ones inside it gave.
//
// Every column thus starts at the same place in every row. A text shorter
// than its room is padded with spaces: to its right (Left), to its left
// (Right), or on both sides (Center, the extra space on the right). A
// margin shorter than its gap is padded on its left. Lines end at their
// last non-space character.
//
// A text can still be wider than its room when every column of its span is
// fixed. It is then printed whole, followed by as many spaces as it overflows
// by, so that the rest of its row moves right by twice that overflow. This
// is what benchstat prints (its "vs base" header is such a span, and
// overflows when the two sides of a table share no benchmark), kept so that
// the output stays identical to it.
package tablefmt

import (
	"cmp"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// An Align says where a text sits when it is narrower than its room.
type Align uint8

const (
	Left   Align = iota // padded on the right
	Right               // padded on the left
	Center              // padded on both sides, the odd space on the right
)

// A Cell is one entry of a table.
type Cell struct {
	Text   string
	Align  Align
	Margin string // printed before Text, in the gap left of the first column
	Span   int    // number of columns covered; 0 means 1
}

func (c Cell) span() int { return max(c.Span, 1) }

type placed struct {
	col int
	Cell
}

// A Table is a plain-text table being built. The zero value is an empty
// table ready to use.
type Table struct {
	rows  [][]placed
	fixed map[int]bool
}

// Row starts a new row. Cells are placed in the latest row.
func (t *Table) Row() {
	t.rows = append(t.rows, nil)
}

// Put places c in the current row with its first column at col, and returns
// the column after it, where the next cell may go. It panics if there is no
// row yet or if c would start left of the end of the row's previous cell.
func (t *Table) Put(col int, c Cell) int {
	if len(t.rows) == 0 {
		panic("tablefmt: Put before Row")
	}
	if c.Span < 0 || col < 0 {
		panic("tablefmt: negative column or span")
	}
	r := &t.rows[len(t.rows)-1]
	if n := len(*r); n > 0 {
		if last := (*r)[n-1]; col < last.col+last.span() {
			panic("tablefmt: cell overlaps the previous cell of its row")
		}
	}
	*r = append(*r, placed{col, c})
	return col + c.span()
}

// Fix marks columns as fixed: a spanning cell never widens them, so their
// width is that of their widest single-column text.
func (t *Table) Fix(cols ...int) {
	if t.fixed == nil {
		t.fixed = make(map[int]bool)
	}
	for _, c := range cols {
		t.fixed[c] = true
	}
}

// String returns the table as text, one line per row.
func (t *Table) String() string {
	var b strings.Builder
	t.WriteTo(&b)
	return b.String()
}

// WriteTo writes the table to w, one line per row.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	gap, width := t.layout()
	// start[c] is where the text of column c starts; start[len] is the
	// end of the last column.
	start := make([]int, len(width)+1)
	x := 0
	for c := range width {
		start[c] = x + gap[c]
		x = start[c] + width[c]
	}
	start[len(width)] = x

	var out strings.Builder
	for _, row := range t.rows {
		var line strings.Builder
		pos, shift := 0, 0 // runes written; how far overflow moved the row
		pad := func(n int) {
			if n > 0 {
				line.WriteString(strings.Repeat(" ", n))
				pos += n
			}
		}
		for _, c := range row {
			end := c.col + c.span()
			room := start[end-1] + width[end-1] - start[c.col]
			n := utf8.RuneCountInString(c.Text)
			pad(start[c.col] + shift - utf8.RuneCountInString(c.Margin) - pos)
			line.WriteString(c.Margin)
			pos += utf8.RuneCountInString(c.Margin)
			left := 0
			switch over := n - room; {
			case over > 0:
				shift += 2 * over
			case c.Align == Right:
				left = room - n
			case c.Align == Center:
				left = (room - n) / 2
			}
			pad(left)
			line.WriteString(c.Text)
			pos += n
		}
		out.WriteString(strings.TrimRight(line.String(), " "))
		out.WriteByte('\n')
	}
	n, err := io.WriteString(w, out.String())
	return int64(n), err
}

// layout computes the gap and width of every column.
func (t *Table) layout() (gap, width []int) {
	ncols := 0
	for _, row := range t.rows {
		for _, c := range row {
			ncols = max(ncols, c.col+c.span())
		}
	}
	gap, width = make([]int, ncols), make([]int, ncols)
	var spans []placed
	for _, row := range t.rows {
		for _, c := range row {
			gap[c.col] = max(gap[c.col], utf8.RuneCountInString(c.Margin))
			if c.span() == 1 {
				width[c.col] = max(width[c.col], utf8.RuneCountInString(c.Text))
			} else {
				spans = append(spans, c)
			}
		}
	}
	slices.SortStableFunc(spans, func(a, b placed) int { return cmp.Compare(a.span(), b.span()) })
	for _, c := range spans {
		cols := make([]int, 0, c.span())
		room := -gap[c.col]
		for k := c.col; k < c.col+c.span(); k++ {
			room += gap[k] + width[k]
			if !t.fixed[k] {
				cols = append(cols, k)
			}
		}
		over := utf8.RuneCountInString(c.Text) - room
		if over <= 0 || len(cols) == 0 {
			continue
		}
		for i, k := range cols {
			width[k] += over / len(cols)
			if i < over%len(cols) {
				width[k]++
			}
		}
	}
	return gap, width
}
