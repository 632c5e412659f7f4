package benchrun

import (
	"fmt"
	"strings"
	"testing"
)

// TestFixedVerdicts checks the words of each row of the fixed design
// (-count N): faster or slower when the U test finds the change, the
// same when the change's interval lies within the margin, undecided when
// it finds neither; and "changed" for a unit without a direction. "same"
// once meant only "not significant": a noisy row is not the same.
func TestFixedVerdicts(t *testing.T) {
	// lines returns n results of benchmark name, value v + i·step.
	lines := func(name, unit string, n int, v, step float64) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "Benchmark%s-2 1000 %g %s\n", name, v+float64(i)*step, unit)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name     string
		old, new string
		margin   float64
		want     string // the verdict of the row's first unit
	}{
		{"twice as slow", lines("X", "ns/op", 10, 100, 1), lines("X", "ns/op", 10, 200, 1), 0, Slower},
		{"twice as fast", lines("X", "ns/op", 10, 200, 1), lines("X", "ns/op", 10, 100, 1), 0, Faster},
		{"more throughput", lines("X", "MB/s", 10, 100, 1), lines("X", "MB/s", 10, 150, 1), 0, Faster},
		{"within 2%, tight", lines("X", "ns/op", 10, 100, 0.02), lines("X", "ns/op", 10, 100.01, 0.02), 0, Same},
		// A change the runs see, however small, is one: slower by 0.5%.
		{"tiny but real", lines("X", "ns/op", 10, 100, 0.01), lines("X", "ns/op", 10, 100.5, 0.01), 0, Slower},
		{"within 2%, but noisy", lines("X", "ns/op", 10, 100, 5), lines("X", "ns/op", 10, 100.5, 5), 0, Undecided},
		{"noisy, wide margin", lines("X", "ns/op", 10, 100, 1), lines("X", "ns/op", 10, 100.5, 1), 0.2, Same},
		{"equal", lines("X", "ns/op", 10, 100, 0), lines("X", "ns/op", 10, 100, 0), 0, Same},
		{"no direction", lines("X", "widgets", 10, 100, 1), lines("X", "widgets", 10, 200, 1), 0, Changed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(Input{Label: "old", R: strings.NewReader(tt.old)}, Input{Label: "new", R: strings.NewReader(tt.new)},
				&CompareOptions{Margin: tt.margin})
			if err != nil {
				t.Fatal(err)
			}
			c := r.Tables[0].Rows[0].Compare
			if c.Verdict != tt.want {
				t.Errorf("verdict %q (p=%.3f), want %q", c.Verdict, c.P, tt.want)
			}
			if want := tt.want == Faster || tt.want == Slower || tt.want == Changed; c.Significant != want {
				t.Errorf("significant %v, want %v", c.Significant, want)
			}
		})
	}
}
