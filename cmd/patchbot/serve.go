package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/config"
	comment "github.com/patchbot/patchbot/workflow/command"
	"github.com/patchbot/patchbot/workflow/job"
	"github.com/patchbot/patchbot/workflow/poll"
	"github.com/patchbot/patchbot/workflow/queue"
	"github.com/patchbot/patchbot/workflow/review"
	"github.com/patchbot/patchbot/workflow/serve"
	"github.com/patchbot/patchbot/workflow/work"
)

// minPoll is the shortest -poll: a Gerrit server is someone else's.
const minPoll = 5 * time.Second

// The bounds of -job-timeout: below 10 s no job fetches and builds
// anything; above a day, a job whose process died would wait more than a
// day to be run again (queue.RescueMargin).
const (
	minJobTimeout = 10 * time.Second
	maxJobTimeout = 24 * time.Hour
)

// serveTimeouts are the HTTP server's: a webhook's answer comes once its
// job is queued (seconds at most); the status page is small.
const (
	serveReadTimeout  = 30 * time.Second
	serveWriteTimeout = 30 * time.Second
	serveIdleTimeout  = 2 * time.Minute
	serveShutdown     = 10 * time.Second // for the HTTP requests in flight
)

// serveGitHubURL is where the workers fetch GitHub's repositories from
// (work.Worker.GitHubURL): "" is https://github.com; the tests set a
// directory of bare repositories.
var serveGitHubURL string

var cmdServe = &command{
	name:  "serve",
	args:  "[-config FILE] [-listen ADDR] [-db URL] [-workers N -unsafe-no-sandbox] [-job-timeout D] [-work DIR] [-poll D] [-github-login LOGIN]",
	short: "the review-comment bot: GitHub webhooks, Gerrit polling, the queue's workers",
	long: `Serve runs the review-comment bot until it is sent SIGINT or SIGTERM. It
listens on -listen for GitHub webhooks (POST /webhook/github, signed with the
secret in ` + serve.EnvWebhookSecret + `, which it refuses to start without) and
serves the status endpoints (/healthz, /api/jobs, /); when the configuration
names a Gerrit server (review.gerrit), it polls it every -poll for new review
messages on the changes of serve.gerrit.query. A /patchbot command from a
reviewer who may ask (the serve section of the configuration) becomes a job
in the queue at -db, bound to the revision it was written on; -workers
workers run the jobs, in work areas under -work, and reply on the review
once. One run of a job may take -job-timeout; a job still running after
-job-timeout and a margin (the timeout again, between 30s and 5m) is taken
for the job of a process that died and run again, by this process or
another with workers on the same -db (give them all the same -job-timeout).

The workers post with the credentials of the environment (GITHUB_TOKEN,
GITHUB_API_URL; PATCHBOT_GERRIT_USER and PATCHBOT_GERRIT_PASSWORD, or
~/.gitcookies); the fetches and the benchmarks never see them. The
benchmarks of the code under review would run unsandboxed: there is no
sandbox yet, so serve runs them only when started with -unsafe-no-sandbox,
for repositories whose reviewers you trust. -workers 0 takes webhooks and polls
into the queue and runs nothing, for another process on the same -db.

Stopping: the HTTP server stops taking requests, the poller stops, and
running jobs get a minute to finish before they are put back in the queue
for the next start. Logs go to stderr, one line per event; never a secret.
See docs/serve.md.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		listen := fs.String("listen", "127.0.0.1:8080", "listen on `ADDR` (host:port; port 0 picks a free one)")
		dbURL := fs.String("db", "", "the queue's database `URL`, sqlite:FILE (default: sqlite:$XDG_STATE_HOME/patchbot/queue.db)")
		workers := fs.Int("workers", 1, "run `N` jobs at once; 0 runs none, only queues")
		jobTimeout := fs.Duration("job-timeout", queue.DefaultTimeout, "let one run of a job take `D` (10s to 24h)")
		workDir := fs.String("work", "", "keep the work areas in `DIR` (default: work/ beside the queue's database)")
		every := fs.Duration("poll", 30*time.Second, "poll the Gerrit server every `D`, at least 5s (with review.gerrit set)")
		ghLogin := fs.String("github-login", "", "patchbot's own GitHub `LOGIN`, whose comments are never commands")
		unsafeNoSandbox := fs.Bool("unsafe-no-sandbox", false, "run the queued benchmarks, which run the patches' code, without a sandbox (there is none yet)")
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected arguments")
			}
			switch {
			case *workers < 0:
				return usagef("-workers must be 0 or more")
			case *every < minPoll:
				return usagef("-poll must be at least %v", minPoll)
			case *jobTimeout < minJobTimeout || *jobTimeout > maxJobTimeout:
				return usagef("-job-timeout must be between %v and %v", minJobTimeout, maxJobTimeout)
			case *workers > 0 && !*unsafeNoSandbox:
				// A queued benchmark runs code from a patch: a reviewer
				// may be fooled, a patch may change after approval.
				// Until benchmarks run sandboxed, running them is a
				// choice made out loud.
				return usagef("-workers %d would run the patches' benchmarks without a sandbox, which patchbot does not have yet: start with -unsafe-no-sandbox to accept that (for repositories whose every approved patch you trust), or with -workers 0 to only queue", *workers)
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			secret := os.Getenv(serve.EnvWebhookSecret)
			if secret == "" {
				return setupError{fmt.Errorf("%s is not set: the webhook needs a secret (docs/serve.md, Webhooks)", serve.EnvWebhookSecret)}
			}
			if *dbURL == "" {
				if *dbURL, err = queue.DefaultURL(); err != nil {
					return setupError{err}
				}
			}
			db, err := queue.ParseURL(*dbURL)
			if err != nil {
				return usagef("-db: %v", err)
			}
			if *workDir == "" {
				*workDir = filepath.Join(filepath.Dir(db.Path), "work")
			}
			return runServe(e, &server{
				cfg: cfg, listen: *listen, dbURL: *dbURL, workers: *workers, jobTimeout: *jobTimeout, workDir: *workDir,
				poll: *every, secret: []byte(secret), githubLogin: *ghLogin,
				stateDir: filepath.Dir(db.Path),
			})
		}
	},
}

// A server is what serve's flags and environment decided.
type server struct {
	cfg         *config.Config
	listen      string
	dbURL       string
	workers     int
	jobTimeout  time.Duration // one run of a job
	workDir     string
	stateDir    string // the Gerrit cursor's directory
	poll        time.Duration
	secret      []byte
	githubLogin string
}

// runServe builds the parts of the bot, runs them until e.ctx ends, and
// stops them in order: HTTP, the poller, the queue.
func runServe(e *env, s *server) error {
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	ctx := e.ctx

	trust := comment.Trust{
		GitHubSelf:    s.githubLogin,
		GitHubTrusted: s.cfg.Serve.GitHub.Trusted,
		GerritGroup:   s.cfg.Serve.Gerrit.Group,
		GerritTrusted: s.cfg.Serve.Gerrit.Trusted,
	}
	var poller *poll.Poller
	if server := s.cfg.Review.Gerrit; server != "" {
		p, self, err := newPoller(s, server, &trust, log)
		if err != nil {
			return setupError{err}
		}
		poller = p
		trust.GerritSelf = self
	}

	qopts := &queue.Options{
		Workers: max(s.workers, 1), // 0 is the queue's default; with no handler, none run
		Timeout: s.jobTimeout,
		Logger:  slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if s.workers > 0 {
		w := &work.Worker{
			Areas:     &work.Areas{Root: s.workDir},
			Config:    s.cfg,
			Env:       job.Env{Getenv: os.Getenv, Log: &slogWriter{log: log, msg: "job log"}},
			GitHubURL: serveGitHubURL,
		}
		qopts.Handler = logJobs(log, w.Handle)
	}
	q, err := queue.Open(ctx, s.dbURL, qopts)
	if err != nil {
		return setupError{err}
	}
	stopQueue := func() error {
		// The grace period is the queue's (Options.Grace); this bounds
		// the wait for the jobs it cancels to return.
		sctx, cancel := context.WithTimeout(context.Background(), queue.DefaultGrace+30*time.Second)
		defer cancel()
		return q.Stop(sctx)
	}

	gh, err := review.NewGitHub(review.GitHubAuthFromEnv(os.Getenv), job.ReviewOptions(&s.cfg.Review, false, &slogWriter{log: log, msg: "github"}))
	if err != nil {
		stopQueue()
		return setupError{err}
	}
	h, err := serve.New(serve.Config{Secret: s.secret, Queue: q, GitHub: gh, Trust: trust, Logger: log})
	if err != nil {
		stopQueue()
		return setupError{err}
	}
	ln, err := net.Listen("tcp", s.listen)
	if err != nil {
		stopQueue()
		return setupError{fmt.Errorf("-listen: %v", err)}
	}
	if s.workers > 0 {
		if err := q.Start(context.WithoutCancel(ctx)); err != nil {
			ln.Close()
			stopQueue()
			return err
		}
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       serveReadTimeout,
		WriteTimeout:      serveWriteTimeout,
		IdleTimeout:       serveIdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpDone := make(chan error, 1)
	go func() { httpDone <- hs.Serve(ln) }()
	attrs := []any{"addr", ln.Addr().String(), "db", s.dbURL, "workers", s.workers}
	if s.workers > 0 {
		attrs = append(attrs, "work", s.workDir, "job_timeout", s.jobTimeout, "rescue_after", s.jobTimeout+queue.RescueMargin(s.jobTimeout))
	}
	if poller != nil {
		attrs = append(attrs, "gerrit", s.cfg.Review.Gerrit, "query", s.cfg.Serve.Gerrit.Query, "poll", s.poll)
	}
	log.Info("serving", attrs...)

	var wg sync.WaitGroup
	pctx, stopPoll := context.WithCancel(ctx)
	if poller != nil {
		wg.Go(func() { pollLoop(pctx, poller, q, s.poll, log) })
	}

	var failed error
	select {
	case <-ctx.Done():
		log.Info("stopping", "reason", context.Cause(ctx))
	case err := <-httpDone:
		failed = err
		log.Error("http server failed", "err", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdown)
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	cancel()
	stopPoll()
	wg.Wait()
	if err := stopQueue(); err != nil {
		log.Warn("queue stop", "err", err)
		if failed == nil {
			failed = err
		}
	}
	log.Info("stopped")
	return failed
}

// newPoller returns the poller of the Gerrit server and patchbot's own
// account on it, as far as the credentials say (the user name of
// PATCHBOT_GERRIT_USER; none for cookies).
func newPoller(s *server, server string, trust *comment.Trust, log *slog.Logger) (*poll.Poller, []string, error) {
	auth, err := review.GerritAuthFromEnv(server, os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	var self []string
	if auth != nil && auth.User != "" {
		self = []string{auth.User}
	}
	g, err := review.NewGerrit(server, auth, job.ReviewOptions(&s.cfg.Review, false, &slogWriter{log: log, msg: "gerrit"}))
	if err != nil {
		return nil, nil, err
	}
	store, err := poll.NewFileStore(s.stateDir, server)
	if err != nil {
		return nil, nil, err
	}
	t := *trust
	t.GerritSelf = self
	p, err := poll.New(g, &poll.Options{Query: s.cfg.Serve.Gerrit.Query, Trust: t, Store: store})
	return p, self, err
}

// pollLoop polls at once and then every d until ctx ends, queueing each
// event's job or reply.
func pollLoop(ctx context.Context, p *poll.Poller, q *queue.Queue, d time.Duration, log *slog.Logger) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		events, err := p.Poll(ctx, func(ctx context.Context, ev *poll.Event) error {
			var a *queue.Args
			var err error
			if ev.Decision.Verdict == comment.Run {
				a, err = ev.Args()
			} else {
				a, err = ev.ReplyArgs()
			}
			if err != nil {
				return err
			}
			res, err := q.Insert(ctx, a)
			if err != nil {
				return err
			}
			log.Info("gerrit message", "review", ev.Review(), "patch_set", ev.PatchSet, "message", ev.MessageID,
				"author", ev.Author.String(), "verdict", ev.Decision.Verdict, "command", a.Command,
				"job", res.ID, "duplicate", res.Duplicate)
			return nil
		})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Warn("gerrit poll failed", "err", err, "events", len(events))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// logJobs logs one line when a job starts and one when it ends.
func logJobs(log *slog.Logger, h queue.Handler) queue.Handler {
	return func(ctx context.Context, j *queue.Job) error {
		a := []any{"job", j.ID, "review", j.Args.Review, "revision", j.Args.Revision, "command", j.Args.Command, "attempt", j.Attempt}
		log.Info("job started", a...)
		start := time.Now()
		err := h(ctx, j)
		a = append(a, "took", time.Since(start).Round(time.Millisecond))
		if err != nil {
			log.Warn("job failed", append(a, "err", err)...)
		} else {
			log.Info("job done", a...)
		}
		return err
	}
}

// A slogWriter logs each line written to it as one record.
type slogWriter struct {
	log *slog.Logger
	msg string
	mu  sync.Mutex
	buf []byte
}

func (w *slogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(w.buf[:i])); line != "" {
			w.log.Info(w.msg, "line", line)
		}
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}
