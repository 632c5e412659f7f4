package benchrun

import (
	"fmt"
	"math"
)

// A Regression is a benchmark that got significantly worse by more than a
// threshold.
type Regression struct {
	Table *Table // the benchmark's configuration and unit
	Row   *Row   // the benchmark, with its comparison
}

// String describes g in one line, as -fail-on-regression names it:
// "example.com/codec WriteInts-2: ns/op +49.95% (p=0.002)", or, for a
// median that was zero, "example.com/codec WriteInts-2: allocs 0 → 2
// (p=0.000)".
func (g Regression) String() string {
	pkg := g.Table.Get("pkg")
	if pkg != "" {
		pkg += " "
	}
	v := viewOf(g.Table)
	change := fmt.Sprintf("%+.2f%%", g.Row.Compare.Delta*100)
	if old, new := g.Row.Old.Center, g.Row.New.Center; old == 0 || !isFinite(new/old) {
		change = v.format(old) + " → " + v.format(new)
		if old == 0 {
			change = "0 → " + v.format(new)
		}
	}
	return fmt.Sprintf("%s%s: %s %s (p=%.3f)", pkg, g.Row.Name, v.name, change, g.Row.Compare.P)
}

// Regressions returns the rows whose change is significant, in the worse
// direction of their unit, and larger than threshold (0.05 for 5%). A
// change from a zero median (no allocations, say) is larger than any
// threshold, and so is one whose ratio of medians overflows (its Delta is
// 0, as JSON has no infinity). The geomean rows never count: they have no
// significance test.
func (r *Result) Regressions(threshold float64) []Regression {
	var list []Regression
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			c := row.Compare
			if c == nil || c.Verdict != Slower {
				continue
			}
			if row.Old.Center == 0 || !isFinite(row.New.Center/row.Old.Center) || math.Abs(c.Delta) > threshold {
				list = append(list, Regression{t, row})
			}
		}
	}
	return list
}
