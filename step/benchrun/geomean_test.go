package benchrun

import (
	"math"
	"strings"
	"testing"
)

// TestCommonGeomean checks the review tables' geomean row: over the
// benchmarks both sides ran only, so that old, new and the ratio describe
// one set (benchstat's row, kept for -format benchstat, takes each column's
// own benchmarks: with one added and one removed, its old and new means
// once said 766 → 831 beside a delta of -15%).
func TestCommonGeomean(t *testing.T) {
	sum := func(c float64) *Summary { return &Summary{Center: c} }
	tab := &Table{Unit: "sec/op", Better: -1, HasOld: true, HasNew: true, Rows: []*Row{
		{Name: "A", Old: sum(100), New: sum(50), Compare: &Comparison{}},
		{Name: "B", Old: sum(400), New: sum(200), Compare: &Comparison{}},
		{Name: "Added", New: sum(1e6)},
		{Name: "Removed", Old: sum(1e-3)},
	}}
	g, onlyOne := commonGeomean(tab)
	if g == nil || onlyOne != 2 {
		t.Fatalf("commonGeomean = %v, %d; want a row and 2 benchmarks on one side", g, onlyOne)
	}
	if math.Abs(*g.Old-200) > 1e-9 || math.Abs(*g.New-100) > 1e-9 || math.Abs(*g.Ratio-0.5) > 1e-9 {
		t.Errorf("geomean old %v new %v ratio %v; want 200, 100, 0.5", *g.Old, *g.New, *g.Ratio)
	}

	var b strings.Builder
	if err := writeReview(&b, &Result{Tables: []*Table{tab}}, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| geomean¹ | 200000000000 | 100000000000 | -50.00% |", "¹ geomean of the benchmarks both sides ran"} {
		if !strings.Contains(out, want) {
			t.Errorf("the review has no %q:\n%s", want, out)
		}
	}

	// One benchmark in common: no geomean; a median of 0: none either.
	tab.Rows = tab.Rows[1:]
	if g, _ := commonGeomean(tab); g != nil {
		t.Errorf("one benchmark in common: geomean %v, want none", g)
	}
	tab.Rows = []*Row{{Name: "A", Old: sum(0), New: sum(1)}, {Name: "B", Old: sum(1), New: sum(1)}}
	if g, _ := commonGeomean(tab); g != nil {
		t.Errorf("a median of 0: geomean %v, want none", g)
	}
}
