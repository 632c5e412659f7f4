// Replay evaluates patchbot's two designs of a comparison on recorded
// runs: the fixed design of 20 runs a side (benchstat's: a Mann-Whitney U
// test at α = 0.05) and the sequential one of -count auto (package
// step/verdict's default plan: a look every 6 runs a side up to 30). It
// reads the raw results that 'patchbot bench -o DIR' keeps, DIR/old.txt
// and DIR/new.txt, each side's runs in the order they ran, and decides
// each benchmark's time (sec/op) as each design would have on those runs:
// the fixed design on the first 20 of each side, the sequential one
// looking after 6, 12, ... runs until it decides. So one recording of 30
// runs a side answers for both, on the same runs.
//
// Usage:
//
//	replay DIR...
//
// Recorded with 'patchbot bench -aa -count 30 -o DIR', where both sides
// ran one test binary, every change either design calls is a false
// alarm: replay counts them, per recording and in all, with the
// sequential design's other verdicts, the runs a side it used, and how it
// agrees with the fixed design (where the fixed design found a change,
// the sequential one said the same direction or undecided, never the
// opposite). It is how docs/bench.md's A/A figures were made.
//
// The sequential design as bench runs it stops running a benchmark once
// it is decided; replay reads the decided benchmark's later runs and
// ignores them, which is the same. It decides on the runs' pairs
// (verdict.Plan.DecidePaired), as bench does in its interleaved order.
//
// With -widths it prints instead, per recording, the median over its
// benchmarks of the 95% interval's half-width of the change on all the
// runs: from the two samples, from the runs' pairs, and from both as
// DecidePaired takes them; and the ratios to the first: what pairing
// buys on those runs.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/patchbot/patchbot/step/verdict"
)

// fixedN is the fixed design's runs a side.
const fixedN = 20

func main() {
	widths := flag.Bool("widths", false, "print the paired and unpaired intervals' widths instead")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: replay [-widths] DIR...  (each DIR as 'patchbot bench -o DIR' keeps it: old.txt and new.txt)")
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var all []tally
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	if *widths {
		fmt.Fprintln(tw, "recording\trows\truns/side\tunpaired ±\tpaired ±\tboth ±\tpaired/unpaired\tboth/unpaired\t")
	}
	for _, dir := range flag.Args() {
		order, err := readDir(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "replay: %v\n", err)
			os.Exit(1)
		}
		if *widths {
			w := widthsOf(order)
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f%%\t%.2f%%\t%.2f%%\t%.2f\t%.2f\t\n", filepath.Base(dir), w.rows, w.n, 100*w.unpaired, 100*w.paired, 100*w.both, w.ratio, w.ratio2)
			continue
		}
		all = append(all, replay(filepath.Base(dir), order))
	}
	if *widths {
		tw.Flush()
		return
	}
	write(os.Stdout, all)
}

// widths are the medians, over a recording's benchmarks, of the
// half-widths of the change's 95% interval (as a share of no change) on
// every run: from the two samples, from the runs' pairs, and from both
// (DecidePaired's intersection); and of the ratios of a benchmark's
// paired and combined widths to its unpaired one.
type widths struct {
	rows, n                               int
	unpaired, paired, both, ratio, ratio2 float64
}

func widthsOf(order []*series) widths {
	var w widths
	var un, pa, bo, ra, rb []float64
	half := func(lo, hi float64) float64 { return math.Log(hi/lo) / 2 }
	for _, s := range order {
		n := min(len(s.runs[0]), len(s.runs[1]))
		if n < 9 {
			continue
		}
		old, new := s.runs[0][:n], s.runs[1][:n]
		_, lu, hu, oku := verdict.Interval(old, new, 0.95, false)
		_, lp, hp, okp := verdict.Interval(old, new, 0.95, true)
		p := verdict.Plan{Looks: []int{n}, Alpha: 0.05, Margin: 0.02}
		b := p.DecidePaired(old, new, 0, false)
		if !oku || !okp || !b.Paired || !(hu > lu) {
			continue
		}
		hu, hp, hb := half(lu, hu), half(lp, hp), half(b.Lo, b.Hi)
		un, pa, bo = append(un, math.Expm1(hu)), append(pa, math.Expm1(hp)), append(bo, math.Expm1(hb))
		ra, rb = append(ra, hp/hu), append(rb, hb/hu)
		w.rows++
		w.n = max(w.n, n)
	}
	if w.rows > 0 {
		w.unpaired, w.paired, w.both, w.ratio, w.ratio2 = median(un), median(pa), median(bo), median(ra), median(rb)
	}
	return w
}

// A series is one benchmark's times, each side's in run order.
type series struct {
	name string
	runs [2][]float64
}

// A tally counts one recording's verdicts.
type tally struct {
	name string
	rows int // benchmarks with fixedN runs or more a side
	// The fixed design: rows flagged faster or slower.
	fixedFlagged int
	// The sequential design's verdicts, and the runs a side it used.
	faster, slower, same, undecided int
	runs                            int
	// Rows the fixed design flagged that the sequential one called the
	// opposite way.
	opposite int
}

func (t *tally) add(o tally) {
	t.rows += o.rows
	t.fixedFlagged += o.fixedFlagged
	t.faster += o.faster
	t.slower += o.slower
	t.same += o.same
	t.undecided += o.undecided
	t.runs += o.runs
	t.opposite += o.opposite
}

// replay tallies the verdicts of the benchmarks of a recording.
func replay(name string, order []*series) tally {
	t := tally{name: name}
	plan := verdict.DefaultPlan()
	for _, s := range order {
		t.add(decide(s, plan))
	}
	return t
}

// replayDir replays the recording in dir.
func replayDir(dir string) (tally, error) {
	order, err := readDir(dir)
	if err != nil {
		return tally{name: filepath.Base(dir)}, err
	}
	return replay(filepath.Base(dir), order), nil
}

// readDir reads the recording in dir: each benchmark's runs.
func readDir(dir string) ([]*series, error) {
	byName := map[string]*series{}
	var order []*series
	for side, file := range []string{"old.txt", "new.txt"} {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		err = read(f, func(name string, v float64) {
			s := byName[name]
			if s == nil {
				s = &series{name: name}
				byName[name] = s
				order = append(order, s)
			}
			s.runs[side] = append(s.runs[side], v)
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, file), err)
		}
	}
	return order, nil
}

// read calls add with each benchmark time (sec/op) of r, in order, named
// by package and full name.
func read(r io.Reader, add func(name string, v float64)) error {
	br := benchfmt.NewReader(r, "")
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if v, ok := res.Value("sec/op"); ok {
			add(string(res.GetConfig("pkg"))+" "+res.Name.String(), v)
		}
	}
	return br.Err()
}

// decide returns the tally of one series: how each design decides it.
// A series with fewer than fixedN runs on a side counts for nothing.
func decide(s *series, plan verdict.Plan) tally {
	var t tally
	old, new := s.runs[0], s.runs[1]
	cap := plan.Looks[len(plan.Looks)-1]
	if len(old) < fixedN || len(new) < fixedN {
		return t
	}
	t.rows = 1

	// The fixed design, as benchstat decides it. (NewSample sorts what
	// it is given: copies, so that the sequential design below reads the
	// runs in the order they ran.)
	th := benchmath.DefaultThresholds
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(old[:fixedN]), &th), benchmath.NewSample(slices.Clone(new[:fixedN]), &th))
	fixed := 0 // -1 faster, +1 slower
	if c.P <= c.Alpha {
		fixed = 1
		if median(new[:fixedN]) < median(old[:fixedN]) {
			fixed = -1
		}
	}
	if fixed != 0 {
		t.fixedFlagged = 1
	}

	// The sequential design, look by look, on the runs there are.
	var d verdict.Decision
	for look, n := range plan.Looks {
		if n > len(old) || n > len(new) {
			// The recording stops short of the cap: what the
			// last look would have said is not known; undecided.
			d = verdict.Decision{Verdict: verdict.Undecided, N: [2]int{min(len(old), cap), min(len(new), cap)}}
			break
		}
		d = plan.DecidePaired(old[:n], new[:n], look, false)
		if d.Verdict != verdict.Continue {
			break
		}
	}
	t.runs = d.N[0]
	switch d.Verdict {
	case verdict.Faster:
		t.faster = 1
		if fixed == 1 {
			t.opposite = 1
		}
	case verdict.Slower:
		t.slower = 1
		if fixed == -1 {
			t.opposite = 1
		}
	case verdict.Same:
		t.same = 1
	default:
		t.undecided = 1
	}
	return t
}

func median(xs []float64) float64 {
	s := benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}

// write prints a line per recording and the total.
func write(w io.Writer, all []tally) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "recording\trows\tfixed 20+20 flagged\tauto flagged\tauto same\tauto undecided\tauto runs/side\topposite\t")
	var total tally
	total.name = "all"
	line := func(t tally) {
		pct := func(n int) string {
			if t.rows == 0 {
				return "-"
			}
			return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(t.rows))
		}
		avg := "-"
		if t.rows > 0 {
			avg = fmt.Sprintf("%.1f", float64(t.runs)/float64(t.rows))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t\n", t.name, t.rows, pct(t.fixedFlagged), pct(t.faster+t.slower), pct(t.same), pct(t.undecided), avg, t.opposite)
	}
	for _, t := range all {
		line(t)
		total.add(t)
	}
	if len(all) > 1 {
		line(total)
	}
	tw.Flush()
}
