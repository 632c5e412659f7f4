package benchrun

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/patchbot/patchbot/step/verdict"
)

// A benchKey names one benchmark of one package, as its result lines do:
// the full name without "Benchmark", with its GOMAXPROCS suffix.
type benchKey struct{ pkg, name string }

// A sequence is the state of a sequential comparison (Options.Plan): each
// benchmark's times in the order they ran, and the verdicts so far. Its
// methods do nothing when there is no plan.
type sequence struct {
	plan *verdict.Plan
	// paired is set when the runs are made in pairs (the interleaved
	// order): a row whose two sides ran in the same rounds is decided on
	// its pairs (verdict.Plan.DecidePaired).
	paired  bool
	samples map[benchKey]*samples
	order   []benchKey
	decided map[benchKey]verdict.Decision
	look    map[benchKey]int // the look (0-based) that decided each
}

// samples are one benchmark's times (sec/op) on each side, in run order,
// and the round of each.
type samples struct {
	values [2][]float64
	rounds [2][]int
}

// add records the times of one run's result lines, made in round.
func (s *sequence) add(side, round int, pkg string, lines []string) {
	if s.plan == nil {
		return
	}
	if s.samples == nil {
		s.samples, s.look = map[benchKey]*samples{}, map[benchKey]int{}
	}
	r := benchfmt.NewReader(strings.NewReader(strings.Join(lines, "\n")), "")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		v, ok := res.Value("sec/op")
		if !ok {
			continue
		}
		k := benchKey{pkg, res.Name.String()}
		sm := s.samples[k]
		if sm == nil {
			sm = new(samples)
			s.samples[k] = sm
			s.order = append(s.order, k)
		}
		sm.values[side] = append(sm.values[side], v)
		sm.rounds[side] = append(sm.rounds[side], round)
	}
}

// pairs reports whether the sides of sm ran in the same rounds, once
// each: the i-th runs of the two sides are then neighbours.
func (sm *samples) pairs() bool {
	r := sm.rounds
	if !slices.Equal(r[0], r[1]) {
		return false
	}
	for i := 1; i < len(r[0]); i++ {
		if r[0][i] <= r[0][i-1] {
			return false
		}
	}
	return true
}

// decide decides every benchmark of pkg it can at look, and returns the
// -test.bench regexp of the next round for pkg: bench narrowed to the
// rows still undecided, or "" when none is. A benchmark that ran on one
// side only is never decided, and never run again for itself.
func (s *sequence) decide(pkg string, look int, bench string) string {
	var left, all []string // the rows, undecided and seen, of pkg
	for _, k := range s.order {
		if k.pkg != pkg {
			continue
		}
		all = append(all, k.name)
		if _, ok := s.decided[k]; ok {
			continue
		}
		sm := s.samples[k]
		if len(sm.values[0]) == 0 || len(sm.values[1]) == 0 {
			continue
		}
		decide := s.plan.Decide
		if s.paired && sm.pairs() {
			decide = s.plan.DecidePaired
		}
		if d := decide(sm.values[0], sm.values[1], look, false); d.Verdict != verdict.Continue {
			s.decided[k], s.look[k] = d, look
			continue
		}
		left = append(left, k.name)
	}
	if len(left) == 0 {
		return ""
	}
	return rowsPattern(bench, left, all)
}

// maxPattern bounds the length of a -test.bench regexp made of rows: an
// argument of a command line may not pass 128 KiB on Linux. Past it, the
// rows' functions are run whole.
const maxPattern = 64 << 10

// rowsPattern returns the -test.bench regexp that runs, of what bench
// runs, only the rows named (full names without "Benchmark", with or
// without their GOMAXPROCS suffix), of all the rows seen. A function all
// of whose rows are named runs as bench runs it; of one whose rows were
// partly decided, each named row is an alternative of its own, anchored
// at every level (go test matches each alternative of a regexp's
// top-level "|" apart, level by level), so that a decided row never runs
// again.
func rowsPattern(bench string, rows, all []string) string {
	byFunc := func(names []string) map[string][][]string {
		m := map[string][][]string{}
		for _, n := range names {
			levels := strings.Split(trimProcs(n), "/")
			m[levels[0]] = append(m[levels[0]], levels[1:])
		}
		return m
	}
	left, seen := byFunc(rows), byFunc(all)
	var whole, funcs []string
	for _, n := range rows {
		f := strings.Split(trimProcs(n), "/")[0]
		if slices.Contains(funcs, f) {
			continue
		}
		funcs = append(funcs, f)
		if len(left[f]) == len(seen[f]) {
			whole = append(whole, f)
		}
	}
	var alts []string
	if len(whole) > 0 {
		if w := narrow(bench, whole); w != "" {
			alts = append(alts, w)
		}
	}
	// Rows of one function that differ only in their last level share
	// an alternative.
	for _, f := range funcs {
		if slices.Contains(whole, f) {
			continue
		}
		var prefixes []string
		lasts := map[string][]string{}
		for _, sub := range left[f] {
			if len(sub) == 0 {
				continue // a row of its own, and the function has others: not possible
			}
			prefix := strings.Join(sub[:len(sub)-1], "/")
			if _, ok := lasts[prefix]; !ok {
				prefixes = append(prefixes, prefix)
			}
			lasts[prefix] = append(lasts[prefix], regexp.QuoteMeta(sub[len(sub)-1]))
		}
		for _, prefix := range prefixes {
			levels := []string{"^Benchmark" + regexp.QuoteMeta(f) + "$"}
			if prefix != "" {
				for _, l := range strings.Split(prefix, "/") {
					levels = append(levels, "^"+regexp.QuoteMeta(l)+"$")
				}
			}
			// A trailing -N may be the name's own, when GOMAXPROCS is 1
			// and the name was not given a suffix: match both.
			levels = append(levels, "^("+strings.Join(lasts[prefix], "|")+")(-[0-9]+)?$")
			alts = append(alts, strings.Join(levels, "/"))
		}
	}
	p := strings.Join(alts, "|")
	if len(p) > maxPattern {
		return narrow(bench, funcs)
	}
	return p
}

// trimProcs returns a benchmark's full name without its GOMAXPROCS
// suffix ("Sum64/4B-2" → "Sum64/4B").
func trimProcs(name string) string {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i < len(name) && i > 0 && name[i-1] == '-' {
		return name[:i-1]
	}
	return name
}

// narrow returns the -test.bench regexp that runs what bench runs among
// the benchmark functions named (without "Benchmark"): in each of its
// alternatives (go test's top-level "|"), the first level, which go test
// matches against the function's name, becomes those of the names it
// matches; the levels of sub-benchmarks stay as they were. It returns ""
// when no alternative matches any name.
func narrow(bench string, names []string) string {
	var out []string
	for _, alt := range splitBench(bench) {
		matched := matchingLevel(alt[0], names)
		if len(matched) == 0 {
			continue
		}
		quoted := make([]string, len(matched))
		for i, n := range matched {
			quoted[i] = regexp.QuoteMeta(n)
		}
		levels := slices.Clone(alt)
		levels[0] = "^Benchmark(" + strings.Join(quoted, "|") + ")$"
		out = append(out, strings.Join(levels, "/"))
	}
	return strings.Join(out, "|")
}

// matchingLevel returns the names (of benchmark functions, without
// "Benchmark") that the first level re matches, as go test matches it;
// all of them when it does not compile.
func matchingLevel(re string, names []string) []string {
	r, err := regexp.Compile(re)
	if err != nil {
		return names
	}
	var out []string
	for _, n := range names {
		if r.MatchString("Benchmark" + n) {
			out = append(out, n)
		}
	}
	return out
}

// splitBench splits a -test.bench regexp as the testing package does:
// into the alternatives of its top-level "|", each into its levels, at
// each slash; neither inside brackets or parentheses.
func splitBench(re string) [][]string {
	var alts [][]string
	var levels []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(re); i++ {
		switch re[i] {
		case '\\':
			i++
		case '[':
			brackets++
		case ']':
			brackets = max(brackets-1, 0)
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '/', '|':
			if brackets == 0 && parens == 0 {
				levels = append(levels, re[start:i])
				start = i + 1
				if re[i] == '|' {
					alts = append(alts, levels)
					levels = nil
				}
			}
		}
	}
	return append(alts, append(levels, re[start:]))
}

// attach gives each time and throughput row of res its benchmark's
// decision, and makes the row's significance the decision's: faster or
// slower is a significant change, same and undecided are "~". The other
// units (allocations, bytes, custom ones) keep their U test.
func (s *sequence) attach(res *Result) {
	if s.plan == nil {
		return
	}
	for _, t := range res.Tables {
		if t.Unit != "sec/op" && t.Unit != "B/s" {
			continue
		}
		for _, row := range t.Rows {
			c := row.Compare
			if c == nil {
				continue
			}
			k := benchKey{t.Get("pkg"), row.Name}
			d, ok := s.decided[k]
			if !ok {
				continue
			}
			rd := &Decision{Verdict: string(d.Verdict), Ratio: d.Ratio, Lo: d.Lo, Level: d.Level, Margin: s.plan.Margin, Bound: d.Bound, Paired: d.Paired, Look: s.look[k] + 1}
			hi := d.Hi
			if t.Unit == "B/s" {
				// Throughput is the inverse of time: the same verdict,
				// the ratios turned over.
				rd.Ratio, rd.Lo, hi = 1/d.Ratio, 1/d.Hi, 1/d.Lo
				if d.Bound > 0 && d.Lo > 0 {
					rd.Bound = verdict.Bound(rd.Lo, hi)
				}
			}
			c.Lo, c.Hi = nil, nil
			if rd.Lo > 0 && !math.IsInf(hi, 1) {
				lo, hi := rd.Lo-1, hi-1
				c.Lo, c.Hi = &lo, &hi
			}
			if !math.IsInf(hi, 1) {
				rd.Hi = &hi
			}
			if !math.IsInf(d.Detectable, 1) {
				det := d.Detectable
				rd.Detectable = &det
			}
			c.Decision = rd
			c.Significant = d.Verdict == verdict.Faster || d.Verdict == verdict.Slower
			c.Verdict = string(d.Verdict)
		}
	}
}

// text returns the decision in a reviewer's words, with the runs it took:
// "faster: -44.9% [-48.1%, -41.2%] (n=6)", "same within ±1.5% (n=12,
// paired)".
func (d *Decision) text(n1, n2 int) string {
	vd := verdict.Decision{Verdict: verdict.Verdict(d.Verdict), Ratio: d.Ratio, Lo: d.Lo, Hi: math.Inf(1), Detectable: math.Inf(1), Bound: d.Bound}
	if d.Hi != nil {
		vd.Hi = *d.Hi
	}
	if d.Detectable != nil {
		vd.Detectable = *d.Detectable
	}
	n := fmt.Sprintf("n=%d", n1)
	if n1 != n2 {
		n = fmt.Sprintf("n=%d+%d", n1, n2)
	}
	if d.Paired {
		n += ", paired"
	}
	return vd.Text() + " (" + n + ")"
}
