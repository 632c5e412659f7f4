package benchrun

import (
	"testing"
)

// TestSpreadNote checks the line under each benchcmp table, which says the
// spread that benchcmp's columns leave out: the median over the rows of
// each side's ±, and the widest row when it is wider than both.
func TestSpreadNote(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	// sum is a median of 100 with the interval [lo, hi].
	sum := func(lo, hi float64) *Summary { return &Summary{Center: 100, Lo: f(lo), Hi: f(hi)} }
	row := func(name string, old, new *Summary) *Row {
		return &Row{Name: name, Old: old, New: new, Compare: &Comparison{}}
	}
	tests := []struct {
		name string
		rows []*Row
		want string
	}{
		{"one row", []*Row{row("A", sum(90, 105), sum(98, 103))},
			"spread: old ± 10%, new ± 3% (median of rows)"},
		{"medians and the widest", []*Row{
			row("A", sum(99, 101), sum(98, 102)),
			row("B", sum(97, 103), sum(96, 104)),
			row("Noisy", sum(40, 250), sum(95, 105)),
		}, "spread: old ± 3%, new ± 4% (median of rows); widest: BenchmarkNoisy old ± 150%"},
		{"the widest no wider than a median", []*Row{
			row("A", sum(95, 105), sum(95, 105)),
			row("B", sum(95, 105), sum(95, 105)),
		}, "spread: old ± 5%, new ± 5% (median of rows)"},
		{"too few runs", []*Row{row("A", &Summary{Center: 100}, &Summary{Center: 100})},
			"spread: old ± ∞, new ± ∞ (median of rows)"},
		{"a row of too few runs leaves the median to the others", []*Row{
			row("A", &Summary{Center: 100}, &Summary{Center: 100}),
			row("B", sum(90, 110), sum(95, 105)),
		}, "spread: old ± 10%, new ± 5% (median of rows); widest: BenchmarkA old ± ∞"},
		{"every run the same", []*Row{row("A", sum(100, 100), sum(100, 100)), row("B", &Summary{Center: 0, Lo: f(0), Hi: f(0)}, sum(100, 100))},
			""},
		{"an interval across zero has no share", []*Row{
			row("A", &Summary{Center: 1, Lo: f(-1), Hi: f(2)}, sum(90, 110)),
			row("B", sum(80, 120), sum(90, 110)),
		}, "spread: old ± 20%, new ± 10% (median of rows)"},
		{"rows on one side only are not compared", []*Row{
			row("A", sum(90, 110), sum(90, 110)),
			{Name: "Added", New: sum(0, 1000)},
		}, "spread: old ± 10%, new ± 10% (median of rows)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := spreadNote(&Table{Unit: "sec/op", HasOld: true, HasNew: true, Rows: tt.rows})
			if got != tt.want {
				t.Errorf("spreadNote = %q\nwant          %q", got, tt.want)
			}
		})
	}
}
