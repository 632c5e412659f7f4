package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
)

var cmdBench = &subcommand{
	name:  "bench",
	args:  "[flags] [BASE [HEAD]] | -old FILE -new FILE [flags]",
	short: "compare benchmarks before and after a change, with statistics",
	long: `Bench runs the benchmarks of the packages a change touches at two Git
revisions, BASE and HEAD (by default HEAD's first parent and HEAD), and
compares them: per benchmark and unit the medians, their 95% confidence
intervals, the Mann-Whitney U test's p-value, and the change, or "~" when it
is not significant.

The working tree, index and branches are never touched: each revision is
written into a temporary directory, each package's test binary is built once
per revision (go test -c), and the binaries are run -count times each, every
run a fresh process, alternating the revisions (old new new old ...) so that
a drifting machine weighs on both alike. With -count auto they run in rounds
of 6 a side, and after each round every benchmark (every sub-benchmark) whose
time the runs can decide is faster, slower, the same within the bound its
runs give (±bench.equivalence, or up to ±bench.equivalence_max where another
round would not get within the first), or undecided, and runs no more: see 'patchbot doc
bench'.

With -aa it compares HEAD, or the one revision given, with itself: one test
binary per package runs as both sides, so that every change flagged is a
false alarm, and the last note counts them.

With -old and -new it compares saved results in Go benchmark format instead,
running nothing: the files -o keeps, or any 'go test -bench' output.

The exit status is 1 when -fail-on-regression is set and some benchmark got
significantly worse by more than -threshold, and 2 for bad flags or
configuration. The defaults of -count, -benchtime, -timeout, -order,
-threshold and -format come from the bench section of the configuration.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		bf := addBenchFlags(fs, "those the change affects, -select", countAutoUsage)
		sel := fs.String("select", "affected", "without -pkg, which benchmarks run: affected (those the change can reach, in the packages whose test binaries differ) or all")
		aa := fs.Bool("aa", false, "A/A: compare HEAD (or the one revision given) with itself, one binary on both sides, to see the false alarms")
		cpu := fs.String("cpu", "", "each run's -test.cpu `LIST`")
		timeout := fs.Duration("timeout", 0, "kill a run that takes longer than `D`, and report it as failed (default: bench.timeout, 10m)")
		order := fs.String("order", "", "run `ORDER`: interleaved, shuffled or sequential (default: bench.order)")
		seed := fs.Uint64("seed", 0, "seed of the shuffled order (default: random, printed)")
		outDir := fs.String("o", "", "keep the raw results in `DIR` as old.txt and new.txt")
		oldFile := fs.String("old", "", "compare saved results: the old side's `FILE`")
		newFile := fs.String("new", "", "compare saved results: the new side's `FILE`")
		format := fs.String("format", "", "output `FORMAT`: benchcmp, benchstat, markdown, gerrit or json (default: bench.format)")
		jsonOut := fs.Bool("json", false, "print the result as JSON (same as -format json)")
		quiet := fs.Bool("q", false, "no progress line (shown on stderr when it is a terminal)")
		var threshold config.Percent
		fs.Var(&threshold, "threshold", "with -fail-on-regression, the worsening that fails, a `PERCENT` like 5% (default: bench.threshold)")
		failOnRegression := fs.Bool("fail-on-regression", false, "exit 1 when a benchmark got significantly worse by more than -threshold")

		return func(e *env, args []string) error {
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			bc := cfg.Bench
			set := given(fs)
			bs, err := bf.settings(set, bc.Count)
			if err != nil {
				return err
			}
			if *jsonOut {
				*format = string(benchrun.JSON)
			}
			if !set["format"] && !*jsonOut {
				*format = bc.Format
			}
			f, err := benchrun.ParseFormat(*format)
			if err != nil {
				return usagef("-format: %v", err)
			}
			if !set["threshold"] {
				threshold = bc.Threshold
			} else if threshold < 0 {
				return usagef("-threshold must not be negative")
			}
			cmpOpts := &benchrun.CompareOptions{Alpha: bc.Alpha, Margin: bc.Equivalence.Fraction()}

			var res *benchrun.Result
			if *oldFile != "" || *newFile != "" {
				if *oldFile == "" || *newFile == "" {
					return usagef("-old and -new go together")
				}
				if len(args) > 0 {
					return usagef("-old and -new compare files: no revisions with them")
				}
				for _, name := range runFlags {
					if set[name] {
						return usagef("-%s is for running benchmarks; it does not go with -old and -new", name)
					}
				}
				res, err = benchrun.CompareFiles(*oldFile, *newFile, cmpOpts)
				if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
					return usagef("%v", err) // a missing input: exit 2, as everywhere
				}
				if err != nil {
					return err
				}
			} else {
				if len(args) > 2 {
					return usagef("too many arguments: at most BASE and HEAD")
				}
				if *aa && len(args) > 1 {
					return usagef("-aa compares one revision with itself: give at most one")
				}
				bs.Select, bs.AA, bs.CPU, bs.Timeout, bs.Order, bs.Seed, bs.OutDir = *sel, *aa, *cpu, *timeout, *order, *seed, *outDir
				req := &job.Request{Steps: []string{job.StepBench}, Repo: *bf.repo, Bench: bs}
				switch {
				case *aa && len(args) > 0:
					req.Base, req.Head = args[0], args[0]
				case len(args) > 0:
					req.Base = args[0]
				}
				if len(args) > 1 {
					req.Head = args[1]
				}
				env := job.Env{Log: e.log("bench")}
				if progressOn(e.stderr, *quiet) {
					env.Progress = e.stderr
				}
				res, err = job.Bench(e.ctx, req, cfg, env)
				if errors.Is(err, benchrun.ErrBadRevision) {
					return usagef("%v", err)
				}
				if err != nil {
					return jobError(err)
				}
			}
			res.Command = commandLine(fs, args)
			if err := res.Write(e.stdout, f); err != nil {
				return err
			}
			if err := e.actionsBench(res, threshold.Fraction(), f == benchrun.JSON); err != nil {
				return err
			}
			if *failOnRegression {
				if regs := res.Regressions(threshold.Fraction()); len(regs) > 0 {
					var names []string
					for _, g := range regs {
						names = append(names, g.String())
					}
					return fmt.Errorf("significant regression over the %s threshold: %s", threshold, strings.Join(names, "; "))
				}
			}
			return nil
		}
	},
}

// runFlags are the flags that only make sense when bench runs benchmarks.
var runFlags = []string{"repo", "pkg", "select", "bench", "count", "max-count", "aa", "benchtime", "cpu", "timeout", "order", "seed", "o", "sandbox"}

// stringsFlag is a flag that may be given several times.
type stringsFlag []string

func (s *stringsFlag) String() string { return strings.Join(*s, " ") }
func (s *stringsFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// progressOn reports whether a command shows its progress line on stderr,
// as the go command does: when stderr is a terminal (whatever stdout is: a
// pipe through tee, a file of results) and -q was not given. On a pipe or
// a file, a line rewritten in place is noise in a log.
func progressOn(stderr any, quiet bool) bool {
	f, ok := stderr.(*os.File)
	return !quiet && ok && term.IsTerminal(int(f.Fd()))
}

// commandLine reconstructs the command line for the JSON result: the flags
// that were set, a repeated flag once per value, then the arguments.
func commandLine(fs *flag.FlagSet, args []string) []string {
	line := []string{"patchbot", fs.Name()}
	fs.Visit(func(f *flag.Flag) {
		if vs, ok := f.Value.(*stringsFlag); ok {
			for _, v := range *vs {
				line = append(line, "-"+f.Name+"="+v)
			}
			return
		}
		line = append(line, "-"+f.Name+"="+f.Value.String())
	})
	return append(line, args...)
}

// checkCount checks -count and -max-count, given the configuration's
// count, def: a number of runs at least 1, or auto; -max-count only where
// the count in force is auto.
func checkCount(set map[string]bool, count config.Count, maxCount int, def config.Count) error {
	if set["count"] && !count.Auto && count.N < 1 {
		return usagef("-count must be at least 1, or auto")
	}
	inForce := def
	if set["count"] {
		inForce = count
	}
	if set["max-count"] && !inForce.Auto {
		return usagef("-max-count goes with -count auto, and the count here is %s runs", inForce)
	}
	return nil
}
