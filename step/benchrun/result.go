package benchrun

import (
	"fmt"
	"math"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"
)

// A Result is the comparison of one set of benchmark results (the base, or
// "old" side) with another (the head, or "new" side). It is what
// 'patchbot bench -json' prints and what 'patchbot post' reads back, so every
// field has a JSON name and every figure a renderer shows is in it: a
// renderer never recomputes statistics.
type Result struct {
	// Schema names the form of the JSON result, ResultSchema; Write
	// sets it, and ReadJSON refuses a result without it.
	Schema string `json:"schema"`

	Base Side `json:"base"`
	Head Side `json:"head"`

	// Alpha is the significance level of the comparisons and Confidence
	// the level of the intervals (0.05 and 0.95 by default).
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`

	// Tables holds one table per configuration (goos, goarch, pkg, cpu)
	// and unit, in the order benchstat prints them.
	Tables []*Table `json:"tables"`

	// Warnings lists malformed benchmark lines, which are skipped.
	Warnings []string `json:"warnings,omitempty"`

	// Failures lists benchmark processes that failed, panicked or timed
	// out; their other results are still compared.
	Failures []*Failure `json:"failures,omitempty"`

	// Omitted lists the benchmarks, and the values of benchmarks, that
	// ran but are in no table: a value that is not a finite number, a
	// benchmark that skipped itself or printed no result line.
	Omitted []*Omission `json:"omitted,omitempty"`

	// Run describes how the benchmarks were run; nil when the result
	// comes from saved files.
	Run *RunInfo `json:"run,omitempty"`

	// Command is the command line that produced the result, when the
	// caller records it.
	Command []string `json:"command,omitempty"`
}

// A Side is one of the two things compared.
type Side struct {
	// Label heads the side's column in benchstat format: the file name
	// for saved files, the revision for a run.
	Label string `json:"label"`

	// Revision is the revision as given ("HEAD~1") and Commit the full
	// hash it resolved to. For saved files Revision is empty, and Commit
	// is the revision the file records (see RevisionKey), if it does.
	Revision string `json:"revision,omitempty"`
	Commit   string `json:"commit,omitempty"`

	// File is the side's raw results in Go benchmark format, when they
	// were kept.
	File string `json:"file,omitempty"`
}

// A Table compares the benchmarks of one configuration in one unit.
type Table struct {
	// Config is the file configuration shared by the table's results,
	// in benchstat's order (usually goos, goarch, pkg, cpu).
	Config []ConfigValue `json:"config"`

	// Unit is the tidied unit, as benchfmt reports it: "sec/op" for
	// ns/op, "B/s" for MB/s, then "B/op", "allocs/op" or a custom unit.
	Unit string `json:"unit"`

	// Better is +1 when higher values are better (B/s), -1 when lower
	// values are (sec/op, B/op, allocs/op), 0 when the unit does not say.
	Better int `json:"better"`

	// HasOld and HasNew report whether any row of the table has a
	// summary on that side; a table with one side only has no
	// comparisons (a unit only the new code reports, say).
	HasOld bool `json:"has_old"`
	HasNew bool `json:"has_new"`

	Rows []*Row `json:"rows"`

	// Geomean is the geometric mean of each column and of the ratios,
	// without any verdict; nil when the table has a single row, as in
	// benchstat.
	Geomean *Geomean `json:"geomean,omitempty"`
}

// A ConfigValue is one key of a table's configuration.
type ConfigValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Get returns the value of the configuration key, or "".
func (t *Table) Get(key string) string {
	for _, c := range t.Config {
		if c.Key == key {
			return c.Value
		}
	}
	return ""
}

// A Row is one benchmark in one unit.
type Row struct {
	// Name is the benchmark's full name without the "Benchmark"
	// prefix, as benchstat shows it: "WriteInts/codec-2".
	Name string `json:"name"`

	// Old and New summarise each side; one is nil when the benchmark
	// ran on one side only (added or removed).
	Old *Summary `json:"old,omitempty"`
	New *Summary `json:"new,omitempty"`

	// Compare is set when both sides are present.
	Compare *Comparison `json:"compare,omitempty"`
}

// A Summary is the median of a sample and its confidence interval.
type Summary struct {
	Center float64 `json:"center"`
	// Lo and Hi bound the interval; both are omitted (and the interval
	// is infinite) when there are too few runs for one.
	Lo         *float64  `json:"lo,omitempty"`
	Hi         *float64  `json:"hi,omitempty"`
	Confidence float64   `json:"confidence"`
	N          int       `json:"n"`
	Values     []float64 `json:"values"` // the sample, sorted
	// Runs is the sample in the order the runs were made (the order
	// of the side's file): in an interleaved run, Runs[i] of the two
	// sides ran next to each other.
	Runs     []float64 `json:"runs,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
}

// A Comparison is the Mann-Whitney U test of the two sides of a row.
type Comparison struct {
	P     float64 `json:"p"`
	N1    int     `json:"n1"`
	N2    int     `json:"n2"`
	Alpha float64 `json:"alpha"`

	// Delta is the relative change of the medians, new/old - 1; 0 when
	// the old median is 0 (as JSON has no infinity).
	Delta float64 `json:"delta"`

	// Lo and Hi bound the change, new/old - 1 as Delta, at the level of
	// the row's verdict: the Decision's interval when there is one,
	// else the two samples' at the U test's level (1 - Alpha). Both are
	// omitted when the runs are too few for an interval.
	Lo *float64 `json:"lo,omitempty"`
	Hi *float64 `json:"hi,omitempty"`

	// Significant reports whether P <= Alpha: a "~" in every format
	// when it is false.
	Significant bool `json:"significant"`

	// Verdict is the row's verdict in a reviewer's words: "faster" or
	// "slower" (significant, in the unit's direction: for B/s faster is
	// higher, for allocs/op and B/op fewer), "same" (the change's
	// interval lies within ±the equivalence margin, or the sides are
	// equal), or "undecided" (neither). A unit without a direction
	// (a custom metric benchfmt does not know) says "changed" instead
	// of faster or slower. With a Decision, it is the Decision's.
	Verdict string `json:"verdict"`

	Warnings []string `json:"warnings,omitempty"`

	// Decision is a sequential comparison's verdict on the row (time and
	// throughput rows, with -count auto); Significant and Verdict then
	// follow it rather than the U test: faster and slower are
	// significant, same and undecided are "~".
	Decision *Decision `json:"decision,omitempty"`
}

// A Decision is the verdict of a sequential comparison on one benchmark
// (package step/verdict): its words, the change's estimate and interval.
type Decision struct {
	// Verdict is "faster", "slower", "same" (within ±Margin) or
	// "undecided" (the cap came first, or could not have helped).
	Verdict string   `json:"verdict"`
	Ratio   float64  `json:"ratio"`        // new/old, estimated
	Lo      float64  `json:"lo"`           // the interval of new/old, at Level
	Hi      *float64 `json:"hi,omitempty"` // omitted when unbounded (too few runs)
	Level   float64  `json:"level"`
	Margin  float64  `json:"margin"`
	// Bound is X: a "same" is the same within ±X, an "undecided" too
	// noisy to bound below it (0.015 for ±1.5%); omitted when there is
	// no interval.
	Bound float64 `json:"bound,omitempty"`
	// Paired is set when the interval is that of the runs' pairs (the
	// interleaved order: the i-th runs of the two sides are
	// neighbours), not that of two independent samples.
	Paired bool `json:"paired,omitempty"`
	// Detectable is the smallest change (0.05 for 5%) the runs would
	// have detected with 80% power; omitted when they were too few.
	Detectable *float64 `json:"detectable,omitempty"`
	Look       int      `json:"look"` // the look that decided it, from 1
}

// The verdicts of a Comparison, and of a Decision (all but Changed).
const (
	Faster    = "faster"
	Slower    = "slower"
	Same      = "same"
	Undecided = "undecided"
	Changed   = "changed" // significant, in a unit without a direction
)

// A Geomean is the summary row of a table. It carries no significance
// test: it is for a reader's overall impression, never a gate.
type Geomean struct {
	Old   *float64 `json:"old,omitempty"`   // geomean of the old medians
	New   *float64 `json:"new,omitempty"`   // geomean of the new medians
	Ratio *float64 `json:"ratio,omitempty"` // geomean of new/old per row

	// OldWarnings and NewWarnings are benchstat's warnings on each
	// column's geomean (a benchmark set that differs, a zero median).
	OldWarnings []string `json:"old_warnings,omitempty"`
	NewWarnings []string `json:"new_warnings,omitempty"`
}

// A Failure is a benchmark process that did not succeed on one side.
type Failure struct {
	Side    string `json:"side"` // "old" or "new"
	Package string `json:"package"`
	Runs    int    `json:"runs"` // how many of its runs failed
	Error   string `json:"error"`
	Tail    string `json:"tail"` // its output's last lines, or from "panic: " on
}

// An Omission is a benchmark, or one value of a benchmark, that ran on a
// side but is in no table, and why. Each is listed once per side,
// benchmark and reason, with how often it happened.
type Omission struct {
	Side      string `json:"side"`              // "old" or "new"
	Package   string `json:"package,omitempty"` // its import path, when known
	Benchmark string `json:"benchmark"`         // full name less "Benchmark": "X/n=10-2"
	Reason    string `json:"reason"`            // "NaN ns/op is not a finite number"

	// Where is the first line it comes from, "new.txt:12", for a value
	// read from a side's results; empty for a run's output.
	Where string `json:"where,omitempty"`
	Count int    `json:"count"` // the lines, or the runs, it happened in
}

// String describes o in one line, as the notes under a table list it:
// "(new) example.com/m X-2: NaN ns/op is not a finite number (new.txt:3,
// 6 lines)".
func (o *Omission) String() string {
	s := "(" + o.Side + ") "
	if o.Package != "" {
		s += o.Package + " "
	}
	name := o.Benchmark
	if name == "" {
		name = "Benchmark" // func Benchmark(b *testing.B) is one
	}
	s += name + ": " + o.Reason
	switch {
	case o.Where != "" && o.Count > 1:
		s += fmt.Sprintf(" (%s, %d lines)", o.Where, o.Count)
	case o.Where != "":
		s += " (" + o.Where + ")"
	case o.Count > 1:
		s += fmt.Sprintf(" (%d runs)", o.Count)
	}
	return s
}

// RunInfo says how a Result's benchmarks were run.
type RunInfo struct {
	Packages  []string `json:"packages"`
	Bench     string   `json:"bench"`
	Count     int      `json:"count"`
	Benchtime string   `json:"benchtime,omitempty"`
	CPU       string   `json:"cpu,omitempty"`
	Order     Order    `json:"order"`
	Seed      uint64   `json:"seed,omitempty"`
	Skipped   []string `json:"skipped,omitempty"` // touched packages without benchmarks (a run of Head alone or against itself)

	// Selection says why Packages were compared and the module's other
	// packages with benchmarks were not, when the packages were not
	// named; nil when they were.
	Selection *Selection `json:"selection,omitempty"`

	// Parts are what a Split run would have run, one a package: set only
	// by a Split run, which runs nothing.
	Parts []Part `json:"parts,omitempty"`

	// Looks are a sequential comparison's runs per side after each
	// round (Count is the last, the cap), and Margin its "same within
	// ±Margin"; empty in the fixed design, where every benchmark runs
	// Count times.
	Looks  []int   `json:"looks,omitempty"`
	Margin float64 `json:"margin,omitempty"`
	// MarginMax is the widest "same within ±X" the comparison may say,
	// for a benchmark that more runs would not bring within ±Margin.
	MarginMax float64 `json:"margin_max,omitempty"`

	// AA is set on an A/A run (Options.AA): one binary on both sides,
	// so that every change flagged is a false alarm.
	AA bool `json:"aa,omitempty"`
	// Single is set on a run of Head alone (Options.Single): nothing
	// compared, every row Head's.
	Single bool `json:"single,omitempty"`

	Wall      time.Duration `json:"wall_ns"`  // the whole run, checkouts included
	Build     time.Duration `json:"build_ns"` // go test -c, both sides
	BenchTime time.Duration `json:"bench_ns"` // benchmark processes, start to exit

	// Isolation says how the processes ran: in which sandbox, with which
	// limits, or in none.
	Isolation Isolation `json:"isolation"`
}

// An Isolation says how a run's processes ran. Its zero value is "not
// sandboxed": as the user that ran patchbot, with its files and network
// (but never its credentials).
type Isolation struct {
	// Sandbox names the sandbox and what it keeps out; "" is none.
	Sandbox string `json:"sandbox,omitempty"`
	// Limits are the limits in force, as "memory 4 GiB (cgroup v1)".
	Limits []string `json:"limits,omitempty"`
	// Unlimited are the limits the sandbox could not set here, and why.
	Unlimited []string `json:"unlimited,omitempty"`
}

// An Isolator is a Runner that says how it runs the processes, for the
// result. A Runner that is not one is taken for no sandbox.
type Isolator interface {
	Runner
	Isolation() Isolation
}

// String says it in a line.
func (i Isolation) String() string {
	if i.Sandbox == "" {
		return "not sandboxed: the benchmarks ran as this user, with its files and network (without its credentials)"
	}
	s := "sandboxed: " + i.Sandbox
	if len(i.Limits) > 0 {
		s += "; limits: " + strings.Join(i.Limits, ", ")
	}
	if len(i.Unlimited) > 0 {
		s += "; not limited: " + strings.Join(i.Unlimited, "; ")
	}
	return s
}

// Overhead is the share of the wall time that patchbot itself spent, rather
// than the go command building or the benchmarks running.
func (r *RunInfo) Overhead() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return 1 - float64(r.Build+r.BenchTime)/float64(r.Wall)
}

// summary returns s as benchmath sees it, for its formatting methods.
func (s *Summary) summary() benchmath.Summary {
	lo, hi := math.Inf(-1), math.Inf(1)
	if s.Lo != nil && s.Hi != nil {
		lo, hi = *s.Lo, *s.Hi
	}
	return benchmath.Summary{Center: s.Center, Lo: lo, Hi: hi, Confidence: s.Confidence}
}

// comparison returns c as benchmath sees it.
func (c *Comparison) comparison() benchmath.Comparison {
	return benchmath.Comparison{P: c.P, N1: c.N1, N2: c.N2, Alpha: c.Alpha}
}

// Added returns the rows present on the new side only.
func (t *Table) Added() []*Row { return t.filter(func(r *Row) bool { return r.Old == nil }) }

// Removed returns the rows present on the old side only.
func (t *Table) Removed() []*Row { return t.filter(func(r *Row) bool { return r.New == nil }) }

func (t *Table) filter(keep func(*Row) bool) []*Row {
	var rows []*Row
	for _, r := range t.Rows {
		if keep(r) {
			rows = append(rows, r)
		}
	}
	return rows
}
