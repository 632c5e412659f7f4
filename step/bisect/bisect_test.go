package bisect

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/benchrun"
)

// history makes a real Git repository of n commits after a first one,
// and returns its directory and the hashes, the first one's first.
func history(t *testing.T, n int) (string, []string) {
	t.Helper()
	r := gittest.New(t)
	return r.Dir, r.History(n, nil)
}

// fakeCompare compares by a model of each commit's time: time(i) of the
// i-th commit, and the verdict a sequential comparison would reach on it,
// slower or faster beyond 1%, the same within, unless undecided says the
// commit cannot be told: then its interval is ±50%, or ±1% with narrow.
// It counts the comparisons.
type fakeCompare struct {
	index     map[string]int
	time      func(i int) float64
	undecided func(i int) bool
	narrow    bool
	calls     int
}

func (f *fakeCompare) compare(_ context.Context, old, new string) (*benchrun.Result, error) {
	f.calls++
	o, n := f.index[old], f.index[new]
	ratio := f.time(n) / f.time(o)
	v := benchrun.Same
	switch {
	case f.undecided != nil && (f.undecided(n) || f.undecided(o)):
		v = benchrun.Undecided
	case ratio > 1.01:
		v = benchrun.Slower
	case ratio < 0.99:
		v = benchrun.Faster
	}
	spread := 1.01
	if v == benchrun.Undecided && !f.narrow {
		spread = 1.5
	}
	hi := ratio * spread
	row := &benchrun.Row{Name: "Sum-2", Old: &benchrun.Summary{Center: f.time(o)}, New: &benchrun.Summary{Center: f.time(n)},
		Compare: &benchrun.Comparison{Verdict: v, N1: 6, N2: 6, Decision: &benchrun.Decision{Verdict: v, Ratio: ratio, Lo: ratio / spread, Hi: &hi}}}
	return &benchrun.Result{Tables: []*benchrun.Table{{Unit: "sec/op", Rows: []*benchrun.Row{row}}}}, nil
}

func TestRun(t *testing.T) {
	const n = 40
	dir, hashes := history(t, n)
	index := map[string]int{}
	for i, h := range hashes {
		index[h] = i
	}
	step := func(at int, by float64) func(int) float64 {
		return func(i int) float64 {
			if i >= at {
				return 100 * (1 + by)
			}
			return 100
		}
	}
	for _, tt := range []struct {
		name      string
		time      func(int) float64
		undecided func(int) bool
		narrow    bool   // an undecided interval is narrow: within the threshold
		culprit   int    // index; -1: none
		reason    string // in Reason, when no culprit
	}{
		{name: "at the first commit", time: step(1, 0.10), culprit: 1},
		{name: "at the last", time: step(n, 0.10), culprit: n},
		{name: "in the middle", time: step(17, 0.30), culprit: 17},
		{name: "just past the threshold", time: step(23, 0.06), culprit: 23},
		{name: "under the threshold", time: step(23, 0.04), culprit: -1, reason: "is not slower than"},
		{name: "no change", time: func(int) float64 { return 100 }, culprit: -1, reason: "no commit tested was"},
		{name: "in steps of 1%", time: func(i int) float64 { return 100 + float64(i) }, culprit: -1, reason: "no single commit explains it"},
		{name: "a commit that cannot be told", time: step(30, 0.10), undecided: func(i int) bool { return i == 20 }, culprit: -1,
			reason: "could not tell whether " + hashes[20][:12] + " is slower than " + hashes[0][:12] + " (Sum-2 undecided after 6 runs a side): the culprit is after " + hashes[0][:12] + " and at or before " + hashes[n][:12]},
		// Undecided, but surely not slower by 5%: a good commit.
		{name: "undecided within the threshold", time: step(30, 0.10), undecided: func(i int) bool { return i == 20 }, narrow: true, culprit: 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCompare{index: index, time: tt.time, undecided: tt.undecided, narrow: tt.narrow}
			var seen int
			res, err := Run(context.Background(), Options{Dir: dir, Good: hashes[0], Bad: "HEAD", Threshold: 0.05, Compare: f.compare,
				Step: func(Step) { seen++ }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Commits != n || res.Good.Hash != hashes[0] || res.Bad.Hash != hashes[n] || res.Bad.Subject != fmt.Sprintf("commit %d", n) {
				t.Errorf("range: %d commits, %+v..%+v", res.Commits, res.Good, res.Bad)
			}
			if max := MaxSteps(n); f.calls > max || len(res.Steps) != f.calls || seen != f.calls {
				t.Errorf("%d comparisons (%d steps, %d seen), want at most %d", f.calls, len(res.Steps), seen, max)
			}
			switch {
			case tt.culprit >= 0 && (res.Culprit == nil || res.Culprit.Hash != hashes[tt.culprit]):
				t.Errorf("culprit %+v (%s), want commit %d", res.Culprit, res.Reason, tt.culprit)
			case tt.culprit >= 0:
				last := res.Steps[len(res.Steps)-1]
				if !last.Confirm || last.Old != hashes[tt.culprit-1] || last.New != hashes[tt.culprit] || last.Verdict != Slower ||
					last.At != tt.culprit || last.Subject != fmt.Sprintf("commit %d", tt.culprit) {
					t.Errorf("the last step %+v is not the culprit against its parent, slower", last)
				}
			case res.Culprit != nil:
				t.Errorf("culprit %+v, want none (%s)", res.Culprit, tt.reason)
			case !strings.Contains(res.Reason, tt.reason):
				t.Errorf("reason %q, want %q in it", res.Reason, tt.reason)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	dir, hashes := history(t, 3)
	other, _ := history(t, 1)
	f := &fakeCompare{time: func(int) float64 { return 1 }}
	for _, tt := range []struct {
		name      string
		dir       string
		good, bad string
		threshold float64
		want      string
	}{
		{"no such revision", dir, "nope", "HEAD", 0.05, `good revision "nope": not found`},
		{"the same commit", dir, "HEAD", hashes[3], 0.05, "the same commit: nothing to bisect"},
		{"good after bad", dir, "HEAD", hashes[1], 0.05, "not on the bad one's first-parent history"},
		{"no threshold", dir, hashes[0], "HEAD", 0, "threshold 0"},
		{"not a repository", t.TempDir(), hashes[0], "HEAD", 0.05, "not a Git repository"},
		{"no such directory", filepath.Dir(other) + "/none", hashes[0], "HEAD", 0.05, "no such file or directory"},
	} {
		if _, err := Run(context.Background(), Options{Dir: tt.dir, Good: tt.good, Bad: tt.bad, Threshold: tt.threshold, Compare: f.compare}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
	if f.calls > 0 {
		t.Errorf("%d comparisons ran for bisections that could not start", f.calls)
	}
}

// A step whose change affects no benchmark (benchrun's selection ran
// nothing) is not slower; one that ran nothing otherwise is undecided.
func TestJudgeNothingRan(t *testing.T) {
	none := &benchrun.Result{Tables: []*benchrun.Table{}, Run: &benchrun.RunInfo{Selection: &benchrun.Selection{Unchanged: []string{"./a"}}}}
	if s := judge(none, 0.05); s.Verdict != NotSlower {
		t.Errorf("nothing affected: %s, want %s", s.Verdict, NotSlower)
	}
	empty := &benchrun.Result{Tables: []*benchrun.Table{}, Run: &benchrun.RunInfo{Packages: []string{"example.com/a"}}}
	if s := judge(empty, 0.05); s.Verdict != Undecided {
		t.Errorf("no rows: %s, want %s", s.Verdict, Undecided)
	}
}

// TestJudge is judge's rule over several rows, at a threshold of 5%: a
// step is slower when any sec/op row is slower by more than the
// threshold; not slower when every row is decided otherwise (faster,
// the same, slower by less) or undecided with its interval below the
// threshold; else undecided. Other units never count.
func TestJudge(t *testing.T) {
	type r struct {
		unit, verdict string
		ratio, lo, hi float64 // hi 0: unbounded
	}
	tests := []struct {
		name string
		rows []r
		want string
	}{
		{"one row slower of three", []r{{"sec/op", "same", 1, 0.99, 1.01}, {"sec/op", "slower", 1.10, 1.07, 1.13}, {"sec/op", "faster", 0.9, 0.88, 0.92}}, Slower},
		{"slower by less than the threshold", []r{{"sec/op", "slower", 1.03, 1.01, 1.05}, {"sec/op", "same", 1, 0.99, 1.01}}, NotSlower},
		{"every row decided otherwise", []r{{"sec/op", "faster", 0.8, 0.7, 0.9}, {"sec/op", "same", 1, 0.98, 1.02}}, NotSlower},
		{"undecided below the threshold", []r{{"sec/op", "undecided", 1.01, 0.97, 1.04}, {"sec/op", "same", 1, 0.99, 1.01}}, NotSlower},
		{"undecided reaching past the threshold", []r{{"sec/op", "undecided", 1.02, 0.9, 1.2}, {"sec/op", "same", 1, 0.99, 1.01}}, Undecided},
		{"undecided unbounded", []r{{"sec/op", "undecided", 1.02, 0, 0}}, Undecided},
		{"slower beats undecided", []r{{"sec/op", "undecided", 1.02, 0.9, 1.2}, {"sec/op", "slower", 1.2, 1.1, 1.3}}, Slower},
		{"only B/op slower", []r{{"B/op", "slower", 2, 1.9, 2.1}, {"sec/op", "same", 1, 0.99, 1.01}}, NotSlower},
		{"no sec/op rows", []r{{"B/op", "same", 1, 1, 1}}, Undecided},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tables := map[string]*benchrun.Table{}
			res := &benchrun.Result{}
			for i, x := range tt.rows {
				tb := tables[x.unit]
				if tb == nil {
					tb = &benchrun.Table{Unit: x.unit}
					tables[x.unit] = tb
					res.Tables = append(res.Tables, tb)
				}
				d := &benchrun.Decision{Verdict: x.verdict, Ratio: x.ratio, Lo: x.lo}
				if x.hi != 0 {
					d.Hi = &x.hi
				}
				tb.Rows = append(tb.Rows, &benchrun.Row{Name: fmt.Sprintf("B%d-2", i),
					Compare: &benchrun.Comparison{Verdict: x.verdict, N1: 12, N2: 12, Decision: d}})
			}
			if s := judge(res, 0.05); s.Verdict != tt.want {
				t.Errorf("judge = %s, want %s; rows %v", s.Verdict, tt.want, s.Rows)
			}
		})
	}
}
