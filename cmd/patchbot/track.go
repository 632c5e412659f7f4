package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/db"
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
the track and runs nothing; -n says what a run would record, bisect and
comment, and does none of it. Flags not given come from config.yaml's
track section, as sweep's track task takes it. The exit status is 0 when
the run did what it could, 1 on failure, 2 for bad flags.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		bf := addBenchFlags(fs, "track.packages, else ./..., every package", "`N` runs of each commit's benchmarks (default: track.count)")
		fs.Lookup("max-count").Usage = "the most runs per side, `N`, of a bisection's steps, which count automatically (default: bench.max_count, 30)"
		branch := fs.String("for", "", "the `BRANCH` to track (default: track.branch, else the one checked out)")
		oldBranch := renamed(fs, "branch", "for")
		name := fs.String("name", "", "the track's `NAME` in the database (default: MODULE@BRANCH)")
		dbURL := fs.String("db", "", "the database `URL`: sqlite:FILE, or postgres://USER:PASSWORD@HOST:PORT/DB (default: serve's queue, sqlite:$XDG_STATE_HOME/patchbot/queue.db)")
		every := fs.Int("every", 0, "record one commit in `N` (default: track.every)")
		maxN := fs.Int("max", 0, "record at most `N` commits a run (default: track.max)")
		maxBisect := fs.Int("max-bisect", 0, "bisect at most `N` slowdowns a run (default: track.max_bisect)")
		var threshold config.Percent
		fs.Var(&threshold, "threshold", "the smallest change that counts, a `PERCENT` like 5% (default: bench.threshold)")
		var ghRepo review.Repository
		fs.TextVar(&ghRepo, "github", review.Repository{}, "comment on the pull requests of `OWNER/REPO` (GITHUB_TOKEN, GITHUB_API_URL)")
		gerritURL := fs.String("gerrit", "", "comment on the changes of the Gerrit server at `URL` (credentials as for post)")
		dryRun := fs.Bool("n", false, "say what a run would record, bisect and comment, and benchmark, record and comment nothing")
		// -dry-run recorded and bisected, and only commented nothing;
		// -n does none of it. A cron line with -dry-run must not
		// quietly stop recording: it is refused, with the way out.
		oldDryRun := fs.Bool("dry-run", false, "removed: it recorded and bisected and commented nothing; say -n for a run that does nothing, or leave out -github and -gerrit to record without commenting")
		show := fs.Bool("show", false, "print what is recorded of the track, and run nothing")
		jsonOut := fs.Bool("json", false, "print the result as JSON")
		quiet := fs.Bool("q", false, "no progress line (shown on stderr when it is a terminal)")

		return func(e *env, args []string) error {
			oldBranch.warn(e, "track")
			if *oldDryRun {
				return usagef("-dry-run is gone: it recorded and bisected and commented nothing; say -n for a run that does nothing, or leave out -github and -gerrit to record without commenting")
			}
			if len(args) > 0 {
				return usagef("unexpected arguments: %q", args)
			}
			set := given(fs)
			for _, f := range []struct {
				name string
				n    int
			}{{"every", *every}, {"max", *maxN}, {"max-bisect", *maxBisect}} {
				if set[f.name] && f.n < 1 {
					return usagef("-%s must be 1 or more", f.name)
				}
			}
			url := *dbURL
			if url == "" {
				var err error
				if url, err = db.DefaultURL(); err != nil {
					return err
				}
			}
			d, err := db.Parse(url)
			if err != nil {
				return usagef("-db: %v", err)
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			tc := cfg.Track
			if set["threshold"] && !(threshold > 0 && threshold < 100) {
				return usagef("-threshold: %s: want a change above 0%% and under 100%%, like 5%%", threshold)
			}
			if set["count"] && bf.count.Auto {
				return usagef("-count: track runs each commit's benchmarks a fixed number of times: give a number")
			}
			bs, err := bf.settings(set, config.Count{N: tc.Count})
			if err != nil {
				return err
			}
			// The track section's settings where no flag says otherwise.
			if !set["count"] {
				bs.Count = tc.Count
			}
			if !set["pkg"] {
				bs.Packages = tc.Packages
			}
			if !set["bench"] && tc.Bench != "" {
				bs.Bench = tc.Bench
			}
			if !set["for"] && !set["branch"] {
				*branch = tc.Branch
			}
			req := &job.TrackRequest{Repo: *bf.repo, Branch: *branch, Name: *name,
				Every: cmp.Or(*every, tc.Every), Max: cmp.Or(*maxN, tc.Max), MaxBisect: cmp.Or(*maxBisect, tc.MaxBisect),
				Threshold: threshold.Fraction(), GitHub: ghRepo, Gerrit: *gerritURL, DryRun: *dryRun, Bench: bs}
			if !set["threshold"] {
				req.Threshold = 0 // bench.threshold
			}
			if err := req.Validate(); err != nil {
				return jobError(err)
			}
			store, closeStore, err := openTracks(e.ctx, d, *dryRun || *show)
			if err != nil {
				return err
			}
			defer closeStore()
			if *show {
				_, name, err := job.TrackName(req)
				if err != nil {
					return jobError(err)
				}
				h, err := store.History(e.ctx, name, track.Window{})
				switch {
				case err != nil:
					return err
				case *jsonOut:
					return writeJSON(e.stdout, h)
				}
				return h.Write(e.stdout)
			}
			env := job.Env{Log: e.log("track"), Tracks: store}
			if progressOn(e.stderr, *quiet) {
				env.Progress = e.stderr
			}
			if !*jsonOut {
				env.Tell = e.tell()
			}
			res, err := job.Track(e.ctx, req, cfg, env)
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

// openTracks opens the track store in d; for a dry run or a look
// (readOnly), without migrating or writing it, and where nothing was ever
// recorded (no file, or no store in the database) an empty store of its
// own, so that neither makes a database.
func openTracks(ctx context.Context, d db.Database, readOnly bool) (*track.Store, func(), error) {
	if !readOnly {
		return track.OpenDatabase(ctx, d)
	}
	empty := d.Engine == "sqlite" && !exists(d.Path)
	if !empty {
		store, closeStore, err := track.OpenReadOnly(ctx, d)
		if !errors.Is(err, track.ErrNoHistory) {
			return store, closeStore, err
		}
	}
	tmp, err := os.MkdirTemp("", "patchbot-track-")
	if err != nil {
		return nil, nil, err
	}
	store, closeStore, err := track.OpenDatabase(ctx, db.Database{Engine: "sqlite", Path: filepath.Join(tmp, "empty.db")})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	return store, func() { closeStore(); os.RemoveAll(tmp) }, nil
}

// exists reports whether a file is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
