package benchrun

import (
	"context"
	"testing"

	"github.com/patchbot/patchbot/internal/example"
)

// TestBuiltinExample runs the founding story's benchmarks on the built-in
// example: codec/ without the unsigned fast path, then with it. As in the
// 2014 review, WriteInts must be significantly faster and ReadInts
// unchanged ("~"). It builds and runs the real benchmarks, 6 runs a side
// (the fewest that give benchmath a 95% interval), in about 10 seconds;
// -short skips it.
//
// "~" is a statistical verdict: even with no change at all, a U test at
// alpha 0.05 flags about one comparison in twenty. So a ReadInts flagged
// significant is measured once more, and the test fails only if the second
// run flags it too (one chance in 400 when nothing changed).
func TestBuiltinExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks; skipped with -short")
	}
	dir := t.TempDir()
	base, head, err := example.NewRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	run := func() *Result {
		res, err := Run(context.Background(), Options{
			Dir: dir, Base: base, Head: head,
			Packages:  []string{"./codec"},
			Bench:     "^Benchmark(Read|Write)Ints$/codec",
			Count:     6,
			Benchtime: "100ms",
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%s", res.String(Benchcmp))
		return res
	}
	res := run()
	for _, unit := range []string{"sec/op", "B/s"} {
		if c := findRow(t, res, unit, "WriteInts/impl=codec-").Compare; c.Verdict != Better {
			t.Errorf("WriteInts %s: %s (%+.2f%%, p=%.3f), want better", unit, c.Verdict, c.Delta*100, c.P)
		}
	}
	c := findRow(t, res, "sec/op", "ReadInts/impl=codec-").Compare
	if c.Verdict != Same {
		t.Logf("ReadInts: %s (%+.2f%%, p=%.3f); running again", c.Verdict, c.Delta*100, c.P)
		c = findRow(t, run(), "sec/op", "ReadInts/impl=codec-").Compare
	}
	if c.Verdict != Same {
		t.Errorf("ReadInts: %s (%+.2f%%, p=%.3f), want ~", c.Verdict, c.Delta*100, c.P)
	}
}
