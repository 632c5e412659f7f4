package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/bisect"
)

var cmdBisect = &subcommand{
	name:  "bisect",
	args:  "[flags] GOOD BAD",
	short: "find the commit that made benchmarks slower",
	long: `Bisect finds the first commit after GOOD, up to BAD, on BAD's first-parent
history, at which the benchmarks got slower than at GOOD by more than
-threshold, and confirms it against its own parent.

Each step is a bench comparison of GOOD with the middle of the commits left,
with bench's statistics (-count auto by default: each benchmark run until
it is decided, where "the same" means within ±threshold): a middle with a
benchmark slower by more than the threshold is bad, one whose benchmarks are
all decided otherwise is good. For N commits it takes at most ⌈log₂ N⌉ steps
and the confirming one. Each commit's test binaries are built once.

It prints each step's verdict as it ends, then the culprit (hash and
subject) and the confirming comparison's table; -json prints the whole
result instead. The exit status is 0 when a culprit was found; 1 when none
was (BAD is not slower than GOOD, no single commit explains it, or a step
could not decide: it says which), or on failure; 2 for bad flags or
revisions. Only time (sec/op) counts.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		repo := fs.String("repo", ".", "the Git repository (and Go module) `DIR`")
		var pkgs stringsFlag
		fs.Var(&pkgs, "pkg", "benchmark the packages `PATTERN` names (repeatable; default: ./..., every package)")
		bench := fs.String("bench", ".", "run only the benchmarks matching `REGEXP`, as go test -bench takes it")
		var threshold config.Percent
		fs.Var(&threshold, "threshold", "the slowdown that counts, a `PERCENT` like 5% (default: bench.threshold)")
		var count config.Count
		fs.Var(&count, "count", "runs per side at each step, or auto (default: bench.count, auto)")
		maxCount := fs.Int("max-count", 0, "with -count auto, the most runs per side (default: bench.max_count, 30)")
		benchtime := fs.String("benchtime", "", "each run's -test.benchtime `D`: a duration or Nx (default: bench.benchtime)")
		sandboxed := fs.Bool("sandbox", false, "build and run the benchmarks in a bubblewrap sandbox (default: bench.sandbox)")
		jsonOut := fs.Bool("json", false, "print the result as JSON")
		quiet := fs.Bool("q", false, "no progress line (shown on stderr when it is a terminal)")

		return func(e *env, args []string) error {
			if len(args) != 2 {
				return usagef("want GOOD and BAD, two revisions; got %d arguments", len(args))
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			set := given(fs)
			if err := checkCount(set, count, *maxCount, cfg.Bench.Count); err != nil {
				return err
			}
			if !set["threshold"] {
				threshold = cfg.Bench.Threshold
			}
			if !(threshold > 0 && threshold < 100) {
				return usagef("-threshold: %s: want a slowdown above 0%% and under 100%%, like 5%%", threshold)
			}
			req := &job.BisectRequest{Repo: *repo, Good: args[0], Bad: args[1], Threshold: threshold.Fraction(),
				Bench: job.BenchSettings{Packages: pkgs, Bench: *bench, Count: count.N, Auto: count.Auto, MaxCount: *maxCount,
					Benchtime: *benchtime, Sandbox: *sandboxed}}
			env := job.Env{Log: e.log("bisect")}
			if progressOn(e.stderr, *quiet) {
				env.Progress = e.stderr
			}
			var start func(*bisect.Result)
			var show func(bisect.Step)
			if !*jsonOut {
				n, commits := 0, 0
				start = func(r *bisect.Result) {
					commits = r.Commits
					fmt.Fprintf(e.stdout, "bisecting %s (good, %s) .. %s (bad, %s): %d commits by first parents, at most %d steps, for a slowdown over %s\n",
						args[0], abbrev.Hash(r.Good.Hash), args[1], abbrev.Hash(r.Bad.Hash), r.Commits, bisect.MaxSteps(r.Commits), threshold)
				}
				show = func(s bisect.Step) {
					n++
					writeStep(e.stdout, n, commits, s)
				}
			}
			res, err := job.Bisect(e.ctx, req, cfg, env, start, show)
			if errors.Is(err, bisect.ErrBadRevision) || errors.Is(err, bisect.ErrNotRepository) || errors.Is(err, benchrun.ErrBadRevision) {
				return usagef("%v", err)
			}
			if err != nil {
				return jobError(err)
			}
			if *jsonOut {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				writeBisect(e.stdout, res)
			}
			if res.Culprit == nil {
				return errors.New(res.Reason)
			}
			return nil
		}
	},
}

// writeStep prints one step of a bisection and its benchmarks' verdicts.
func writeStep(w io.Writer, n, commits int, s bisect.Step) {
	what := fmt.Sprintf("step %d", n)
	if s.Confirm {
		what = "confirm"
	}
	fmt.Fprintf(w, "%s: %s vs %s (%d of %d, %s): %s\n", what, abbrev.Hash(s.Old), abbrev.Hash(s.New), s.At, commits, s.Subject, s.Verdict)
	for _, r := range s.Rows {
		fmt.Fprintf(w, "    %s\n", r.Text)
	}
}

// writeBisect prints what a bisection found: the culprit and the
// confirming comparison's table, or why there is none.
func writeBisect(w io.Writer, res *bisect.Result) {
	if res.Culprit == nil {
		fmt.Fprintf(w, "no culprit: %s\n", res.Reason)
		return
	}
	fmt.Fprintf(w, "culprit: %s %s\n", abbrev.Hash(res.Culprit.Hash), res.Culprit.Subject)
	last := res.Steps[len(res.Steps)-1]
	if last.Result != nil {
		fmt.Fprintf(w, "\nthe culprit against its parent:\n")
		last.Result.Write(w, benchrun.Benchcmp)
	}
}
