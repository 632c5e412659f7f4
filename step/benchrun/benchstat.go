package benchrun

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/patchbot/patchbot/step/benchrun/internal/tablefmt"
)

// writeBenchstat writes r as benchstat prints the same results: for each
// table the configuration lines that changed, then the table with its
// footnoted warnings. The output is meant to be identical to benchstat's
// (TestBenchstatAgrees runs benchstat on the same files and compares).
func writeBenchstat(w io.Writer, r *Result) error {
	bw := &errWriter{w: w}
	var prev *Table
	for i, t := range r.Tables {
		if i > 0 {
			bw.printf("\n")
		}
		for j, c := range t.Config {
			if prev == nil || prev.Config[j].Value != c.Value {
				bw.printf("%s: %s\n", c.Key, c.Value)
			}
		}
		prev = t
		benchstatTable(bw, r, t)
	}
	// benchstat has nothing like these (it hangs on a NaN), but they
	// must not go unsaid.
	for i, o := range r.Omitted {
		if i == 0 && len(r.Tables) > 0 {
			bw.printf("\n")
		}
		bw.printf("omitted %s\n", o)
	}
	// Nor does it run benchmarks: how these ran, after everything.
	if r.Run != nil {
		if len(r.Tables)+len(r.Omitted) > 0 {
			bw.printf("\n")
		}
		bw.printf("%s\n", r.Run.Isolation)
	}
	return bw.err
}

// benchstatTable writes one table of r as benchstat lays it out: a column
// of benchmark names, then a group of columns per side present (the first
// is the baseline), then the list of the warnings the table's footnotes
// number. A group holds the center and ± range of the side's samples and
// their footnotes; the groups after the baseline's add the delta against
// it, the p-value and sample counts, and the comparison's footnotes. Two
// header rows name the groups and the unit, framed by " │ ", and only the
// first column of a group widens when its header is the wider.
func benchstatTable(bw *errWriter, r *Result, t *Table) {
	const (
		labelCols  = 1
		centerCols = 3 // <center> <± range> <footnotes>
		deltaCols  = 3 // <delta> <(p=0.PPP n=N)> <footnotes>
	)
	// startCol returns the first column of the group of the exp-th side
	// present; startCol(len(sides)) is the column after the last group.
	startCol := func(exp int) int {
		if exp == 0 {
			return labelCols
		}
		return labelCols + centerCols + (exp-1)*(centerCols+deltaCols)
	}
	right := func(text, margin string) tablefmt.Cell {
		return tablefmt.Cell{Text: text, Align: tablefmt.Right, Margin: margin}
	}
	left := func(text string) tablefmt.Cell {
		return tablefmt.Cell{Text: text, Margin: " "}
	}

	// The sides present, in order; the first is the baseline.
	var labels []string
	var sides []int
	if t.HasOld {
		labels, sides = append(labels, r.Base.Label), append(sides, 0)
	}
	if t.HasNew {
		labels, sides = append(labels, r.Head.Label), append(sides, 1)
	}

	var o tablefmt.Table
	var warningList []string
	warningSet := make(map[string]int)
	// warn puts at col the footnote numbers of msgs, numbering new
	// messages in the order met.
	warn := func(col int, msgs ...[]string) {
		var footnotes []string
		for _, msgs1 := range msgs {
			for _, s := range msgs1 {
				i, ok := warningSet[s]
				if !ok {
					i = len(warningList)
					warningSet[s] = i
					warningList = append(warningList, s)
				}
				footnotes = append(footnotes, superscript(i+1))
			}
		}
		if len(footnotes) > 0 {
			o.Put(col, left(strings.Join(footnotes, " ")))
		}
	}

	// Header: the column labels, then the units; a rule closes both.
	rEdge := startCol(len(labels))
	rule := tablefmt.Cell{Margin: " │"}
	o.Row()
	for i, label := range labels {
		l, r := startCol(i), startCol(i+1)
		o.Put(l, tablefmt.Cell{Text: label, Align: tablefmt.Center, Margin: " │ ", Span: r - l})
		for j := l + 1; j < r; j++ {
			o.Fix(j)
		}
	}
	o.Put(rEdge, rule)
	o.Row()
	for i := range labels {
		l := startCol(i)
		o.Put(l, tablefmt.Cell{Text: t.Unit, Align: tablefmt.Center, Margin: " │ ", Span: centerCols})
		if i > 0 {
			o.Put(l+centerCols, tablefmt.Cell{Text: "vs base", Margin: "  ", Span: deltaCols})
		}
	}
	o.Put(rEdge, rule)

	unitClass := benchunit.ClassOf(t.Unit)
	for _, row := range t.Rows {
		o.Row()
		o.Put(0, tablefmt.Cell{Text: row.Name})
		var centers []float64
		for _, s := range []*Summary{row.Old, row.New} {
			if s != nil {
				centers = append(centers, s.Center)
			}
		}
		scaler := benchunit.CommonScale(centers, unitClass)
		for exp, side := range sides {
			s := row.Old
			if side == 1 {
				s = row.New
			}
			if s == nil {
				continue
			}
			col := o.Put(startCol(exp), right(scaler.Format(s.Center), " "))
			col = o.Put(col, right(s.summary().PctRangeString(), " ± "))
			warn(col, s.Warnings)
			if exp > 0 && row.Compare != nil {
				c := row.Compare.comparison()
				col := o.Put(startCol(exp)+centerCols, right(c.FormatDelta(row.Old.Center, row.New.Center), " "))
				col = o.Put(col, left("("+c.String()+")"))
				warn(col, row.Compare.Warnings)
			}
		}
	}

	if g := t.Geomean; g != nil {
		o.Row()
		o.Put(0, tablefmt.Cell{Text: "geomean"})
		for exp, side := range sides {
			sum, warnings := g.Old, g.OldWarnings
			if side == 1 {
				sum, warnings = g.New, g.NewWarnings
			}
			if sum != nil {
				o.Put(startCol(exp), right(benchunit.Scale(*sum, unitClass), " "))
			}
			if exp > 0 {
				if g.Ratio != nil {
					o.Put(startCol(exp)+centerCols, right(fmt.Sprintf("%+.2f%%", (*g.Ratio-1)*100), " "))
				} else {
					o.Put(startCol(exp)+centerCols, left("?"))
				}
			}
			warn(startCol(exp+1)-1, warnings)
		}
	}

	o.WriteTo(bw)
	for i, msg := range warningList {
		bw.printf("%s %s\n", superscript(i+1), msg)
	}
}

var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

func superscript(i int) string {
	if i == 0 {
		return string(superDigits[0])
	}
	var buf [20]rune
	pos := len(buf)
	for i > 0 && pos > 0 {
		pos--
		buf[pos] = superDigits[i%10]
		i /= 10
	}
	return string(buf[pos:])
}
