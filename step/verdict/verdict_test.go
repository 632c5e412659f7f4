package verdict

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestCDF checks the exact distribution of U against every order of a
// few runs, enumerated.
func TestCDF(t *testing.T) {
	for _, mn := range [][2]int{{1, 1}, {2, 3}, {4, 5}, {5, 5}, {6, 3}} {
		m, n := mn[0], mn[1]
		counts := make([]float64, m*n+1)
		total := 0.0
		// Each subset of m positions of m+n is an order: the x's there.
		for mask := 0; mask < 1<<(m+n); mask++ {
			if popcount(mask) != m {
				continue
			}
			u, xs := 0, 0
			for pos := 0; pos < m+n; pos++ {
				if mask&(1<<pos) != 0 {
					xs++
				} else {
					u += xs // this y beats the x's below it
				}
			}
			counts[u]++
			total++
		}
		c := cdf(m, n)
		sum := 0.0
		for u := range counts {
			sum += counts[u] / total
			if math.Abs(c[u]-sum) > 1e-12 {
				t.Errorf("m=%d n=%d: P(U ≤ %d) = %v, want %v", m, n, u, c[u], sum)
			}
		}
	}
	if c := cdf(5, 5); math.Abs(c[0]-1.0/252) > 1e-15 {
		t.Errorf("P(U = 0) for 5 and 5 runs = %v, want 1/252", c[0])
	}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// TestLowerRank checks the ranks against the published critical values of
// the Mann-Whitney test (two-sided α = 0.05: reject when U ≤ 23 for 10 and
// 10 runs, U ≤ 2 for 5 and 5, U ≤ 127 for 20 and 20).
func TestLowerRank(t *testing.T) {
	for _, tt := range []struct {
		m, n int
		q    float64
		want int
	}{
		{10, 10, 0.025, 24},
		{5, 5, 0.025, 3},
		{20, 20, 0.025, 128},
		{5, 5, 0.05 / 6 / 2, 1}, // a first look at 5 runs: only the extremes
		{6, 6, 0.05 / 5 / 2, 3}, // the default plan's first look
		{4, 4, 0.05 / 6 / 2, 0}, // too few runs for an interval
	} {
		if got := lowerRank(tt.m, tt.n, tt.q); got != tt.want {
			t.Errorf("lowerRank(%d, %d, %v) = %d, want %d", tt.m, tt.n, tt.q, got, tt.want)
		}
	}
}

// TestDecide checks single decisions whose verdict is plain.
func TestDecide(t *testing.T) {
	p := DefaultPlan()
	around := func(center float64, n int) []float64 {
		var xs []float64
		for i := range n {
			xs = append(xs, center*(1+0.002*float64(i-n/2)))
		}
		return xs
	}
	for _, tt := range []struct {
		name     string
		old, new []float64
		look     int
		higher   bool
		want     Verdict
	}{
		{"twice the time", around(100, 5), around(200, 5), 0, false, Slower},
		{"half the time", around(100, 5), around(50, 5), 0, false, Faster},
		{"twice the throughput", around(100, 5), around(200, 5), 0, true, Faster},
		{"too few runs for an interval", around(100, 4), around(200, 4), 0, false, Continue},
		{"too few runs at the cap", around(100, 4), around(200, 4), len(p.Looks) - 1, false, Undecided},
		{"no change, tight", around(100, 10), around(100, 10), 1, false, Same},
		{"every run equal", []float64{8, 8, 8}, []float64{8, 8, 8}, 0, false, Same},
		{"zero allocations both sides", []float64{0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0}, 0, false, Same},
		{"from zero allocations to one", []float64{0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1}, 0, false, Slower},
		{"from one allocation to zero", []float64{1, 1, 1, 1, 1}, []float64{0, 0, 0, 0, 0}, 0, false, Faster},
		{"noise wider than the margin, at the cap", noisy(1, 30), noisy(2, 30), len(p.Looks) - 1, false, Undecided},
		{"noise wider than the margin, futile", noisy(1, 10), noisy(2, 10), 1, false, Undecided},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(tt.old, tt.new, tt.look, tt.higher)
			if d.Verdict != tt.want {
				t.Errorf("verdict %q, want %q (ratio %.3f in [%.3f, %.3f] at %.4f)", d.Verdict, tt.want, d.Ratio, d.Lo, d.Hi, d.Level)
			}
		})
	}
}

// TestText checks the words a reviewer reads.
func TestText(t *testing.T) {
	inf := math.Inf(1)
	for _, tt := range []struct {
		d    Decision
		want string
	}{
		{Decision{Verdict: Faster, Ratio: 0.877, Lo: 0.85, Hi: 0.909}, "faster: -12.3% [-15.0%, -9.1%]"},
		{Decision{Verdict: Slower, Ratio: 1.5, Lo: 1.4, Hi: 1.6}, "slower: +50.0% [+40.0%, +60.0%]"},
		{Decision{Verdict: Same, Ratio: 1.001, Lo: 0.99, Hi: 1.01, Bound: 0.01}, "same within ±1%"},
		{Decision{Verdict: Same, Ratio: 1.001, Lo: 0.97, Hi: 1.04, Bound: 0.04}, "same within ±4%"},
		{Decision{Verdict: Same, Ratio: 1.001, Lo: 0.99, Hi: 1.013, Bound: 0.015}, "same within ±1.5%"},
		{Decision{Verdict: Same, Lo: 1, Hi: 1}, "same: every run gave the same figure"},
		{Decision{Verdict: Undecided, Detectable: 0.31, Bound: 0.12}, "too noisy here to bound below ±12%"},
		{Decision{Verdict: Undecided, Detectable: inf}, "not enough runs to tell"},
		{Decision{Verdict: Continue}, "not decided yet"},
	} {
		if got := tt.d.Text(); got != tt.want {
			t.Errorf("Text = %q, want %q", got, tt.want)
		}
	}
}

// noisy returns n runs around 100 with a spread of ±20%.
func noisy(seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	var xs []float64
	for range n {
		xs = append(xs, 100*(1+0.2*r.NormFloat64()))
	}
	return xs
}

// The recorded runs the simulations resample: real runs of codec's 28
// benchmarks on one binary, on a busy machine and a quiet one.
var (
	// busy is the A/A run of docs/design/bench.md, 10 runs a side, pooled (the
	// two sides are the same binary), while others built and tested on
	// the machine: a benchmark's slowest run is 2 to 6 times its
	// fastest.
	busy = []string{"../benchrun/testdata/aa-interleaved-old.txt", "../benchrun/testdata/aa-interleaved-new.txt"}
	// quiet is 20 runs of each on the same machine alone.
	quiet = []string{"testdata/codec-quiet.txt"}
)

// realSamples returns the runs (ns/op) of each benchmark of files.
func realSamples(t *testing.T, files []string) [][]float64 {
	t.Helper()
	byName := map[string][]float64{}
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := benchfmt.NewReader(strings.NewReader(string(data)), f)
		for r.Scan() {
			res, ok := r.Result().(*benchfmt.Result)
			if !ok {
				continue
			}
			v, ok := res.Value("sec/op")
			if !ok {
				continue
			}
			name := string(res.Name)
			if _, seen := byName[name]; !seen {
				names = append(names, name)
			}
			byName[name] = append(byName[name], v)
		}
	}
	var pools [][]float64
	for _, n := range names {
		pools = append(pools, byName[n])
	}
	if len(pools) < 10 {
		t.Fatalf("read %d benchmarks from %v, want at least 10", len(pools), files)
	}
	return pools
}

// draw returns n runs resampled from pool, each with a little noise of its
// own (a smoothed bootstrap: a tenth of the pool's spread), so that draws
// do not repeat values exactly, as real runs do not, times factor.
func draw(r *rand.Rand, pool []float64, n int, factor float64) []float64 {
	lo, hi := slices.Min(pool), slices.Max(pool)
	h := (hi - lo) / 10
	var xs []float64
	for range n {
		x := pool[r.IntN(len(pool))] + h*r.NormFloat64()
		xs = append(xs, math.Max(x, lo/2)*factor)
	}
	return xs
}

// A simulation is what simulate found.
type simulation struct {
	counts map[Verdict]int // rows per verdict of the plan
	// wrongSame counts the rows called the same within ±X where the
	// change is more than X.
	wrongSame int
	runs      float64 // mean runs per side
	// fixed is how many rows the fixed design (20 runs a side, α =
	// 0.05, on the same runs) called faster or slower, and agree how
	// many of those the plan called the same way or undecided.
	fixed, agree int
}

// simulate runs the plan on trials rows, each a benchmark of pools (in
// turn) with its new side multiplied by factor, as a run would: a round
// of runs, a decision, and another round while the verdict is not known.
// It also judges the first 20 runs of each side in the fixed design.
func simulate(p Plan, pools [][]float64, trials int, factor float64, seed uint64) simulation {
	return simulateRuns(p, pools, trials, factor, seed, model{})
}

// A model is how simulateRuns makes and decides its runs: with drift,
// each round's pair of runs shares a machine speed, exp(drift·N(0, 1)),
// as on a machine whose load comes and goes; paired decides them on
// their pairs (DecidePaired).
type model struct {
	drift  float64
	paired bool
}

func simulateRuns(p Plan, pools [][]float64, trials int, factor float64, seed uint64, m model) simulation {
	r := rand.New(rand.NewPCG(seed, 2))
	fixed := Plan{Looks: []int{20}, Alpha: 0.05, Margin: p.Margin}
	cap := max(p.Looks[len(p.Looks)-1], 20)
	sim := simulation{counts: map[Verdict]int{}}
	runs := 0
	for i := range trials {
		pool := pools[i%len(pools)]
		old, new := draw(r, pool, cap, 1), draw(r, pool, cap, factor)
		if m.drift > 0 {
			for i := range old {
				speed := math.Exp(m.drift * r.NormFloat64())
				old[i] *= speed
				new[i] *= speed
			}
		}
		decide := p.Decide
		if m.paired {
			decide = p.DecidePaired
		}
		v, covers := Undecided, true
		for look, n := range p.Looks {
			if d := decide(old[:n], new[:n], look, false); d.Verdict != Continue {
				v = d.Verdict
				runs += n
				covers = math.Abs(factor-1) <= d.Bound+1e-9
				if v == Same && !covers {
					sim.wrongSame++
				}
				break
			}
		}
		sim.counts[v]++
		if f := fixed.Decide(old[:20], new[:20], 0, false).Verdict; f == Faster || f == Slower {
			sim.fixed++
			if v == f || v == Undecided || (v == Same && covers) {
				sim.agree++
			}
		}
	}
	sim.runs = float64(runs) / float64(trials)
	return sim
}

// TestErrorRates measures the default plan's error rates by simulation:
// thousands of rows resampled from real benchmark runs, looked at after
// every round as bench looks at them. A/A rows (no change) must be called
// faster or slower at most α = 5% of the time; rows that moved by 2E (4%)
// or by E (2%) must be called the same at most 5%; rows that moved a lot
// are decided, in the right direction, in few runs.
func TestErrorRates(t *testing.T) {
	p := DefaultPlan()
	const trials = 3000
	for _, machine := range []struct {
		name   string
		files  []string
		shrink float64 // each run's distance to its median, divided
	}{{"quiet", quiet, 1}, {"busy", busy, 1}, {"dedicated", quiet, 10}} {
		// This machine's runs are never closer than about ±5%: a
		// dedicated one is modelled by the quiet runs drawn ten times
		// closer to their medians.
		pools := realSamples(t, machine.files)
		for _, pool := range pools {
			m := median(pool)
			for i, x := range pool {
				pool[i] = m + (x-m)/machine.shrink
			}
		}
		for _, tt := range []struct {
			name   string
			factor float64
			check  func(sim simulation) string
		}{
			{"A/A", 1, func(sim simulation) string {
				c := sim.counts
				if f := frac(c[Faster] + c[Slower]); f > p.Alpha {
					return "false faster/slower too often"
				}
				return ""
			}},
			{"moved by 2E", 1 + 2*p.Margin, func(sim simulation) string {
				c := sim.counts
				if f := frac(sim.wrongSame); f > p.Alpha {
					return "false same too often"
				}
				if f := frac(c[Faster]); f > p.Alpha {
					return "called faster, the wrong direction, too often"
				}
				return ""
			}},
			{"moved by E", 1 + p.Margin, func(sim simulation) string {
				if f := frac(sim.wrongSame); f > p.Alpha {
					return "false same too often"
				}
				return ""
			}},
			{"moved by 2·E_max", 1 + 2*p.MarginMax, func(sim simulation) string {
				if f := frac(sim.wrongSame); f > p.Alpha {
					return "false same too often"
				}
				return ""
			}},
			{"twice the time", 2, func(sim simulation) string {
				c := sim.counts
				if c[Faster] > 0 {
					return "called faster: the wrong direction"
				}
				if f := frac(c[Slower]); f < 0.9 {
					return "too few rows called slower"
				}
				return ""
			}},
		} {
			t.Run(machine.name+"/"+tt.name, func(t *testing.T) {
				sim := simulate(p, pools, trials, tt.factor, 1)
				counts := sim.counts
				t.Logf("%d rows ×%.2f: faster %.1f%%, slower %.1f%%, same %.1f%% (of which the change is outside ±X: %.1f%%), undecided %.1f%%; %.1f runs per side on average; fixed 20+20 significant on %d rows, the plan agrees (or undecided, or same within a bound that holds the change) on %d",
					trials, tt.factor, 100*frac(counts[Faster]), 100*frac(counts[Slower]), 100*frac(counts[Same]), 100*frac(sim.wrongSame), 100*frac(counts[Undecided]), sim.runs, sim.fixed, sim.agree)
				if msg := tt.check(sim); msg != "" {
					t.Error(msg)
				}
				// On A/A rows the fixed design's significant rows are
				// its false alarms, which the plan is right to call
				// the same: agreement counts on rows that moved.
				if tt.factor != 1 && float64(sim.agree) < 0.95*float64(sim.fixed) {
					t.Errorf("the plan agrees with fixed 20+20 on %d of its %d significant rows, want 95%%", sim.agree, sim.fixed)
				}
			})
		}
	}
}

func frac(n int) float64 { return float64(n) / 3000 }

// TestPairedErrorRates measures DecidePaired as TestErrorRates does
// Decide, on a dedicated machine's runs, with and without a load that
// comes and goes between rounds (±10%, shared by a round's two runs):
// its A/A rows are called faster or slower at most α of the time either
// way, it is never wrong about "same within ±X" more than α, and under
// drift it finds a 4% change that Decide cannot see.
func TestPairedErrorRates(t *testing.T) {
	p := DefaultPlan()
	const trials = 3000
	pools := realSamples(t, quiet)
	for _, pool := range pools {
		m := median(pool)
		for i, x := range pool {
			pool[i] = m + (x-m)/10
		}
	}
	for _, drift := range []float64{0, 0.1} {
		for _, factor := range []float64{1, 1.04} {
			sims := map[bool]simulation{}
			for _, paired := range []bool{false, true} {
				sim := simulateRuns(p, pools, trials, factor, 3, model{drift: drift, paired: paired})
				sims[paired] = sim
				c := sim.counts
				t.Logf("drift ±%.0f%%, ×%.2f, paired %v: faster %.1f%%, slower %.1f%%, same %.1f%% (the change outside ±X: %.1f%%), undecided %.1f%%; %.1f runs per side",
					100*drift, factor, paired, 100*frac(c[Faster]), 100*frac(c[Slower]), 100*frac(c[Same]), 100*frac(sim.wrongSame), 100*frac(c[Undecided]), sim.runs)
				if factor == 1 && frac(c[Faster]+c[Slower]) > p.Alpha {
					t.Errorf("drift %v, paired %v: false faster/slower on %.1f%% of A/A rows, want at most %v", drift, paired, 100*frac(c[Faster]+c[Slower]), p.Alpha)
				}
				if frac(sim.wrongSame) > p.Alpha {
					t.Errorf("drift %v, paired %v: same within a bound the change is outside on %.1f%% of rows", drift, paired, 100*frac(sim.wrongSame))
				}
			}
			if drift > 0 && factor != 1 {
				if un, pa := sims[false], sims[true]; frac(pa.counts[Slower]) < 0.9 || frac(un.counts[Slower]) > 0.5 {
					t.Errorf("under drift, a 4%% change: paired called %.1f%% slower, unpaired %.1f%%; want at least 90%% paired, where unpaired cannot tell",
						100*frac(pa.counts[Slower]), 100*frac(un.counts[Slower]))
				}
			}
		}
	}
}

// TestSignedRank checks the exact distribution of T+ against every sign
// of a few pairs, enumerated, and the ranks against the published
// critical values of the signed-rank test (two-sided α = 0.05: reject
// when T ≤ 3 for 8 pairs, T ≤ 8 for 10, T ≤ 52 for 20).
func TestSignedRank(t *testing.T) {
	for _, n := range []int{1, 2, 5, 8} {
		counts := make([]float64, n*(n+1)/2+1)
		for mask := 0; mask < 1<<n; mask++ {
			sum := 0
			for i := range n {
				if mask&(1<<i) != 0 {
					sum += i + 1
				}
			}
			counts[sum]++
		}
		c := signedRankCDF(n)
		cum := 0.0
		for s := range counts {
			cum += counts[s] / float64(int(1)<<n)
			if math.Abs(c[s]-cum) > 1e-12 {
				t.Errorf("n=%d: P(T+ ≤ %d) = %v, want %v", n, s, c[s], cum)
			}
		}
	}
	for _, tt := range []struct {
		n    int
		q    float64
		want int
	}{
		{8, 0.025, 4},
		{10, 0.025, 9},
		{20, 0.025, 53},
		{6, 0.005, 0}, // the default plan's first look: too few pairs at γ/2 = 0.5%
		{9, 0.0025, 1},
	} {
		if got := signedRankLower(tt.n, tt.q); got != tt.want {
			t.Errorf("signedRankLower(%d, %v) = %d, want %d", tt.n, tt.q, got, tt.want)
		}
	}
}

// TestApproximations checks the normal approximations that take over
// from the exact distributions at large counts against the exact ranks
// just below the switch: they may differ by a rank or so, no more.
func TestApproximations(t *testing.T) {
	for _, q := range []float64{0.025, 0.005, 0.001} {
		n := exactSignedRank
		total := n * (n + 1) / 2
		mean, sd := float64(total)/2, math.Sqrt(float64(n)*float64(n+1)*float64(2*n+1)/24)
		if exact, approx := signedRankLower(n, q), approxRank(mean, sd, q, total/2); abs(exact-approx) > 1+exact/500 {
			t.Errorf("signed rank, n=%d q=%v: exact %d, approximated %d", n, q, exact, approx)
		}
		m := 100
		mean, sd = float64(m*m)/2, math.Sqrt(float64(m)*float64(m)*float64(2*m+1)/12)
		if exact, approx := lowerRank(m, m, q), approxRank(mean, sd, q, m*m/2); abs(exact-approx) > 1+exact/500 {
			t.Errorf("Mann-Whitney, m=n=%d q=%v: exact %d, approximated %d", m, q, exact, approx)
		}
	}
	// Past the switch, a plan of 1,000 runs a side decides at once.
	p := Plan{Looks: []int{1000}, Alpha: 0.05, Margin: 0.02}
	old, new := noisy(1, 1000), noisy(2, 1000)
	if d := p.DecidePaired(old, new, 0, false); d.Verdict == Continue || !d.Paired {
		t.Errorf("1,000 pairs: %+v", d)
	}
}

func abs(x int) int { return max(x, -x) }

// TestDecideBound checks the second margin and pairs on runs made to
// order: rows whose interval is within ±5% but not ±2% at the cap are
// the same within their bound; wider ones are too noisy; and a 3% change
// under a load shared by each pair's runs is found by the pairs alone.
func TestDecideBound(t *testing.T) {
	p := DefaultPlan()
	last := len(p.Looks) - 1
	wave := func(n int, spread, phase float64) []float64 {
		var xs []float64
		for i := range n {
			xs = append(xs, 100*(1+spread*math.Sin(float64(i)*2.1+phase)))
		}
		return xs
	}
	d := p.Decide(wave(30, 0.04, 0), wave(30, 0.04, 1), last, false)
	if d.Verdict != Same || !(d.Bound > p.Margin && d.Bound <= p.MarginMax) {
		t.Errorf("±4%% runs at the cap: %s within ±%v, want same within a bound between 2%% and 5%%", d.Verdict, d.Bound)
	}
	if got := d.Text(); !strings.HasPrefix(got, "same within ±") || strings.Contains(got, "±2%") {
		t.Errorf("text %q", got)
	}
	d = p.Decide(wave(30, 0.3, 0), wave(30, 0.3, 1), last, false)
	if d.Verdict != Undecided || !(d.Bound > p.MarginMax) || !strings.HasPrefix(d.Text(), "too noisy here to bound below ±") {
		t.Errorf("±30%% runs at the cap: %s within ±%v (%q), want undecided past 5%%", d.Verdict, d.Bound, d.Text())
	}
	// Before the cap, a bounded row runs on only while the next look is
	// expected to bring it within ±2%: ±3% at six runs a side goes on
	// (and twelve give ±1.5%); ±3.5% stops, its bound said now rather
	// than bought with four times the runs.
	for _, tt := range []struct {
		spread  float64
		verdict Verdict
	}{{0.015, Continue}, {0.02, Same}} {
		d := p.Decide(wave(6, tt.spread, 0), wave(6, tt.spread, 1), 0, false)
		if d.Verdict != tt.verdict || d.Futile != (tt.verdict == Same) || d.Bound <= p.Margin {
			t.Errorf("±%v%% runs, six a side: %q (futile %v) within ±%v, want %q", 100*tt.spread, d.Verdict, d.Futile, d.Bound, tt.verdict)
		}
		if tt.verdict == Continue {
			if d := p.Decide(wave(12, tt.spread, 0), wave(12, tt.spread, 1), 1, false); d.Verdict != Same || d.Futile {
				t.Errorf("±%v%% runs, twelve a side: %q (futile %v) within ±%v, want same within ±2%%", 100*tt.spread, d.Verdict, d.Futile, d.Bound)
			}
		}
	}
	// Only ±2% is the same without a second margin (a bisection's plan).
	strict := Plan{Looks: p.Looks, Alpha: p.Alpha, Margin: p.Margin, NoFutility: true}
	if d := strict.Decide(wave(30, 0.04, 0), wave(30, 0.04, 1), last, false); d.Verdict != Undecided {
		t.Errorf("no second margin: %s within ±%v, want undecided", d.Verdict, d.Bound)
	}

	// Each round's speed, shared by its two runs, varies by ±20%; each
	// run has ±1% of its own.
	r := rand.New(rand.NewPCG(7, 7))
	old, new := make([]float64, 18), make([]float64, 18)
	for i := range old {
		load := 100 * math.Exp(0.2*r.NormFloat64())
		old[i] = load * (1 + 0.01*r.NormFloat64())
		new[i] = load * 1.03 * (1 + 0.01*r.NormFloat64())
	}
	if d := p.DecidePaired(old, new, 2, false); d.Verdict != Slower || !d.Paired {
		t.Errorf("a 3%% change under a shared load, paired: %+v, want slower", d)
	}
	if d := p.Decide(old, new, 2, false); d.Verdict == Slower {
		t.Errorf("a 3%% change under a shared load, unpaired: %+v; want the two samples unable to tell", d)
	}
	// Six pairs are too few for the paired interval: DecidePaired is
	// Decide there, and does not stop a row for futility.
	if d := p.DecidePaired(old[:6], new[:6], 0, false); d.Paired || d.Verdict != Continue {
		t.Errorf("six pairs: %+v, want an unpaired decision to go on", d)
	}
}
