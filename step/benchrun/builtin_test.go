package benchrun

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/example"
)

// TestBuiltinExample runs the founding story's benchmarks on the built-in
// example: codec/ without the unsigned fast path, then with it. As in the
// 2014 review, WriteInts must be significantly faster and ReadInts
// unchanged ("~", or changed by under 50%: see check). It builds and runs
// the real benchmarks, 10 runs a side, in 10 to 15 seconds; -short skips
// it.
//
// Both verdicts are statistical, so when a check fails the comparison is
// measured once more, and the test fails only if the second one fails a
// check too. Measured on a loaded 2-core machine (a side's slowest run
// often 50-100% slower than its fastest), WriteInts was significantly
// faster in all of 40 comparisons of 10 runs a side (p at most 0.012),
// but not in 4 of 56 of 6 runs a side, which this test used before.
// ReadInts runs the same code on both sides, and was significantly faster
// (by 3-4%, a code-layout effect) in 1 of the 40 and 1 of the 56, which
// the "never faster, within 5%" this test asked before failed. Resampling
// the 40 comparisons, a first comparison fails about 3 times in 100
// (2.5% for WriteInts, 0.6% for ReadInts, overestimates both), so the
// test fails for nothing about once in 1,000 runs.
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
			Count:     10,
			Benchtime: "100ms",
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%s", res.String(Benchcmp))
		return res
	}
	// check returns what is wrong with res.
	check := func(res *Result) []string {
		var bad []string
		for _, unit := range []string{"sec/op", "B/s"} {
			if c := findRow(t, res, unit, "WriteInts/impl=codec-").Compare; c.Verdict != Faster {
				bad = append(bad, fmt.Sprintf("WriteInts %s: %s (%+.2f%%, p=%.3f), want better", unit, c.Verdict, c.Delta*100, c.P))
			}
		}
		// ReadInts's code does not change, but the patch moves it in the
		// binary: on a quiet machine, 20 runs a side find it 2-3% slower,
		// significantly (a code-layout effect; see docs/design/run.md), as the
		// 2014 table's 0.97x may have been; on a loaded one, now and then
		// faster. Unchanged here means "~" or a change under 50%: what
		// the check guards against is a patch that broke ReadInts, as
		// cmd/patchbot's run_example.txtar does.
		if c := findRow(t, res, "sec/op", "ReadInts/impl=codec-").Compare; math.Abs(c.Delta) >= 0.5 && c.Verdict != Same {
			bad = append(bad, fmt.Sprintf("ReadInts: %s (%+.2f%%, p=%.3f), want ~ or within 50%%", c.Verdict, c.Delta*100, c.P))
		}
		return bad
	}
	if bad := check(run()); len(bad) > 0 {
		t.Logf("%s; running again", strings.Join(bad, "; "))
		for _, b := range check(run()) {
			t.Error(b)
		}
	}
}
