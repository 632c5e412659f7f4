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
// Paired runs. In an interleaved order, round i runs the old and the new
// binary next to each other, so what the machine was doing then (a
// neighbour's build, a clock's throttling) slows both: the difference
// d_i = log y_i − log x_i of the pair cancels it, where the two-sample
// interval counts it as noise. Under the same model, the d_i are
// symmetric about log r (the pair's two runs are exchangeable when r = 1,
// and the side that runs first alternates), and the interval of log r is
// the signed-rank one: sort the n(n+1)/2 Walsh averages (d_i + d_j)/2,
// i ≤ j; with k the largest integer for which P(T+ < k) ≤ γ/2 under the
// null distribution of the Wilcoxon signed-rank statistic T+ for n pairs,
// [W(k), W(n(n+1)/2+1−k)] holds log r with probability at least 1−γ,
// and the median of the W is the Hodges-Lehmann estimate (Wilcoxon,
// Biometrics Bulletin 1, 1945; Tukey 1949 and Walsh, Ann. Math. Stat. 20,
// 1949; Hodges and Lehmann, Ann. Math. Stat. 34, 1963; Hollander, Wolfe
// and Chicken, "Nonparametric Statistical Methods", 2014, §3.3). The
// distribution is computed exactly (wilcoxon.go).
//
// Pairing is not better everywhere. Where the machine's load is shared
// by a pair it is far better; where it is not, and the runs are mostly
// tight with a few slow ones (a quiet machine's), the differences of
// pairs are more spread than the runs (each d_i carries two runs'
// noise, and an outlier's whole weight), and the signed-rank interval is
// wider than the two-sample one: 1.4 to 1.6 times on xxhash's runs
// alone on this kind of machine (docs/bench.md), as the asymptotic
// variances say for such a mixture. So DecidePaired takes both, each at
// level 1−γ/2, and keeps their intersection: it holds log r unless one
// of them missed it, which has probability at most γ/2 + γ/2 = γ
// (Bonferroni again), and it is as narrow as the narrower of the two at
// the smaller level. Which intervals a look uses depends only on the
// plan and the counts, never on the runs: both when the caller says the
// runs are pairs, the counts are equal, and n is large enough for a
// paired interval at γ/2 (9 pairs at the default plan's γ = 1%: P(T+ = 0)
// = 1/2^n), else the two-sample one at γ. So each look's interval still
// has level 1−γ, and the repeated-interval guarantee below holds as
// before. A look too early for pairs does not stop a row for futility:
// the two-sample interval says nothing of what pairs will narrow.
//
// Verdicts. At each look, with the interval [lo, hi] of log r, the
// margin m = log(1+E) and the second margin M = log(1+E_max):
//
//   - lo > 0 or hi < 0: the change is not zero: faster or slower, in the
//     unit's direction, by the estimate, with its interval;
//   - −m < lo and hi < m: the same, within ±X, X the larger distance of
//     the interval's ends from 1 (as a ratio), rounded up to 0.5%;
//   - at the cap, or where more runs would not bring the interval within
//     ±m (futility, below): the same within ±X if the interval lies
//     within ±M; at the cap, else undecided ("too noisy here to bound
//     below ±X");
//   - otherwise, not yet: another round.
//
// Error rates. A false faster or slower (r = 1) needs an interval that
// misses 0 = log r; a false "same within ±X" (|r − 1| > X) needs an
// interval that misses log r, since it lies within ±X. Either needs some
// look's interval to miss log r, which has probability at most α, so the
// chance of any wrong verdict is at most α (5%) over all looks, X being
// whatever the runs gave. Undecided is never wrong, and needs none of α.
// Futility: a row's interval half-width w, projected to the cap as
// w·√(n/n_K) (an interval shrinks as 1/√n), says whether more runs could
// bring it within ±m. When they could not, the row stops with its X if
// its interval lies within ±M. A row within ±M also stops when the next
// look, projected as w·√(n/n_next), would not bring it within ±m: the
// runs that take ±X to ±m grow as (X/m)², so ±4% now costs a quarter of
// ±2% later, and a reviewer can act on either. Else it runs on while the projection says
// it could still differ from no change or come within ±M (and, in a
// paired comparison, while its look is too early for pairs), and stops
// undecided when it could do neither. At the first look the projection is
// halved: six runs a side give an interval wider than 1/√n says (for
// normal runs 1.22 times the projection, the exact interval's bounds
// being the 3rd and 34th of 36 differences; more for the heavy tails of a
// busy machine's), and a row that could still differ is let run.
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
	"strconv"
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
	// Margin is E: a row whose interval lies within 1±E is the same,
	// and needs no more runs.
	Margin float64
	// MarginMax is the second margin: a row that more runs would not
	// bring within ±E, but whose interval holds 1 and lies within
	// ±MarginMax, is "the same within ±X" (X its interval's bound);
	// past it, undecided. 0 means Margin: only ±E is the same.
	MarginMax float64
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
// α = 5%, same within ±2%, or within ±5% where more runs would not help.
func DefaultPlan() Plan {
	return Plan{Looks: Looks(Round, 30), Alpha: 0.05, Margin: 0.02, MarginMax: 0.05}
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
	if p.MarginMax != 0 && !(p.MarginMax >= p.Margin && p.MarginMax < 1) {
		return fmt.Errorf("second margin %v: want a fraction from the margin %v to 1, like 0.05", p.MarginMax, p.Margin)
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
	// Bound is X, the larger distance of the interval's ends from 1,
	// rounded up to the next half percent (0.015 for ±1.5%): a Same is
	// "the same within ±X"; an Undecided, too noisy to bound below it.
	// 0 when there is no interval.
	Bound float64
	// Paired is set when the interval is DecidePaired's, the pairs'
	// and the two samples' together, not the two samples' alone.
	Paired bool
	// Futile is set on a decision made before the cap because the cap
	// would not have decided better, at the spread measured.
	Futile bool
}

// z08 is the standard normal quantile of 0.8, for 80% power.
const z08 = 0.8416212335729143

// Decide returns the plan's decision on the runs old and new at look
// (0-based: the look after the first round is 0), taken as two
// independent samples. higherIsBetter is the unit's direction (B/s:
// true; sec/op, B/op, allocs/op: false).
func (p Plan) Decide(old, new []float64, look int, higherIsBetter bool) Decision {
	return p.decide(old, new, look, higherIsBetter, false)
}

// DecidePaired is Decide for runs made in pairs: old[i] and new[i] ran
// next to each other (the i-th round of an interleaved order), so that
// what the machine did then slowed both. It takes the intersection of
// the pairs' signed-rank interval and the two samples' one (see the
// derivation); with unequal counts, or at a look too early for pairs, it
// is Decide.
func (p Plan) DecidePaired(old, new []float64, look int, higherIsBetter bool) Decision {
	return p.decide(old, new, look, higherIsBetter, len(old) == len(new))
}

func (p Plan) decide(old, new []float64, look int, higherIsBetter, paired bool) Decision {
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
	widest := math.Log1p(p.widest())
	tr := math.Log
	toRatio := math.Exp
	if !logScale {
		base := median(old)
		if base == 0 {
			// Nothing to scale by: only "no change at all" is the
			// same, handled above; a change from 0 is a change.
			base = 1
			margin, widest = 0, 0
		}
		tr = func(x float64) float64 { return x / math.Abs(base) }
		toRatio = func(x float64) float64 { return 1 + x }
		widest = p.widest()
	}

	center, lo, hi, ok := 0.0, 0.0, 0.0, false
	if paired {
		center, lo, hi, ok = bothIntervals(old, new, tr, gamma)
		d.Paired = ok
	}
	if !ok {
		center, lo, hi, ok = unpairedInterval(old, new, tr, gamma)
	}
	d.Ratio = toRatio(center)
	if !ok {
		// Too few runs for an interval at this level.
		if last {
			d.Verdict = Undecided
		}
		return d
	}
	d.Lo, d.Hi = toRatio(lo), toRatio(hi)
	d.Bound = Bound(d.Lo, d.Hi)
	z := normalQuantile(1 - gamma/2)
	half := (hi - lo) / 2
	d.Detectable = math.Expm1(half * (1 + z08/z))
	if !logScale {
		d.Detectable = half * (1 + z08/z)
	}

	better := func(x float64) bool { return (x > 0) == higherIsBetter }
	// bounded: the interval holds 0 and lies within ±widest, so that
	// "the same within ±Bound" is true at the interval's level.
	bounded := max(-lo, hi) <= widest
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
		if bounded {
			d.Verdict = Same
		}
		return d
	}
	if p.NoFutility {
		return d
	}
	// Futility: at the cap, the interval's half-width would be about
	// half·√(n/cap); at the first look, half that (see the derivation).
	n := float64(min(len(old), len(new)))
	capHalf := half * math.Sqrt(n/float64(p.Looks[len(p.Looks)-1]))
	if look == 0 {
		capHalf /= 2
	}
	// At the next look: the same projection, to the runs the next
	// round gives (at the first look, shrunk by the exact interval's
	// 1.22 rather than halved: a bounded row is stopped, not let run).
	next := float64(p.Looks[look+1])
	nextHalf := half * math.Sqrt(n/next)
	if look == 0 {
		nextHalf /= firstLookWidth
	}
	canSame := math.Abs(center)+capHalf < margin
	soonSame := math.Abs(center)+nextHalf < margin
	canDiffer := math.Abs(center) > capHalf
	canBound := math.Abs(center)+capHalf <= widest
	switch {
	case bounded && !soonSame:
		// Bounded within ±E_max, and another round would not bring
		// it within ±E: its bound now. The runs to get from ±X to
		// ±E grow as (X/E)², so ±4% now costs a quarter of ±2% later.
		d.Verdict, d.Futile = Same, true
	case canSame:
	case canDiffer, paired && !d.Paired:
		// A row that could still differ runs on; so does a paired
		// row too early for pairs, whose two-sample interval says
		// nothing of what pairs will narrow.
	case !canBound:
		d.Verdict, d.Futile = Undecided, true
	}
	return d
}

// unpairedInterval returns the Hodges-Lehmann estimate of the shift from
// old to new on tr's scale, and the Mann-Whitney interval around it at
// level 1−gamma; ok is false when the runs are too few for one.
func unpairedInterval(old, new []float64, tr func(float64) float64, gamma float64) (center, lo, hi float64, ok bool) {
	diffs := make([]float64, 0, len(old)*len(new))
	for _, y := range new {
		for _, x := range old {
			diffs = append(diffs, tr(y)-tr(x))
		}
	}
	slices.Sort(diffs)
	center = median(diffs)
	k := lowerRank(len(old), len(new), gamma/2)
	if k == 0 {
		return center, 0, 0, false
	}
	return center, diffs[k-1], diffs[len(diffs)-k], true
}

// pairedInterval returns the Hodges-Lehmann estimate of the shift from
// old[i] to new[i] on tr's scale, the median of the Walsh averages of the
// pairs' differences, and the signed-rank interval around it at level
// 1−gamma; ok is false when the pairs are too few for one.
func pairedInterval(old, new []float64, tr func(float64) float64, gamma float64) (center, lo, hi float64, ok bool) {
	n := len(old)
	k := signedRankLower(n, gamma/2)
	if k == 0 {
		return 0, 0, 0, false
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = tr(new[i]) - tr(old[i])
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	return median(walsh), walsh[k-1], walsh[len(walsh)-k], true
}

// bothIntervals returns the intersection of the paired and the unpaired
// intervals, each at level 1−gamma/2, so that it holds the shift with
// probability at least 1−gamma (see the derivation), and the estimate of
// the narrower; ok is false when the pairs are too few for a paired
// interval at that level.
func bothIntervals(old, new []float64, tr func(float64) float64, gamma float64) (center, lo, hi float64, ok bool) {
	cp, lp, hp, ok := pairedInterval(old, new, tr, gamma/2)
	if !ok {
		return 0, 0, 0, false
	}
	cu, lu, hu, ok := unpairedInterval(old, new, tr, gamma/2)
	if !ok {
		return cp, lp, hp, true
	}
	lo, hi = max(lp, lu), min(hp, hu)
	if lo > hi {
		// The two disagree: one of them missed. Claim only what
		// both together allow.
		lo, hi = min(lp, lu), max(hp, hu)
	}
	center = cp
	if hu-lu < hp-lp {
		center = cu
	}
	return min(max(center, lo), hi), lo, hi, true
}

// Interval returns the estimate of new/old and its distribution-free
// interval at level, from the two samples, or with paired from the pairs
// (old[i], new[i]) alone: the intervals Decide and DecidePaired combine,
// for tools that measure them. ok is false when the runs are too few, or
// not all positive.
func Interval(old, new []float64, level float64, paired bool) (ratio, lo, hi float64, ok bool) {
	for _, x := range slices.Concat(old, new) {
		if !(x > 0) || math.IsInf(x, 1) {
			return 0, 0, 0, false
		}
	}
	if len(old) == 0 || len(new) == 0 || (paired && len(old) != len(new)) {
		return 0, 0, 0, false
	}
	f := unpairedInterval
	if paired {
		f = pairedInterval
	}
	c, l, h, ok := f(old, new, math.Log, 1-level)
	return math.Exp(c), math.Exp(l), math.Exp(h), ok
}

// widest returns the second margin: the widest bound a "same within ±X"
// may state.
// firstLookWidth is how much wider than 1/√n says the exact interval of
// six runs a side is, for normal runs: its bounds are the 3rd and 34th
// of 36 differences (see the package doc).
const firstLookWidth = 1.22

func (p Plan) widest() float64 { return max(p.Margin, p.MarginMax) }

// Bound returns the X of "within ±X" for an interval [lo, hi] of a
// ratio: the larger distance of its ends from 1, rounded up to the next
// half percent ("±1.5%", not "±1.27%", which claims a precision the runs
// do not have).
func Bound(lo, hi float64) float64 {
	b := math.Ceil(max(1-lo, hi-1)*200-1e-9) / 200
	return max(b, 0.005)
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

// Text returns d in a reviewer's words: "faster: -12.3% [-15.0%, -9.1%]",
// "same within ±1.5%", "too noisy here to bound below ±8%". The figures
// are the change new/old − 1 and its interval.
func (d Decision) Text() string {
	pct := func(r float64) string { return fmt.Sprintf("%+.1f%%", 100*(r-1)) }
	switch d.Verdict {
	case Faster, Slower:
		return fmt.Sprintf("%s: %s [%s, %s]", d.Verdict, pct(d.Ratio), pct(d.Lo), pct(d.Hi))
	case Same:
		if d.Bound == 0 {
			return "same: every run gave the same figure"
		}
		return fmt.Sprintf("same within ±%s", Percent(d.Bound))
	case Undecided:
		if d.Bound == 0 {
			return "not enough runs to tell"
		}
		return fmt.Sprintf("too noisy here to bound below ±%s", Percent(d.Bound))
	}
	return "not decided yet"
}

// Percent writes a bound as the verdicts do: "1.5%", "2%".
func Percent(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/10, 'f', -1, 64) + "%"
}
