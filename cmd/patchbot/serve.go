package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/serve"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/sandbox"
)

const (
	// minPoll is the shortest -poll: a Gerrit server is someone else's.
	minPoll = 5 * time.Second
	// The bounds of -job-timeout: below 10 s no job fetches and builds
	// anything; above a day, a job whose process died would wait more
	// than a day to be run again (queue.RescueMargin).
	minJobTimeout = 10 * time.Second
	maxJobTimeout = 24 * time.Hour
)

var cmdServe = &subcommand{
	name:  "serve",
	args:  "[-config FILE] [-listen ADDR] [-db URL] [-workers N] [-reply-workers N] [-unsafe-no-sandbox] [-unsafe-no-limits] [-job-timeout D] [-work DIR] [-poll D] [-github-login LOGIN]",
	short: "the review-comment bot: GitHub webhooks, Gerrit polling, the queue's workers",
	long: `Serve runs the review-comment bot until it is sent SIGINT or SIGTERM. It
listens on -listen for GitHub webhooks (POST /webhook/github, signed with the
secret in ` + serve.EnvWebhookSecret + `, which it refuses to start without) and
serves the status endpoints (/healthz, /api/jobs, /api/queue, /); when the
configuration names a Gerrit server (review.gerrit), it polls it every -poll
for new review messages on the changes of serve.gerrit.query (one process
at a time of those on the same -db: the queue's elected leader schedules
the polls). A /patchbot command from a reviewer who may ask (the serve
section of the configuration) becomes a job in the queue at -db, bound to
the revision it was written on ('patchbot doc serve' says how); -workers
workers run the benchmarks, in work areas under -work, and reply on the
review once; -reply-workers more post the replies that run nothing (help,
refusals, freeze answers), apart, so that a reply never waits behind a
benchmark.
One run of a job may take -job-timeout; a job still running after
-job-timeout and a margin (the timeout again, between 30s and 5m) is taken
for the job of a process that died and run again, by whichever process on
the same -db leads the queue, with workers or not (give them all the same
-job-timeout).

The workers post with the credentials of the environment (GITHUB_TOKEN,
GITHUB_API_URL; PATCHBOT_GERRIT_USER and PATCHBOT_GERRIT_PASSWORD, or
~/.gitcookies); the fetches and the benchmarks never see them. The
benchmarks run the code under review, so they run in a bubblewrap sandbox
('patchbot doc sandbox'): at start-up serve checks that one works here, and
refuses to start workers without one, unless started with
-unsafe-no-sandbox, for repositories whose every approved patch you trust;
nor with a sandbox that cannot bound the memory and processes of a
benchmark (no cgroup it may manage), unless started with -unsafe-no-limits
(the two flags are apart: the first accepts no sandbox, the second a
sandbox without those limits).
-workers 0 -reply-workers 0 takes webhooks and polls into the queue and runs
nothing, for other processes on the same -db; -reply-workers 0 makes a
benchmark machine that takes run jobs only.

Stopping: the HTTP server stops taking requests, the poller stops, and
running jobs get a minute to finish before they are put back in the queue
for the next start. Logs go to stderr, one line per event; never a secret.
See 'patchbot doc serve'.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		listen := fs.String("listen", "127.0.0.1:8080", "listen on `ADDR` (host:port; port 0 picks a free one)")
		dbURL := fs.String("db", "", "the queue's database `URL`: sqlite:FILE, or postgres://USER:PASSWORD@HOST:PORT/DB (default: sqlite:$XDG_STATE_HOME/patchbot/queue.db)")
		workers := fs.Int("workers", 1, "run `N` benchmark jobs at once; 0 runs none")
		replyWorkers := fs.Int("reply-workers", queue.DefaultReplyWorkers, "post `N` replies (help, refusals, freeze answers) at once, apart from the benchmarks; 0 posts none")
		jobTimeout := fs.Duration("job-timeout", queue.DefaultTimeout, "let one run of a job take `D` (10s to 24h)")
		workDir := fs.String("work", "", "keep the work areas in `DIR` (default: work/ beside the queue's database)")
		every := fs.Duration("poll", 30*time.Second, "poll the Gerrit server every `D`, at least 5s (with review.gerrit set)")
		ghLogin := fs.String("github-login", "", "patchbot's own GitHub `LOGIN`: only its comments are its replies, and none is a command (default: serve.github.login, else GitHub says whose GITHUB_TOKEN it is)")
		unsafeNoSandbox := fs.Bool("unsafe-no-sandbox", false, "where no sandbox works, run the queued benchmarks, which run the patches' code, without one")
		unsafeNoLimits := fs.Bool("unsafe-no-limits", false, "where the sandbox cannot bound a benchmark's memory and processes (no cgroup), run the benchmarks with the limits it has")
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected arguments")
			}
			switch {
			case *workers < 0:
				return usagef("-workers must be 0 or more")
			case *replyWorkers < 0:
				return usagef("-reply-workers must be 0 or more")
			case *every < minPoll:
				return usagef("-poll must be at least %v", minPoll)
			case *jobTimeout < minJobTimeout || *jobTimeout > maxJobTimeout:
				return usagef("-job-timeout must be between %v and %v", minJobTimeout, maxJobTimeout)
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			secret := os.Getenv(serve.EnvWebhookSecret)
			if secret == "" {
				return setupError{fmt.Errorf("%s is not set: the webhook needs a secret ('patchbot doc serve', Webhooks)", serve.EnvWebhookSecret)}
			}
			if *dbURL == "" {
				if *dbURL, err = db.DefaultURL(); err != nil {
					return setupError{err}
				}
			}
			if _, err := db.Parse(*dbURL); err != nil {
				return usagef("-db: %v", err)
			}
			o := &serve.Options{
				Config: cfg, Listen: *listen, DB: *dbURL, Workers: *workers, ReplyWorkers: *replyWorkers,
				JobTimeout: *jobTimeout, WorkDir: *workDir, Poll: *every,
				Secret: []byte(secret), GitHubLogin: *ghLogin, Getenv: os.Getenv, Log: e.stderr,
			}
			if *workers > 0 {
				// A queued benchmark runs code from a patch: a reviewer
				// may be fooled, a patch may change after approval.
				// Without a sandbox, running it is a choice made out
				// loud.
				sb, err := sandbox.New(e.ctx, &sandbox.Options{})
				switch {
				case err == nil:
					if err := checkLimits(sb.Isolation(), *unsafeNoLimits); err != nil {
						return setupError{err}
					}
					o.Sandbox = sb
				case !*unsafeNoSandbox:
					return setupError{fmt.Errorf("%v\nserve runs no benchmark of a patch without a sandbox: make one work here, start with -workers 0 to only queue, or with -unsafe-no-sandbox to run them unsandboxed (for repositories whose every approved patch you trust)", err)}
				default:
					o.NoSandbox = err
				}
			}
			return jobError(serve.Run(e.ctx, o), map[string]string{"listen": "-listen", "work": "-work"})
		}
	},
}

// checkLimits refuses a sandbox that cannot bound what a benchmark takes
// of the machine (isolation's Unlimited: memory or processes, without a
// cgroup it may manage), unless accept: a patch's benchmark could then
// take the machine down (as root without cgroups: a thousand processes
// and more, no memory bound).
func checkLimits(iso benchrun.Isolation, accept bool) error {
	if len(iso.Unlimited) == 0 || accept {
		return nil
	}
	return fmt.Errorf("the sandbox cannot bound here: %s\nserve runs no benchmark of a patch without memory and process limits: give it a cgroup it may manage ('patchbot doc sandbox'), start with -workers 0 to only queue, or with -unsafe-no-limits to run with the limits it has", strings.Join(iso.Unlimited, "; "))
}
