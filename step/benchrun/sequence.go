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
	plan    *verdict.Plan
	samples map[benchKey]*[2][]float64 // sec/op, old and new, in run order
	order   []benchKey
	decided map[benchKey]verdict.Decision
	look    map[benchKey]int // the look (0-based) that decided each
}

// add records the times of one run's result lines.
func (s *sequence) add(side int, pkg string, lines []string) {
	if s.plan == nil {
		return
	}
	if s.samples == nil {
		s.samples, s.look = map[benchKey]*[2][]float64{}, map[benchKey]int{}
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
			sm = new([2][]float64)
			s.samples[k] = sm
			s.order = append(s.order, k)
		}
		sm[side] = append(sm[side], v)
	}
}

// decide decides every benchmark of pkg it can at look, and returns the
// -test.bench regexp of the next round for pkg: bench narrowed to the
// benchmarks still undecided, or "" when none is. A benchmark that ran on
// one side only is never decided, and never run again for itself.
func (s *sequence) decide(pkg string, look int, bench string) string {
	var left []string // base names, as -test.bench's first level matches them
	for _, k := range s.order {
		if k.pkg != pkg {
			continue
		}
		if _, ok := s.decided[k]; ok {
			continue
		}
		sm := s.samples[k]
		if len(sm[0]) == 0 || len(sm[1]) == 0 {
			continue
		}
		if d := s.plan.Decide(sm[0], sm[1], look, false); d.Verdict != verdict.Continue {
			s.decided[k], s.look[k] = d, look
			continue
		}
		base := string(benchfmt.Name(k.name).Base())
		if !slices.Contains(left, base) {
			left = append(left, base)
		}
	}
	if len(left) == 0 {
		return ""
	}
	return narrow(bench, left)
}

// narrow returns the -test.bench regexp that runs what bench runs among
// the benchmark functions named (without "Benchmark"): its first level,
// which go test matches against the function's name, becomes those names;
// the levels of sub-benchmarks stay as they were. Sub-benchmarks of a
// named function that were decided run again with their undecided
// siblings; their verdicts stand.
func narrow(bench string, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	levels := splitLevels(bench)
	levels[0] = "^Benchmark(" + strings.Join(quoted, "|") + ")$"
	return strings.Join(levels, "/")
}

// splitLevels splits a -test.bench regexp into its levels, at each slash
// outside brackets and parentheses, as the testing package does.
func splitLevels(re string) []string {
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
		case '/':
			if brackets == 0 && parens == 0 {
				levels = append(levels, re[start:i])
				start = i + 1
			}
		}
	}
	return append(levels, re[start:])
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
			rd := &Decision{Verdict: string(d.Verdict), Ratio: d.Ratio, Lo: d.Lo, Level: d.Level, Margin: s.plan.Margin, Look: s.look[k] + 1}
			hi := d.Hi
			if t.Unit == "B/s" {
				// Throughput is the inverse of time: the same verdict,
				// the ratios turned over.
				rd.Ratio, rd.Lo, hi = 1/d.Ratio, 1/d.Hi, 1/d.Lo
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
// "faster: -44.9% [-48.1%, -41.2%] (n=5)", "same within ±2% (n=10)".
func (d *Decision) text(n1, n2 int) string {
	vd := verdict.Decision{Verdict: verdict.Verdict(d.Verdict), Ratio: d.Ratio, Lo: d.Lo, Hi: math.Inf(1), Detectable: math.Inf(1)}
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
	return vd.Text(d.Margin) + " (" + n + ")"
}
