package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/sweep"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/sandbox"
)

var cmdSweep = &subcommand{
	name:  "sweep",
	args:  "[-config FILE] [-only TASK] [-n] [-json] [-at DATE] [-offline] [-branch NAME] [-gerrit URL] [-query Q] [-github OWNER/REPO] [-db URL] [-max-stale N]",
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
do and writes nothing. The changes swept are the open ones of -branch on
-gerrit (else review.gerrit) that match -query, in Gerrit's search syntax.
The configuration's sweep section gives -query, -github, -db and -max-stale
when they are not given. Credentials as for 'patchbot post'. A second sweep
changes nothing.

The exit status is 0 when every task succeeded, 1 when one failed (each
failing task is named on stderr), 2 for bad flags or configuration. See
docs/sweep.md.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		only := fs.String("only", "", "run only `TASK` (freeze, stale or report; comma-separated for several)")
		dryRun := fs.Bool("n", false, "print what each task would do; change nothing")
		jsonOut := fs.Bool("json", false, "print the result as JSON")
		atFlag := fs.String("at", "", "check the freeze for `DATE` (2014-11-06, or an RFC 3339 time) instead of now")
		offline := fs.Bool("offline", false, "compute the freeze from the calendar and the rule only")
		branch := fs.String("branch", "master", "the branch `NAME` whose freeze is checked and whose changes are swept")
		gerritURL := fs.String("gerrit", "", "the Gerrit server's `URL` (default: review.gerrit)")
		ghRepo := fs.String("github", "", "also label the open pull requests of `OWNER/REPO` on GitHub (GITHUB_TOKEN, GITHUB_API_URL; default: sweep.github)")
		query := fs.String("query", "", "sweep only the open changes that match `Q` too, in Gerrit's search syntax (project:go; default: sweep.query)")
		dbURL := fs.String("db", "", "queue the stale benchmarks in serve's queue at `URL` (sqlite:FILE or postgres://...) instead of running them here (default: sweep.queue)")
		maxStale := fs.Int("max-stale", 0, "ask for at most `N` stale benchmarks a sweep (default: sweep.max_stale, 5)")
		workDir := fs.String("work", "", "without -db: keep the work areas of the benchmarks run here in `DIR` (default: sweep-work/ in the user's state directory)")
		unsafeNoSandbox := fs.Bool("unsafe-no-sandbox", false, "without -db: where no sandbox works, run the stale benchmarks, which run the patches' code, without one")
		return func(e *env, args []string) error {
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
			if isGiven(fs, "max-stale") && *maxStale < 1 {
				return usagef("-max-stale must be 1 or more")
			}
			if *dbURL != "" {
				if _, err := queue.ParseURL(*dbURL); err != nil {
					return usagef("-db: %v", err)
				}
			}
			var at time.Time
			if *atFlag != "" {
				var err error
				if at, err = parseAt(*atFlag); err != nil {
					return usagef("-at: %v", err)
				}
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			// The sweep section gives what the flags leave out.
			for _, d := range []struct {
				flag string
				v    *string
				cfg  string
			}{{"query", query, cfg.Sweep.Query}, {"github", ghRepo, cfg.Sweep.GitHub}, {"db", dbURL, cfg.Sweep.Queue}} {
				if !isGiven(fs, d.flag) {
					*d.v = d.cfg
				}
			}
			if !isGiven(fs, "max-stale") {
				*maxStale = cfg.Sweep.MaxStale
			}
			// The sweep's one set of review clients: its tasks', the
			// freeze's live signals', the stale benchmarks' run here.
			clients := job.NewClients(&cfg.Review, os.Getenv, *dryRun, e.log("sweep"))
			o := &sweep.Options{
				Config: cfg, Branch: *branch, At: at, Offline: *offline,
				Query: *query, MaxStale: *maxStale,
				Env: job.Env{Getenv: os.Getenv, Log: e.log("sweep"), Clients: clients},
			}
			server := *gerritURL
			if server == "" {
				server = cfg.Review.Gerrit
			}
			if server != "" {
				if o.Gerrit, err = clients.Gerrit(server); err != nil {
					return usagef("-gerrit: %v", err)
				}
				// Said before anything is read or written, as
				// freeze -apply does; a dry run writes nothing.
				if err := o.Gerrit.CheckAuth("the sweep"); err != nil && !clients.DryRun() && !slices.Equal(tasks, []string{"report"}) {
					return setupError{fmt.Errorf("%v; nothing was done", err)}
				}
			}
			if *ghRepo != "" {
				if _, err := review.ParsePullRequest(*ghRepo + "#1"); err != nil {
					return usagef("-github: %q is not a repository like owner/repo", *ghRepo)
				}
				if o.GitHub, err = clients.GitHub(); err != nil {
					return setupError{err}
				}
				if !o.GitHub.SignedIn() && !clients.DryRun() && (len(tasks) == 0 || slices.Contains(tasks, "freeze")) {
					return setupError{fmt.Errorf("-github %s: no token to label its pull requests with: set %s; nothing was done", *ghRepo, review.EnvGitHubToken)}
				}
				o.Repo = *ghRepo
			}
			if *dbURL != "" && (len(tasks) == 0 || slices.Contains(tasks, "stale")) && !clients.DryRun() {
				q, err := queue.Open(e.ctx, *dbURL, &queue.Options{Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
				if err != nil {
					return setupError{err}
				}
				defer q.Stop(context.Background())
				o.Queue = q
			} else if *dbURL != "" {
				o.Queue = noQueue{} // a dry run says "into the queue" and opens nothing
			} else {
				o.Work = localWorker(e, cfg, clients, *workDir, *unsafeNoSandbox)
			}
			res, err := sweep.Run(e.ctx, o, tasks)
			if res == nil {
				return jobError(err, map[string]string{"branch": "-branch", "at": "-at"})
			}
			if *jsonOut {
				if werr := writeJSON(e.stdout, res); werr != nil {
					return werr
				}
			} else if werr := writeSweep(e.stdout, res); werr != nil {
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

// isGiven reports whether the flag name was given.
func isGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// noQueue stands for the queue in a dry run, which inserts nothing.
type noQueue struct{}

func (noQueue) Insert(context.Context, *queue.Args) (queue.InsertResult, error) {
	return queue.InsertResult{}, errors.New("sweep: a dry run inserts nothing")
}

// localWorker returns the handler that runs a stale benchmark here, as
// serve's worker would: in the sandbox, probed at the first job, unless
// unsafe.
func localWorker(e *env, cfg *config.Config, clients *review.Clients, dir string, unsafe bool) queue.Handler {
	var once sync.Once
	var w *work.Worker
	var setupErr error
	return func(ctx context.Context, j *queue.Job) error {
		once.Do(func() {
			if dir == "" {
				p, err := queue.DefaultPath()
				if err != nil {
					setupErr = err
					return
				}
				dir = filepath.Join(filepath.Dir(p), "sweep-work")
			}
			w = &work.Worker{Areas: &work.Areas{Root: dir}, Config: cfg, Env: job.Env{Getenv: os.Getenv, Log: e.log("sweep"), Clients: clients}}
			sb, err := sandbox.New(ctx, &sandbox.Options{})
			switch {
			case err == nil:
				w.Env.Runner = sb
			case !unsafe:
				setupErr = fmt.Errorf("%v; sweep runs no benchmark of a patch without a sandbox: make one work here, queue them for serve with -db, or run with -unsafe-no-sandbox", err)
			}
		})
		if setupErr != nil {
			return setupErr
		}
		return w.Handle(ctx, j)
	}
}

// writeSweep prints what each task did: its summary, a line per change,
// and the report last.
func writeSweep(w io.Writer, res *sweep.Result) error {
	var b strings.Builder
	report := ""
	for _, t := range res.Tasks {
		if t.Report != "" {
			report = t.Report
			continue
		}
		for _, a := range t.Actions {
			fmt.Fprintf(&b, "%s: change %s: %s\n", t.Task, a.Change, a.What)
		}
	}
	if report == "" {
		// -only without report: each task's summary instead.
		for _, t := range res.Tasks {
			fmt.Fprintf(&b, "%s: %s\n", t.Task, t.Summary)
		}
	} else {
		b.WriteString(report)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
