package benchrun

import "fmt"

// A Regression is a benchmark that got significantly worse by more than a
// threshold.
type Regression struct {
	Table *Table
	Row   *Row
}

func (g Regression) String() string {
	pkg := g.Table.Get("pkg")
	if pkg != "" {
		pkg += " "
	}
	return fmt.Sprintf("%s%s: %s %+.2f%% (p=%.3f)", pkg, g.Row.Name, viewOf(g.Table).name, g.Row.Compare.Delta*100, g.Row.Compare.P)
}

// Regressions returns the rows whose change is significant, in the worse
// direction of their unit, and larger than threshold (0.05 for 5%). The
// geomean rows never count: they have no significance test.
func (r *Result) Regressions(threshold float64) []Regression {
	var list []Regression
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			c := row.Compare
			if c == nil || c.Verdict != Worse {
				continue
			}
			if c.Delta > threshold || c.Delta < -threshold {
				list = append(list, Regression{t, row})
			}
		}
	}
	return list
}
