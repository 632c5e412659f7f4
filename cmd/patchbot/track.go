package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/track"
)

var cmdTrack = &subcommand{
	name:  "track",
	args:  "[flags]",
	short: "record a branch's benchmarks, find where they changed, bisect and report slowdowns",
	long: `Track records the benchmarks of a branch's new commits (first parents) in
a database, finds where each benchmark's time changed, bisects each new
slowdown to the commit that caused it, and comments once on that commit's
review: the pull request it came by (-github) or its Gerrit change, found
by its commit or its Change-Id (-gerrit); given both, Gerrit for a commit
whose change is found there, GitHub for any other.

Each run records the commits after the last one recorded, oldest first:
every commit, or one in -every, at most -max a run (a first run starts
-every × -max commits back). Each commit's benchmarks run -count times,
interleaved with those of the track's first commit with values (its
reference), so that the machine's drift cancels; a value is the ratio of
the two medians times the reference's value. Then every benchmark's series is
searched for change points (E-divisive means with Welch's t-test, as
Apache Otava/Hunter do, of at least -threshold), each recorded once. A
speedup is recorded and shown; a slowdown is bisected (as patchbot bisect
does, at most -max-bisect a run) over the recorded commits around it, and
the culprit gets one comment with the confirming comparison and the steps.
What a run leaves undone (a bisection over the bound, a comment the server
refused) the next run does, up to 3 tries a slowdown.

The database is the queue's (-db, as serve takes it: SQLite or PostgreSQL);
the history's tables are beside River's. -show prints what is recorded of
the track and runs nothing. The exit status is 0 when the run did what it
could, 1 on failure, 2 for bad flags.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		repo := fs.String("repo", ".", "the Git repository (and Go module) `DIR`")
		branch := fs.String("branch", "", "the `BRANCH` to track (default: the one checked out)")
		name := fs.String("name", "", "the track's `NAME` in the database (default: MODULE@BRANCH)")
		dbURL := fs.String("db", "", "the database `URL`: sqlite:FILE, or postgres://USER:PASSWORD@HOST:PORT/DB (default: serve's queue, sqlite:$XDG_STATE_HOME/patchbot/queue.db)")
		every := fs.Int("every", 1, "record one commit in `N`")
		maxN := fs.Int("max", job.DefaultTrackMax, "record at most `N` commits a run")
		maxBisect := fs.Int("max-bisect", job.DefaultMaxBisect, "bisect at most `N` slowdowns a run")
		var threshold config.Percent
		fs.Var(&threshold, "threshold", "the smallest change that counts, a `PERCENT` like 5% (default: bench.threshold)")
		var pkgs stringsFlag
		fs.Var(&pkgs, "pkg", "benchmark the packages `PATTERN` names (repeatable; default: ./..., every package)")
		bench := fs.String("bench", ".", "run only the benchmarks matching `REGEXP`, as go test -bench takes it")
		count := fs.Int("count", job.DefaultTrackCount, "runs of each commit's benchmarks")
		benchtime := fs.String("benchtime", "", "each run's -test.benchtime `D`: a duration or Nx (default: bench.benchtime)")
		sandboxed := fs.Bool("sandbox", false, "build and run the benchmarks in a bubblewrap sandbox (default: bench.sandbox)")
		ghRepo := fs.String("github", "", "comment on the pull requests of `OWNER/REPO` (GITHUB_TOKEN, GITHUB_API_URL)")
		gerritURL := fs.String("gerrit", "", "comment on the changes of the Gerrit server at `URL` (credentials as for post)")
		dryRun := fs.Bool("dry-run", false, "say what would be commented, and comment nothing")
		show := fs.Bool("show", false, "print what is recorded of the track, and run nothing")
		jsonOut := fs.Bool("json", false, "print the result as JSON")
		quiet := fs.Bool("q", false, "no progress line (shown on stderr when it is a terminal)")

		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected arguments: %q", args)
			}
			switch {
			case *every < 1:
				return usagef("-every must be 1 or more")
			case *maxN < 1:
				return usagef("-max must be 1 or more")
			case *maxBisect < 1:
				return usagef("-max-bisect must be 1 or more")
			case *count < 1:
				return usagef("-count must be 1 or more")
			}
			if *ghRepo != "" {
				if _, err := review.ParsePullRequest(*ghRepo + "#1"); err != nil {
					return usagef("-github: %q: want OWNER/REPO", *ghRepo)
				}
			}
			if *gerritURL != "" {
				if _, err := review.CheckServerURL(*gerritURL); err != nil {
					return usagef("-gerrit: %v", err)
				}
			}
			url := *dbURL
			if url == "" {
				var err error
				if url, err = queue.DefaultURL(); err != nil {
					return err
				}
			}
			db, err := queue.ParseURL(url)
			if err != nil {
				return usagef("-db: %v", err)
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			set := given(fs)
			if !set["threshold"] {
				threshold = cfg.Bench.Threshold
			}
			if !(threshold > 0 && threshold < 100) {
				return usagef("-threshold: %s: want a change above 0%% and under 100%%, like 5%%", threshold)
			}
			store, closeStore, err := queue.OpenTracks(e.ctx, db)
			if err != nil {
				return err
			}
			defer closeStore()
			req := &job.TrackRequest{Repo: *repo, Branch: *branch, Name: *name, Every: *every, Max: *maxN, MaxBisect: *maxBisect,
				Threshold: threshold.Fraction(), GitHub: *ghRepo, Gerrit: *gerritURL, DryRun: *dryRun,
				Bench: job.BenchSettings{Packages: pkgs, Bench: *bench, Count: *count, Benchtime: *benchtime, Sandbox: *sandboxed}}
			if *show {
				return showTrack(e, req, store, *jsonOut)
			}
			env := job.Env{Log: e.log("track")}
			if progressOn(e.stderr, *quiet) {
				env.Progress = e.stderr
			}
			if !*jsonOut {
				req.Report = e.stdout
			}
			res, err := job.Track(e.ctx, req, store, cfg, env)
			if res != nil && *jsonOut {
				if werr := writeJSON(e.stdout, res); werr != nil {
					return werr
				}
			}
			if err != nil {
				return jobError(err)
			}
			return nil
		}
	},
}

// showTrack prints what the store holds of the request's track: its
// commits, series and change points.
func showTrack(e *env, req *job.TrackRequest, store *track.Store, jsonOut bool) error {
	h, err := job.TrackHistory(e.ctx, req, store)
	if err != nil {
		return jobError(err)
	}
	if jsonOut {
		return writeJSON(e.stdout, h)
	}
	writeHistory(e.stdout, h)
	return nil
}

// writeHistory prints a track's history: a line for its commits and
// series, then each change point with what became of it.
func writeHistory(w io.Writer, h *job.History) {
	if len(h.Commits) == 0 {
		fmt.Fprintf(w, "%s: nothing recorded yet\n", h.Track)
		return
	}
	first, last := h.Commits[0], h.Commits[len(h.Commits)-1]
	failed := 0
	for _, c := range h.Commits {
		if c.Error != "" {
			failed++
		}
	}
	fmt.Fprintf(w, "%s: %d commits recorded, %s (%s) to %s (%s), %d without values; %d series\n", h.Track, len(h.Commits),
		abbrev.Hash(first.Hash), first.Time.Format("2006-01-02"), abbrev.Hash(last.Hash), last.Time.Format("2006-01-02"), failed, len(h.Series))
	if len(h.Changes) == 0 {
		fmt.Fprintf(w, "no change points\n")
		return
	}
	for _, c := range h.Changes {
		fmt.Fprintf(w, "%s %s %s: %+.1f%% at %s (after %s): %s", c.Key.Package, c.Key.Name, c.Key.Unit, 100*(c.Ratio()-1), abbrev.Hash(c.Hash), abbrev.Hash(c.Prev), c.State)
		var more []string
		if c.Culprit != "" {
			more = append(more, "culprit "+abbrev.Hash(c.Culprit))
		}
		if c.Comment != "" {
			more = append(more, c.Comment)
		}
		if c.Reason != "" {
			more = append(more, c.Reason)
		}
		if len(more) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(more, "; "))
		}
		fmt.Fprintln(w)
	}
}
