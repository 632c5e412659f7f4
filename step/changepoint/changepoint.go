// Package changepoint finds where a series of benchmark results changed
// level: the commits after which a benchmark's time moved and stayed.
//
// The method is E-divisive means as Hunter uses it (Fleming et al.,
// "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", ICPE 2023; MongoDB's before it: Daly et al., "The Use of
// Change Point Detection to Identify Software Performance Regressions in
// a Continuous Integration System", ICPE 2020). A segment of the series is
// split where the energy statistic of Matteson and James ("A
// Nonparametric Approach for Multiple Change Point Analysis of
// Multivariate Data", JASA 109, 2014) is largest,
//
//	Q(τ) = mn/(m+n) · ( 2/(mn) Σ|xᵢ−yⱼ| − 1/C(m,2) Σ|xᵢ−xₖ| − 1/C(n,2) Σ|yⱼ−yₖ| )
//
// for the m points x before τ and the n points y from τ on (with α = 1,
// the distance itself); the split is kept when Welch's t-test finds the
// two sides' means different at level P (Hunter's replacement for the
// original's permutation test, which needs hundreds of reshuffles a
// split, and whose result changes from run to run), and when the change
// is at least MinChange; then each side is split again, until no split is
// kept. Points within MinSize of a segment's end are not candidates: a
// change needs runs on both sides to be seen.
//
// The t-test is taken where the statistic is largest, which is where the
// two sides differ most by chance too, so its p-value is smaller than the
// same test's on a split chosen beforehand: on 1,000 simulated series of
// 40 points that did not change (2% noise), P = 0.001 alone left 47
// change points; with MinChange at 5%, none (TestDetect). A caller that
// acts on a change point (a bisection) gives MinChange.
//
// The sums of distances are computed from sorted copies, in O(n log n) a
// candidate, so a segment of n points costs O(n² log n).
package changepoint

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Options tune the detection. The zero value means the defaults.
type Options struct {
	// P is the t-test's level for a split to stand; 0 means 0.001, as
	// a series is split many times and a false change point costs a
	// bisection.
	P float64
	// MinSize is the fewest points on each side of a change; 0 means 3.
	MinSize int
	// MinChange is the smallest relative change of the means that
	// counts (0.05 for 5%); 0 means any.
	MinChange float64
	// Log searches the logarithms of the points, which must be
	// positive: for times, whose noise grows with them, so that a
	// slowdown's noisier side does not starve Welch's test of degrees
	// of freedom (4 points at 1 µs ±5% and 4 at 4 µs ±15% give p = 0.002
	// as they are, 10⁻⁴ as logarithms). The means are then geometric.
	Log bool
}

// A Point is a change point.
type Point struct {
	// Index is the first point of the series after the change.
	Index int
	// Before and After are the means of the segments either side of it,
	// as the final segmentation has them.
	Before, After float64
	// P is the t-test's p-value when the split was made.
	P float64
}

// Ratio returns After/Before: above 1 for a slowdown of a time.
func (p Point) Ratio() float64 { return p.After / p.Before }

// Detect returns the change points of xs, in order.
func Detect(xs []float64, o Options) []Point {
	if o.P <= 0 {
		o.P = 0.001
	}
	if o.MinSize <= 0 {
		o.MinSize = 3
	}
	if o.Log {
		logs := make([]float64, len(xs))
		for i, x := range xs {
			logs[i] = math.Log(x)
		}
		xs = logs
	}
	// ratio is the change from a segment's mean to the next's.
	ratio := func(ml, mr float64) float64 {
		if o.Log {
			return math.Exp(mr - ml)
		}
		return mr / ml
	}
	var splits []Point
	type segment struct{ lo, hi int }
	queue := []segment{{0, len(xs)}}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		tau, ok := bestSplit(xs[s.lo:s.hi], o.MinSize)
		if !ok {
			continue
		}
		left, right := xs[s.lo:s.lo+tau], xs[s.lo+tau:s.hi]
		p := welchP(left, right)
		ml, mr := mean(left), mean(right)
		if p >= o.P || (o.MinChange > 0 && math.Abs(ratio(ml, mr)-1) < o.MinChange) {
			continue
		}
		splits = append(splits, Point{Index: s.lo + tau, P: p})
		queue = append(queue, segment{s.lo, s.lo + tau}, segment{s.lo + tau, s.hi})
	}
	slices.SortFunc(splits, func(a, b Point) int { return a.Index - b.Index })
	for i := range splits {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = splits[i-1].Index
		}
		if i+1 < len(splits) {
			hi = splits[i+1].Index
		}
		splits[i].Before = mean(xs[lo:splits[i].Index])
		splits[i].After = mean(xs[splits[i].Index:hi])
		if o.Log {
			splits[i].Before, splits[i].After = math.Exp(splits[i].Before), math.Exp(splits[i].After)
		}
	}
	return splits
}

// bestSplit returns the τ, minSize ≤ τ ≤ len(xs)−minSize, that maximizes
// the energy statistic Q, and whether there is one.
func bestSplit(xs []float64, minSize int) (int, bool) {
	n := len(xs)
	if n < 2*minSize {
		return 0, false
	}
	best, bestQ := 0, math.Inf(-1)
	for tau := minSize; tau <= n-minSize; tau++ {
		if q := energy(xs[:tau], xs[tau:]); q > bestQ {
			best, bestQ = tau, q
		}
	}
	return best, bestQ > 0
}

// energy returns Q for the samples x and y.
func energy(x, y []float64) float64 {
	m, n := float64(len(x)), float64(len(y))
	sx, sy := sorted(x), sorted(y)
	between := crossSum(sx, sy)
	within := func(s []float64) float64 {
		k := float64(len(s))
		if k < 2 {
			return 0
		}
		return pairSum(s) / (k * (k - 1) / 2)
	}
	e := 2*between/(m*n) - within(sx) - within(sy)
	return m * n / (m + n) * e
}

func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// pairSum returns Σ_{i<k} |s_i − s_k| of the sorted s: each s_i is the
// larger of i pairs and the smaller of len−1−i.
func pairSum(s []float64) float64 {
	sum := 0.0
	for i, v := range s {
		sum += v * float64(2*i-len(s)+1)
	}
	return sum
}

// crossSum returns Σ_i Σ_j |a_i − b_j| of the sorted a and b.
func crossSum(a, b []float64) float64 {
	// For each a_i: the b below it contribute a_i·k − (their sum), the
	// rest (their sum) − a_i·(n−k).
	var total, below float64
	k := 0
	sumB := 0.0
	for _, v := range b {
		sumB += v
	}
	for _, v := range a {
		for k < len(b) && b[k] <= v {
			below += b[k]
			k++
		}
		total += v*float64(k) - below + (sumB - below) - v*float64(len(b)-k)
	}
	return total
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// welchP returns the two-sided p-value of Welch's t-test of x and y: 1
// when it cannot be computed (a side of one point), 0 when both sides are
// constant and differ.
func welchP(x, y []float64) float64 {
	r, err := stats.TwoSampleWelchTTest(stats.Sample{Xs: x}, stats.Sample{Xs: y}, stats.LocationDiffers)
	switch {
	case err == stats.ErrZeroVariance:
		if mean(x) != mean(y) {
			return 0
		}
		return 1
	case err != nil:
		return 1
	}
	return r.P
}
