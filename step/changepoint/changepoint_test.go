package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// series returns n points around 100 with relative noise, multiplied by
// each step's factor from its index on.
func series(r *rand.Rand, n int, noise float64, steps map[int]float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		level := 100.0
		for at, f := range steps {
			if i >= at {
				level *= f
			}
		}
		xs[i] = level * (1 + noise*r.NormFloat64())
	}
	return xs
}

// TestDetect checks the histories of the track issue's target: 40 commits
// with a 10% slowdown at one, 30% at another and a 20% speedup at a
// third, at 2% noise (a median's, on this machine, for a quiet benchmark),
// found exactly; and the same 40 with no change, in which none is found
// with MinChange 5%. Each case runs on 200 seeds, and the counts are the
// test: no false change point in any A/A series, each real one found
// within a commit in all but a few.
func TestDetect(t *testing.T) {
	steps := map[int]float64{12: 1.10, 25: 1.30, 33: 0.80}
	var found, exact, extra, aaFalse, aaNoMin int
	const seeds = 200
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 1))
		pts := Detect(series(r, 40, 0.02, steps), Options{MinChange: 0.05})
		got := map[int]bool{}
		for _, p := range pts {
			got[p.Index] = true
		}
		for at := range steps {
			switch {
			case got[at]:
				found++
				exact++
			case got[at-1] || got[at+1]:
				found++
			}
		}
		extra += len(pts)
		aaSeries := series(r, 40, 0.02, nil)
		aaFalse += len(Detect(aaSeries, Options{MinChange: 0.05}))
		aaNoMin += len(Detect(aaSeries, Options{}))
	}
	extra -= found
	t.Logf("%d seeds: %d of %d changes found (%d at the exact commit), %d points elsewhere; A/A: %d change points (%d without MinChange)", seeds, found, 3*seeds, exact, extra, aaFalse, aaNoMin)
	if found < 3*seeds*98/100 || exact < 3*seeds*95/100 {
		t.Errorf("found %d and exactly %d of %d changes, want at least 98%% and 95%%", found, exact, 3*seeds)
	}
	if extra > seeds/20 {
		t.Errorf("%d change points where there was none, in %d series", extra, seeds)
	}
	if aaFalse > 0 {
		t.Errorf("%d change points in %d series that did not change", aaFalse, seeds)
	}
	// P alone is not a false-alarm rate (see the package comment): about
	// 5% of unchanged series get a point; far more would mean a broken test.
	if aaNoMin > seeds/10 {
		t.Errorf("%d change points in %d unchanged series without MinChange, want about 5%%", aaNoMin, seeds)
	}
}

// TestDetectPoint checks one series' points whole: where, the means
// either side, and the direction.
func TestDetectPoint(t *testing.T) {
	xs := []float64{10, 10.1, 9.9, 10, 10.2, 9.8, 13, 13.1, 12.9, 13, 13.2, 12.8}
	pts := Detect(xs, Options{})
	if len(pts) != 1 {
		t.Fatalf("points %+v, want one", pts)
	}
	p := pts[0]
	if p.Index != 6 || math.Abs(p.Before-10) > 1e-9 || math.Abs(p.After-13) > 1e-9 || !(p.P < 0.001) || math.Abs(p.Ratio()-1.3) > 1e-9 {
		t.Errorf("point %+v, want at 6, 10 → 13, p < 0.001", p)
	}
	// Constant, and too short: nothing.
	for _, xs := range [][]float64{{5, 5, 5, 5, 5, 5, 5, 5}, {1, 2, 3, 4, 5}, nil} {
		if pts := Detect(xs, Options{}); len(pts) != 0 {
			t.Errorf("Detect(%v) = %+v, want none", xs, pts)
		}
	}
	// Constant sides that differ: a change, p = 0.
	if pts := Detect([]float64{1, 1, 1, 1, 2, 2, 2, 2}, Options{}); len(pts) != 1 || pts[0].Index != 4 || pts[0].P != 0 {
		t.Errorf("a step between constants: %+v", pts)
	}
}

// TestSums checks the sorted sums of distances against their definitions.
func TestSums(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		a := sorted(series(r, 1+r.IntN(20), 0.3, nil))
		b := sorted(series(r, 1+r.IntN(20), 0.3, nil))
		var pairs, cross float64
		for i := range a {
			for k := i + 1; k < len(a); k++ {
				pairs += math.Abs(a[i] - a[k])
			}
			for _, y := range b {
				cross += math.Abs(a[i] - y)
			}
		}
		if math.Abs(pairSum(a)-pairs) > 1e-6*pairs+1e-9 || math.Abs(crossSum(a, b)-cross) > 1e-6*cross {
			t.Fatalf("pairSum %v want %v; crossSum %v want %v", pairSum(a), pairs, crossSum(a, b), cross)
		}
	}
}

// TestDetectLog: a fourfold slowdown whose slow side is noisier, 4
// points a side, is found on the logarithms (p ≈ 10⁻⁴), not on the times
// (p ≈ 0.002: the slow side's variance leaves Welch's test 3 degrees of
// freedom); the means are geometric.
func TestDetectLog(t *testing.T) {
	xs := []float64{0.955, 0.854, 0.952, 0.922, 3.94, 3.70, 4.11, 2.89}
	if got := Detect(xs, Options{MinChange: 0.05}); len(got) != 0 {
		t.Errorf("on the times: %+v, want none (p just over 0.001)", got)
	}
	got := Detect(xs, Options{MinChange: 0.05, Log: true})
	if len(got) != 1 || got[0].Index != 4 || got[0].P > 0.001 {
		t.Fatalf("on the logarithms: %+v, want one at 4", got)
	}
	if r := got[0].Ratio(); r < 3.8 || r > 4.0 {
		t.Errorf("ratio of the geometric means %v, want about 3.9", r)
	}
}
