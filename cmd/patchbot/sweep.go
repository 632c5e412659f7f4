package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/patchbot/patchbot/bot/sweep"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/job"
)

var cmdSweep = &subcommand{
	name:  "sweep",
	args:  "[-config FILE] [-only TASK] [-n] [-json] [-at DATE] [-offline] [-for NAME] [-gerrit URL] [-query Q] [-github OWNER/REPO] [-db URL] [-max-stale N] [-work DIR] [-unsafe-no-sandbox]",
	short: "do the periodic chores once: freeze hashtags, stale benchmarks, a report",
	long: `Sweep runs a table of named tasks once, for a cron job or a scheduled
GitHub Action, each whatever the others did:

  freeze  while the branch is frozen, tag its open changes wait-release with
          one message saying why; once it has reopened, swap wait-release for
          ex-wait-release with one message; with -github, the same with
          labels on the repository's open pull requests and one comment each,
          edited in place. The freeze is computed once, as
          'patchbot freeze' computes it (-at, -offline, the configuration).
  stale   open changes whose current patch set has no benchmark result
          although an earlier one has (a serve-bench message) are benchmarked
          at the current patch set: queued for serve's workers with -db (the
          queue serve uses), else run here, in the sandbox; at most -max-stale
          a sweep.
  report  the freeze and what each task did, in a few lines.

-only runs the named tasks (comma-separated). -n prints what each task would
do and writes nothing. The changes swept are the open ones of -for on
-gerrit (else review.gerrit) that match -query, in Gerrit's search syntax.
The configuration's sweep section gives -query, -github, -db and -max-stale
when they are not given. Credentials as for 'patchbot post'. A second sweep
changes nothing.

The exit status is 0 when every task succeeded, 1 when one failed (each
failing task is named on stderr), 2 for bad flags or configuration,
or with nothing to sweep (no Gerrit server, no GitHub repository). See
'patchbot doc sweep'.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		only := fs.String("only", "", "run only `TASK` (freeze, stale, track or report; comma-separated for several)")
		dryRun := fs.Bool("n", false, "print what each task would do; change nothing")
		jsonOut := fs.Bool("json", false, "print the result as JSON")
		atFlag := fs.String("at", "", "check the freeze for `DATE` (2014-11-06, or an RFC 3339 time) instead of now")
		offline := fs.Bool("offline", false, "compute the freeze from the calendar and the rule only")
		branch := fs.String("for", "master", "the branch `NAME` whose freeze is checked and whose changes are swept")
		oldBranch := renamed(fs, "branch", "for")
		gerritURL := fs.String("gerrit", "", "the Gerrit server's `URL` (default: review.gerrit)")
		ghRepo := fs.String("github", "", "also label the open pull requests of `OWNER/REPO` on GitHub (GITHUB_TOKEN, GITHUB_API_URL; default: sweep.github)")
		query := fs.String("query", "", "sweep only the open changes that match `Q` too, in Gerrit's search syntax (project:go; default: sweep.query)")
		dbURL := fs.String("db", "", "queue the stale benchmarks in serve's queue at `URL` (sqlite:FILE or postgres://...) instead of running them here (default: sweep.queue)")
		maxStale := fs.Int("max-stale", 0, "ask for at most `N` stale benchmarks a sweep (default: sweep.max_stale, 5)")
		workDir := fs.String("work", "", "without -db: keep the work areas of the benchmarks run here in `DIR` (default: sweep-work/ in the user's state directory)")
		unsafeNoSandbox := fs.Bool("unsafe-no-sandbox", false, "without -db: where no sandbox works, run the stale benchmarks, which run the patches' code, without one")
		return func(e *env, args []string) error {
			oldBranch.warn(e, "sweep")
			if len(args) > 0 {
				return usagef("unexpected arguments: %q", args)
			}
			var tasks []string
			if *only != "" {
				for t := range strings.SplitSeq(*only, ",") {
					t = strings.TrimSpace(t)
					if sweep.TaskNamed(t) == nil {
						return usagef("-only: %v", &sweep.UnknownTaskError{Name: t})
					}
					tasks = append(tasks, t)
				}
			}
			if given(fs)["max-stale"] && *maxStale < 1 {
				return usagef("-max-stale must be 1 or more")
			}
			if *dbURL != "" {
				if _, err := db.Parse(*dbURL); err != nil {
					return usagef("-db: %v", err)
				}
			}
			var at time.Time
			if *atFlag != "" {
				var err error
				if at, err = job.ParseAt(*atFlag); err != nil {
					return usagef("-at: %v", err)
				}
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			// The sweep's one set of review clients: its tasks', the
			// freeze's live signals', the stale benchmarks' run here.
			clients := job.NewClients(cfg, os.Getenv, *dryRun, e.log("sweep"))
			o, closeSweep, err := sweep.Open(e.ctx, &sweep.Setup{
				Config: cfg, Tasks: tasks, Branch: *branch, At: at, Offline: *offline,
				Server: *gerritURL, Query: *query, Repo: *ghRepo, DB: *dbURL, MaxStale: *maxStale,
				WorkDir: *workDir, UnsafeNoSandbox: *unsafeNoSandbox,
				Env: job.Env{Getenv: os.Getenv, Log: e.log("sweep"), Clients: clients}, Log: e.stderr,
			})
			if err != nil {
				return jobError(err, map[string]string{"gerrit": "-gerrit", "github": "-github", "db": "-db", "only": "-only"})
			}
			defer closeSweep()
			res, err := sweep.Run(e.ctx, o, tasks)
			if res == nil {
				return jobError(err, map[string]string{"branch": "-for", "at": "-at"})
			}
			if *jsonOut {
				if werr := writeJSON(e.stdout, res); werr != nil {
					return werr
				}
			} else if werr := res.WriteText(e.stdout); werr != nil {
				return werr
			}
			if aerr := e.actionsSweep(res); aerr != nil && err == nil {
				err = aerr
			}
			if fe, ok := errors.AsType[*sweep.FailedError](err); ok {
				for _, t := range res.Tasks {
					if t.Error != "" {
						fmt.Fprintf(e.stderr, "patchbot sweep: %s: %s\n", t.Task, t.Error)
					}
				}
				return fe
			}
			return err
		}
	},
}

// given returns the names of the flags that were given.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
