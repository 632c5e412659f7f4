package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/example"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
)

var cmdRun = &subcommand{
	name:  "run",
	args:  "[-repo DIR] [-onto REV] [-change ID | -push [push flags]] [-gerrit URL] [-github OWNER/REPO#N] [-for BRANCH] [-at DATE] [-count N|auto] [-max-count N] [-benchtime D] [-bench REGEXP] [-pkg PATTERN]... [-select affected|all] [-o DIR] [-no-freeze] [-n] [-json] [-q] [-keep] [-config FILE] [PATCH...]",
	short: "the whole job: port, freeze check, benchmarks, review message",
	long: `Run does the whole job, in four steps, each reported as it ends:

  port    the patches are ported onto the repository, as 'patchbot port' does;
  freeze  the branch the change is for (-for, default the branch checked out)
          is checked for a release freeze now, or at -at DATE, as 'patchbot
          freeze' does;
  bench   the packages the patches touch (or -pkg) are benchmarked at the
          commit they were ported onto and at the last ported commit, as
          'patchbot bench' does: -count auto (the default) runs each benchmark
          in rounds until it is decided faster, slower, the same or
          undecided, at most -max-count runs per side; -count N runs N;
  post    one review message is composed: the freeze status, the significant
          changes in words, the tables with intervals and p-values. With -push
          the last commit is pushed to Gerrit for review first (the push flags
          are port's) and the message goes to the change it creates or
          updates; with -change it goes to that change; with -github to the
          pull request's patchbot comment. A frozen branch adds the
          wait-release hashtag to the change. With no target the message is
          printed.

With no PATCH and no -repo, run replays the founding story: a scratch
repository in a temporary directory (removed afterwards unless -keep) holding
this repository's codec/ before the unsigned fast path, the Mercurial-era
patch ` + example.PatchFile + ` ported onto it, the freeze
check from the built-in calendar and schedule rule, codec's ReadInts and
WriteInts benchmarks before and after, and the review message it would post.
It needs Go and git, nothing else, and takes well under a minute on a
2-core machine (a minute or two with a cold Go build cache).

A step that fails stops the job with its error (exit status 1; 2 for bad
flags or configuration) and leaves what the steps before it did: a ported
branch stays, and nothing is half posted. Running the same command again is
safe: the port finds its branch up to date, Gerrit answers "no new changes",
and the message, once on a patch set, is not posted there again.

With -n nothing of the user's is changed: the port is made in a scratch clone
of the repository (so the benchmarks still run), and nothing is pushed,
tagged or posted; what would be is printed. With -json the output is one
record of the four steps, with the error of the step that failed, if any.
The defaults of -count and -benchtime come from the run section of the
configuration; -max-count, the benchmarks' timeout, order and alpha from
the bench section. See 'patchbot doc run'.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		repo := fs.String("repo", "", "the Git repository `DIR` to port onto (default: the current directory with PATCH, the built-in example without)")
		onto := fs.String("onto", "", "port onto `REV` (default HEAD)")
		change := fs.String("change", "", "post to the Gerrit change `ID` (a number, project~number or Change-Id) instead of pushing")
		pr := fs.String("github", "", "post to the GitHub pull request `OWNER/REPO#N`")
		at := fs.String("at", "", "check the freeze at `DATE` (2006-01-02 or RFC 3339) instead of now")
		var count config.Count
		fs.Var(&count, "count", "benchmark runs per side, at most 1000, or auto: run each benchmark until it is decided (default: run.count, auto)")
		maxCount := fs.Int("max-count", 0, "with -count auto, the most runs per side (default: bench.max_count, 30)")
		benchtime := fs.String("benchtime", "", "each benchmark run's -test.benchtime `D` (default: run.benchtime)")
		sel := fs.String("select", "affected", "without -pkg, which benchmarks run: affected (those the change can reach, in the packages whose test binaries differ) or all")
		bench := fs.String("bench", "", "run only the benchmarks matching `REGEXP` (default: all; the example's story for the example)")
		var pkgs stringsFlag
		fs.Var(&pkgs, "pkg", "benchmark the packages `PATTERN` names (repeatable; default: those the patches touch)")
		outDir := fs.String("o", "", "keep the raw benchmark results in `DIR` as old.txt and new.txt")
		keep := fs.Bool("keep", false, "keep the scratch directory (the example's repository, or a dry run's clone)")
		dryRun := fs.Bool("n", false, "change nothing of yours: port in a scratch clone, push and post nothing, print what would be")
		noFreeze := fs.Bool("no-freeze", false, "skip the freeze step, for a project with no release freeze (default: run.freeze)")
		jsonOut := fs.Bool("json", false, "print one JSON record of the four steps")
		quiet := fs.Bool("q", false, "no progress line (shown on stderr when it is a terminal)")
		pf := definePushFlags(fs)
		// Two of the push flags mean more here.
		fs.Lookup("for").Usage = "the `BRANCH` the change is for: the freeze check's, and -push's (default: the branch the repository is on; master for the built-in example)"
		fs.Lookup("gerrit").Usage = "with -push or -change: the Gerrit server's `URL` (default: review.gerrit)"

		return func(e *env, args []string) error {
			set := given(fs)
			switch {
			case *pf.push && *change != "":
				return usagef("-change and -push do not go together: -push posts to the change it pushes")
			case set["gerrit"] && !*pf.push && *change == "":
				return usagef("-gerrit needs -push or -change")
			}
			// -for also names the branch whose freeze is checked, and
			// -gerrit also goes with -change.
			if err := pf.checkGiven(fs, "for", "gerrit"); err != nil {
				return err
			}
			isExample := len(args) == 0 && *repo == ""
			switch {
			case len(args) == 0 && *repo != "":
				return usagef("-repo needs a PATCH to port (without both, run runs the built-in example)")
			case isExample && *onto != "":
				return usagef("-onto needs a PATCH and -repo (the built-in example ports onto its own base)")
			case !isExample && *repo == "":
				*repo = "."
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			req := &job.Request{Repo: *repo, Onto: *onto, Keep: *keep, DryRun: *dryRun, Branch: *pf.branch}
			if *noFreeze || !cfg.Run.Freeze {
				req.Steps = []string{job.StepPort, job.StepBench, job.StepPost}
			}
			if !isExample {
				if req.Patches, err = readPatches(e.stdin, args); err != nil {
					return err
				}
			}
			if *at != "" {
				if req.At, err = job.ParseAt(*at); err != nil {
					return usagef("-at: %v", err)
				}
			}
			if err := checkCount(set, count, *maxCount, cfg.Run.Count); err != nil {
				return err
			}
			req.Bench = job.BenchSettings{Packages: pkgs, Select: *sel, Bench: *bench, Count: count.N, Auto: count.Auto, MaxCount: *maxCount, Benchtime: *benchtime, OutDir: *outDir}
			switch {
			case *pf.push:
				req.Gerrit = &job.Gerrit{Server: *pf.gerrit, Push: pf.push1()}
			case *change != "":
				req.Gerrit = &job.Gerrit{Server: *pf.gerrit, Change: *change}
			}
			if req.GitHub, err = githubFlag(*pr); err != nil {
				return err
			}
			env := job.Env{
				Log: e.log("run"),
			}
			if progressOn(e.stderr, *quiet) {
				env.Progress = e.stderr
			}
			if !*jsonOut {
				env.Report = func(step string, res *job.Result) {
					// A step's text may hold a library's remedy
					// (internal/remedy): word it as flags.
					var b strings.Builder
					res.WriteStep(&b, step)
					io.WriteString(e.stdout, remedy.Word(b.String(), e.words))
				}
			}
			res, err := job.Run(e.ctx, req, cfg, env)
			if res == nil {
				// Refused before anything was done.
				return jobError(err)
			}
			if aerr := e.actionsRun(res, cfg.Bench.Threshold.Fraction()); aerr != nil && err == nil {
				err = aerr
			}
			if *jsonOut {
				if jerr := writeJSON(e.stdout, res); jerr != nil {
					return jerr
				}
			} else if res != nil && res.Kept {
				fmt.Fprintf(e.stdout, "\nscratch directory kept: %s\n", res.Scratch)
			}
			return jobError(err)
		}
	},
}
