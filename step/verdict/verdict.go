// Package verdict decides, from the runs of one benchmark before and after
// a change, whether the change made it faster, slower, or the same within
// a margin, or whether the runs cannot tell; and it decides after each
// round of runs, so that a job stops running a benchmark once its verdict
// is known, with error rates that hold however many times it looked.
//
// # The derivation
//
// Model. A benchmark's runs on one side are independent draws of a
// positive figure (ns/op, B/s); the change multiplies the figure by a
// factor r, the same for every run (the location-shift model behind the
// Mann-Whitney U test, taken on the logarithms, since benchmarks compare
// ratios). r = 1 is no change.
//
// Interval. Take the m·n differences D = log y_j − log x_i of the new
// runs y and the old runs x, sorted. With k the largest integer for which
// P(U < k) ≤ γ/2 under the null distribution of the Mann-Whitney statistic
// U for m and n runs, [D(k), D(mn+1−k)] holds log r with probability at
// least 1−γ, whatever the runs' distribution, as long as it is continuous
// (Lehmann, "Nonparametrics", 1975, §2.6; Bauer, JASA 67, 1972). Its
// middle, the median of D, is the Hodges-Lehmann estimate of log r. The
// null distribution is computed exactly (mw.go), as benchstat's p-values
// are, not from the normal approximation, which is wrong at 5 runs.
//
// Looking repeatedly. A plan looks at most K times (after rounds that
// bring each side to n_1 < … < n_K runs, n_K the cap). Computing every
// look's interval at γ = α/K makes the K intervals hold log r all at once
// with probability at least 1−α, whatever the dependence between looks
// (Bonferroni): they are repeated confidence intervals in the sense of
// Jennison and Turnbull ("Interim analyses: the repeated confidence
// interval approach", JRSS B 51, 1989), with the simplest and most
// cautious spending of α. Stopping at the first look whose interval is
// significant, the known failure of "run until p < 0.05", is what this
// guards against (Armitage, McPherson and Rowe, JRSS A 132, 1969).
//
// Verdicts. At each look, with the interval [lo, hi] of log r and the
// margin m = log(1+E):
//
//   - lo > 0 or hi < 0: the change is not zero: faster or slower, in the
//     unit's direction, by the estimate, with its interval;
//   - −m < lo and hi < m: the same within ±E;
//   - otherwise, not yet: another round, or at the cap, undecided.
//
// Error rates. A false faster or slower (r = 1) needs an interval that
// misses 0 = log r; a false same (|log r| ≥ m, a change of E or more)
// needs an interval inside (−m, m) that misses log r. Either needs some
// look's interval to miss log r, which has probability at most α, so the
// chance of any wrong verdict is at most α (5%) over all looks. Stopping
// early as undecided is never wrong, and needs none of α: a row stops
// when, its interval's half-width projected to the cap as w·√(n/n_K) (an
// interval shrinks as 1/√n), neither verdict could be reached there with
// the estimate so far (futility). At the first look the projection is
// halved: six runs a side give an interval wider than 1/√n says (for
// normal runs 1.22 times the projection, the exact interval's bounds
// being the 3rd and 34th of 36 differences; more for the heavy tails of a
// busy machine's), and a row that could still differ is let run. Measured
// on the simulated rows of TestErrorRates, this takes unchanged rows from
// 12.4 to 8.9 runs a side on average, and changes the share of 2x
// changes decided on a busy machine from 95.4% to 93.8%; stopping there
// with the whole projection (7.1 runs) would have decided only 87.9%.
//
// Noise. Each decision says the smallest change its runs could have
// detected with 80% power: with the interval's half-width w at level 1−γ,
// the estimate's standard error is about w/z(1−γ/2), and a shift of
// (z(1−γ/2) + z(0.8))·se is detected four times in five.
//
// Figures that are not all positive (allocations, which are often 0) are
// compared on their own scale instead of their logarithms, with the
// margin E times the old median; when every run of both sides gave the
// same figure the verdict is same at once.
package verdict

import (
	"fmt"
	"math"
	"slices"
)

// A Verdict is what a Decision says of a benchmark.
type Verdict string

// The verdicts. Faster and Slower are in the unit's direction: for a unit
// where higher is better (B/s), faster is higher; for allocations and
// bytes, faster means fewer.
const (
	Continue  Verdict = ""          // not known yet: run another round
	Faster    Verdict = "faster"    // better, by Decision.Ratio
	Slower    Verdict = "slower"    // worse, by Decision.Ratio
	Same      Verdict = "same"      // within ±Plan.Margin
	Undecided Verdict = "undecided" // the cap came first, or could not help
)

// A Plan is how a sequential comparison looks at its runs.
type Plan struct {
	// Looks are the runs per side after each round, increasing; the
	// last is the cap. A plan of one look is the fixed design.
	Looks []int
	// Alpha bounds the chance of any wrong verdict (faster, slower or
	// same), over all looks.
	Alpha float64
	// Margin is E: "same" means new/old within 1±E.
	Margin float64
	// NoFutility keeps a row running to the cap when neither verdict
	// looks reachable: for a caller whose question is not faster,
	// slower or the same within ±E (a bisection asks only "slower by
	// more than E?", which an interval can answer where ±E cannot).
	NoFutility bool
}

// Round is the runs a side between looks in patchbot's plans: 6, the
// fewest for which a median has a 95% confidence interval (benchmath), so
// that a benchmark decided at the first look still shows its ± in the
// tables; with rounds of 5 one decided there would show none. Six runs a
// side also let the first look decide a large change at all: at 5 and
// 5, with α spread over the looks, only the most extreme of the 252
// orders of the ranks would.
const Round = 6

// DefaultPlan is patchbot's: a look every Round runs up to 30 per side,
// α = 5%, same within ±2%.
func DefaultPlan() Plan {
	return Plan{Looks: Looks(Round, 30), Alpha: 0.05, Margin: 0.02}
}

// Looks returns looks every step runs up to max, max included.
func Looks(step, max int) []int {
	var looks []int
	for n := step; n < max; n += step {
		looks = append(looks, n)
	}
	return append(looks, max)
}

// Validate reports what is wrong with p, if anything.
func (p Plan) Validate() error {
	if len(p.Looks) == 0 {
		return fmt.Errorf("a plan needs at least one look")
	}
	for i, n := range p.Looks {
		if n < 2 || (i > 0 && n <= p.Looks[i-1]) {
			return fmt.Errorf("looks %v: want increasing counts of at least 2 runs", p.Looks)
		}
	}
	if !(p.Alpha > 0 && p.Alpha < 1) {
		return fmt.Errorf("alpha %v: want a probability between 0 and 1, like 0.05", p.Alpha)
	}
	if !(p.Margin > 0 && p.Margin < 1) {
		return fmt.Errorf("margin %v: want a fraction between 0 and 1, like 0.02", p.Margin)
	}
	return nil
}

// Level returns the confidence level of each look's interval, 1 − α/K.
func (p Plan) Level() float64 { return 1 - p.Alpha/float64(len(p.Looks)) }

// A Decision is a plan's verdict on one benchmark at one look.
type Decision struct {
	Verdict Verdict
	// Ratio estimates new/old (1 is no change); Lo and Hi bound it at
	// Level. Lo is 0 and Hi +Inf when the runs are too few for an
	// interval. For figures that are not all positive, they are
	// 1 + (new − old)/old median, on the old median's scale.
	Ratio, Lo, Hi float64
	Level         float64
	N             [2]int // runs used, old and new
	// Detectable is the smallest change (0.05 for 5%) these runs would
	// detect with 80% power; +Inf when the runs are too few to say.
	Detectable float64
	// Futile is set on an Undecided before the cap: the cap would not
	// have decided either, at the spread measured.
	Futile bool
}

// z08 is the standard normal quantile of 0.8, for 80% power.
const z08 = 0.8416212335729143

// Decide returns the plan's decision on the runs old and new at look
// (0-based: the look after the first round is 0). higherIsBetter is the
// unit's direction (B/s: true; sec/op, B/op, allocs/op: false).
func (p Plan) Decide(old, new []float64, look int, higherIsBetter bool) Decision {
	last := look >= len(p.Looks)-1
	gamma := p.Alpha / float64(len(p.Looks))
	d := Decision{Level: 1 - gamma, N: [2]int{len(old), len(new)}, Lo: 0, Hi: math.Inf(1), Ratio: 1, Detectable: math.Inf(1)}
	if len(old) == 0 || len(new) == 0 {
		if last {
			d.Verdict = Undecided
		}
		return d
	}
	for _, x := range slices.Concat(old, new) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			// No order, no difference: nothing to decide from.
			// (benchrun omits such runs before they get here.)
			d.Verdict = Undecided
			return d
		}
	}

	// The scale: logarithms of positive figures, else the figures
	// themselves over the old median.
	logScale := true
	for _, x := range slices.Concat(old, new) {
		if !(x > 0) {
			logScale = false
			break
		}
	}
	if allEqual(old, new) {
		d.Verdict, d.Lo, d.Hi, d.Detectable = Same, 1, 1, 0
		return d
	}
	margin := math.Log1p(p.Margin)
	tr := math.Log
	toRatio := math.Exp
	if !logScale {
		base := median(old)
		if base == 0 {
			// Nothing to scale by: only "no change at all" is the
			// same, handled above; a change from 0 is a change.
			base = 1
			margin = 0
		}
		tr = func(x float64) float64 { return x / math.Abs(base) }
		toRatio = func(x float64) float64 { return 1 + x }
	}
	diffs := make([]float64, 0, len(old)*len(new))
	for _, y := range new {
		for _, x := range old {
			diffs = append(diffs, tr(y)-tr(x))
		}
	}
	slices.Sort(diffs)
	center := median(diffs)
	d.Ratio = toRatio(center)

	k := lowerRank(len(old), len(new), gamma/2)
	if k == 0 {
		// Too few runs for an interval at this level.
		if last {
			d.Verdict = Undecided
		}
		return d
	}
	lo, hi := diffs[k-1], diffs[len(diffs)-k]
	d.Lo, d.Hi = toRatio(lo), toRatio(hi)
	z := normalQuantile(1 - gamma/2)
	half := (hi - lo) / 2
	d.Detectable = math.Expm1(half * (1 + z08/z))
	if !logScale {
		d.Detectable = half * (1 + z08/z)
	}

	better := func(x float64) bool { return (x > 0) == higherIsBetter }
	switch {
	case lo > 0 || hi < 0:
		d.Verdict = Slower
		if better(center) {
			d.Verdict = Faster
		}
		return d
	case -margin < lo && hi < margin:
		d.Verdict = Same
		return d
	case last:
		d.Verdict = Undecided
		return d
	}
	// Futility: at the cap, the interval's half-width would be about
	// half·√(n/cap); at the first look, half that (see the derivation).
	if p.NoFutility {
		return d
	}
	n := float64(min(len(old), len(new)))
	capHalf := half * math.Sqrt(n/float64(p.Looks[len(p.Looks)-1]))
	if look == 0 {
		capHalf /= 2
	}
	canSame := math.Abs(center)+capHalf < margin
	canDiffer := math.Abs(center) > capHalf
	if !canSame && !canDiffer {
		d.Verdict, d.Futile = Undecided, true
	}
	return d
}

func allEqual(a, b []float64) bool {
	for _, x := range slices.Concat(a, b) {
		if x != a[0] {
			return false
		}
	}
	return true
}

// median returns the median of xs, sorted or not, without changing it.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// normalQuantile returns the standard normal quantile of p, 0 < p < 1.
func normalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// Text returns d in a reviewer's words, for a plan of margin E:
// "faster: -12.3% [-15.0%, -9.1%]", "same within ±2%", "not enough runs
// to tell: too noisy here to tell 2% (it would take 31%)". The figures are
// the change new/old − 1 and its interval.
func (d Decision) Text(margin float64) string {
	pct := func(r float64) string { return fmt.Sprintf("%+.1f%%", 100*(r-1)) }
	switch d.Verdict {
	case Faster, Slower:
		return fmt.Sprintf("%s: %s [%s, %s]", d.Verdict, pct(d.Ratio), pct(d.Lo), pct(d.Hi))
	case Same:
		return fmt.Sprintf("same within ±%g%%", 100*margin)
	case Undecided:
		if math.IsInf(d.Detectable, 1) {
			return "not enough runs to tell"
		}
		if d.Detectable > margin {
			return fmt.Sprintf("not enough runs to tell: too noisy here to tell %g%% (it would take %.0f%%)", 100*margin, 100*d.Detectable)
		}
		return "not enough runs to tell"
	}
	return "not decided yet"
}
