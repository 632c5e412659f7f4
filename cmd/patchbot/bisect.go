package main

import (
	"errors"
	"flag"

	"github.com/patchbot/patchbot/config"
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
		bf := addBenchFlags(fs, "those each step's change affects", "`N` runs per side at each step, or auto (default: bench.count, auto)")
		var threshold config.Percent
		fs.Var(&threshold, "threshold", "the slowdown that counts, a `PERCENT` like 5% (default: bench.threshold)")
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
			bs, err := bf.settings(set, cfg.Bench.Count)
			if err != nil {
				return err
			}
			if set["threshold"] && !(threshold > 0 && threshold < 100) {
				return usagef("-threshold: %s: want a slowdown above 0%% and under 100%%, like 5%%", threshold)
			}
			req := &job.BisectRequest{Repo: *bf.repo, Good: args[0], Bad: args[1], Bench: bs}
			if set["threshold"] {
				req.Threshold = threshold.Fraction()
			}
			env := job.Env{Log: e.log("bisect")}
			if progressOn(e.stderr, *quiet) {
				env.Progress = e.stderr
			}
			if !*jsonOut {
				env.Tell = e.tell()
			}
			res, err := job.Bisect(e.ctx, req, cfg, env)
			if errors.Is(err, bisect.ErrBadRevision) || errors.Is(err, benchrun.ErrBadRevision) {
				return usagef("%v", err)
			}
			if err != nil {
				return jobError(err, map[string]string{"good": "GOOD", "bad": "BAD"})
			}
			if *jsonOut {
				err = writeJSON(e.stdout, res)
			} else {
				err = res.Write(e.stdout)
			}
			if err != nil {
				return err
			}
			if res.Culprit == nil {
				return errors.New(res.Reason)
			}
			return nil
		}
	},
}
