package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/poll"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/serve"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/sandbox"
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

var cmdServe = &subcommand{
	name:  "serve",
	args:  "[-config FILE] [-listen ADDR] [-db URL] [-workers N] [-reply-workers N] [-unsafe-no-sandbox] [-job-timeout D] [-work DIR] [-poll D] [-github-login LOGIN]",
	short: "the review-comment bot: GitHub webhooks, Gerrit polling, the queue's workers",
	long: `Serve runs the review-comment bot until it is sent SIGINT or SIGTERM. It
listens on -listen for GitHub webhooks (POST /webhook/github, signed with the
secret in ` + serve.EnvWebhookSecret + `, which it refuses to start without) and
serves the status endpoints (/healthz, /api/jobs, /api/queue, /); when the
configuration names a Gerrit server (review.gerrit), it polls it every -poll
for new review messages on the changes of serve.gerrit.query (one process
at a time of those on the same -db: the queue's elected leader schedules the
polls). A /patchbot command from a
reviewer who may ask (the serve section of the configuration) becomes a job
in the queue at -db, bound to the revision it was written on; -workers
workers run the jobs (bench, freeze), in work areas under -work, and reply
on the review once; -reply-workers more post the replies that run nothing
(help, refusals), apart, so that a reply never waits behind a benchmark.
One run of a job may take -job-timeout; a job still running after
-job-timeout and a margin (the timeout again, between 30s and 5m) is taken
for the job of a process that died and run again, by whichever process on
the same -db leads the queue, with workers or not (give them all the same
-job-timeout).

The workers post with the credentials of the environment (GITHUB_TOKEN,
GITHUB_API_URL; PATCHBOT_GERRIT_USER and PATCHBOT_GERRIT_PASSWORD, or
~/.gitcookies); the fetches and the benchmarks never see them. The
benchmarks run the code under review, so they run in a bubblewrap sandbox
(docs/sandbox.md): at start-up serve checks that one works here, and
refuses to start workers without one, unless started with
-unsafe-no-sandbox, for repositories whose every approved patch you trust.
-workers 0 -reply-workers 0 takes webhooks and polls into the queue and runs
nothing, for other processes on the same -db; -reply-workers 0 makes a
benchmark machine that takes run jobs only.

Stopping: the HTTP server stops taking requests, the poller stops, and
running jobs get a minute to finish before they are put back in the queue
for the next start. Logs go to stderr, one line per event; never a secret.
See docs/serve.md.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		listen := fs.String("listen", "127.0.0.1:8080", "listen on `ADDR` (host:port; port 0 picks a free one)")
		dbURL := fs.String("db", "", "the queue's database `URL`: sqlite:FILE, or postgres://USER:PASSWORD@HOST:PORT/DB (default: sqlite:$XDG_STATE_HOME/patchbot/queue.db)")
		workers := fs.Int("workers", 1, "run `N` jobs (bench, freeze) at once; 0 runs none")
		replyWorkers := fs.Int("reply-workers", queue.DefaultReplyWorkers, "post `N` replies (help, refusals) at once, apart from the jobs; 0 posts none")
		jobTimeout := fs.Duration("job-timeout", queue.DefaultTimeout, "let one run of a job take `D` (10s to 24h)")
		workDir := fs.String("work", "", "keep the work areas in `DIR` (default: work/ beside the queue's database)")
		every := fs.Duration("poll", 30*time.Second, "poll the Gerrit server every `D`, at least 5s (with review.gerrit set)")
		ghLogin := fs.String("github-login", "", "patchbot's own GitHub `LOGIN`, whose comments are never commands")
		unsafeNoSandbox := fs.Bool("unsafe-no-sandbox", false, "where no sandbox works, run the queued benchmarks, which run the patches' code, without one")
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
			// The machine's own state (the Gerrit cursor, the work
			// areas) is beside a SQLite queue; with PostgreSQL, in the
			// user's state directory.
			stateDir := filepath.Dir(db.Path)
			if db.Engine != "sqlite" {
				p, err := queue.DefaultPath()
				if err != nil {
					return setupError{err}
				}
				stateDir = filepath.Dir(p)
			}
			if *workDir == "" {
				*workDir = filepath.Join(stateDir, "work")
			}
			s := &server{
				cfg: cfg, listen: *listen, dbURL: *dbURL, db: db, workers: *workers, replyWorkers: *replyWorkers, jobTimeout: *jobTimeout, workDir: *workDir,
				poll: *every, secret: []byte(secret), githubLogin: *ghLogin,
				stateDir: stateDir,
			}
			if *workers > 0 {
				// A queued benchmark runs code from a patch: a reviewer
				// may be fooled, a patch may change after approval.
				// Without a sandbox, running it is a choice made out
				// loud.
				sb, err := sandbox.New(e.ctx, &sandbox.Options{})
				switch {
				case err == nil:
					s.sandbox = sb
				case !*unsafeNoSandbox:
					return setupError{fmt.Errorf("%v\nserve runs no benchmark of a patch without a sandbox: make one work here, start with -workers 0 to only queue, or with -unsafe-no-sandbox to run them unsandboxed (for repositories whose every approved patch you trust)", err)}
				default:
					s.noSandbox = err
				}
			}
			return runServe(e, s)
		}
	},
}

// A server is what serve's flags and environment decided.
type server struct {
	cfg          *config.Config
	listen       string
	dbURL        string
	db           queue.DB      // dbURL parsed: its String hides a password
	workers      int           // run jobs at once
	replyWorkers int           // replies at once
	jobTimeout   time.Duration // one run of a job
	workDir      string
	stateDir     string // the Gerrit cursor's directory
	poll         time.Duration
	secret       []byte
	githubLogin  string
	sandbox      *sandbox.Sandbox // the benchmarks' runner, when one works
	noSandbox    error            // why none works, with -unsafe-no-sandbox
}

// runServe builds the parts of the bot, runs them until e.ctx ends, and
// stops them in order: HTTP, then the queue, with its workers and the
// Gerrit poll (a periodic run of the queue's).
func runServe(e *env, s *server) error {
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	ctx := e.ctx
	// One set of review clients for the process: the webhook's, the
	// poller's and the workers'.
	clients := job.NewClients(&s.cfg.Review, os.Getenv, false, &slogWriter{log: log, msg: "review"})

	trust := command.Trust{
		GitHubSelf:    s.githubLogin,
		GitHubTrusted: s.cfg.Serve.GitHub.Trusted,
		GerritGroup:   s.cfg.Serve.Gerrit.Group,
		GerritTrusted: s.cfg.Serve.Gerrit.Trusted,
	}
	var poller *poll.Poller
	var store poll.Store // this machine's cursor file
	if server := s.cfg.Review.Gerrit; server != "" {
		p, st, self, err := newPoller(s, server, &trust, clients)
		if err != nil {
			return setupError{err}
		}
		poller, store = p, st
		trust.GerritSelf = self
	}

	qopts := &queue.Options{
		// The queue's 0 is its default; below 0 is none.
		Workers:      cmp.Or(s.workers, -1),
		ReplyWorkers: cmp.Or(s.replyWorkers, -1),
		Timeout:      s.jobTimeout,
		Logger:       slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if s.workers > 0 || s.replyWorkers > 0 {
		w := &work.Worker{
			Areas:     &work.Areas{Root: s.workDir},
			Config:    s.cfg,
			Env:       job.Env{Getenv: os.Getenv, Log: &slogWriter{log: log, msg: "job log"}, Clients: clients},
			GitHubURL: serveGitHubURL,
		}
		if s.sandbox != nil {
			w.Env.Runner = s.sandbox
			log.Info("sandbox", "isolation", s.sandbox.Isolation().String())
		} else if s.workers > 0 {
			log.Warn("no sandbox: the benchmarks run the patches' code unsandboxed (-unsafe-no-sandbox)", "err", s.noSandbox)
		}
		qopts.Handler = logJobs(log, w.Handle)
	}
	var q *queue.Queue
	if poller != nil {
		// A periodic run of the queue's: one process among those on
		// the database polls at a time, the one River's elected leader
		// schedules it on.
		qopts.Periodic = []queue.Periodic{{
			Name:  "gerrit-poll:" + pollName(s.cfg.Review.Gerrit),
			Every: s.poll,
			Run: func(ctx context.Context, state []byte) ([]byte, error) {
				return pollOnce(ctx, poller, store, q, log, state)
			},
		}}
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

	gh, err := clients.GitHub()
	if err != nil {
		stopQueue()
		return setupError{err}
	}
	h, err := serve.New(serve.Config{Secret: s.secret, Queue: q, GitHub: gh, Trust: trust, Results: jobResult, Logger: log})
	if err != nil {
		stopQueue()
		return setupError{err}
	}
	ln, err := net.Listen("tcp", s.listen)
	if err != nil {
		stopQueue()
		return setupError{fmt.Errorf("-listen: %v", err)}
	}
	if s.workers > 0 || s.replyWorkers > 0 || poller != nil {
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
	attrs := []any{"addr", ln.Addr().String(), "db", s.db.String(), "queue_id", q.ID(), "workers", s.workers, "reply_workers", s.replyWorkers}
	if s.workers > 0 {
		attrs = append(attrs, "work", s.workDir, "job_timeout", s.jobTimeout, "rescue_after", s.jobTimeout+queue.RescueMargin(s.jobTimeout))
	}
	if poller != nil {
		attrs = append(attrs, "gerrit", s.cfg.Review.Gerrit, "query", s.cfg.Serve.Gerrit.Query, "poll", s.poll)
	}
	log.Info("serving", attrs...)

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
func newPoller(s *server, server string, trust *command.Trust, clients *review.Clients) (*poll.Poller, poll.Store, []string, error) {
	g, err := clients.Gerrit(server)
	if err != nil {
		return nil, nil, nil, err
	}
	var self []string
	if u := g.User(); u != "" {
		self = []string{u}
	}
	store, err := poll.NewFileStore(s.stateDir, server)
	if err != nil {
		return nil, nil, nil, err
	}
	t := *trust
	t.GerritSelf = self
	p, err := poll.New(g, &poll.Options{Query: s.cfg.Serve.Gerrit.Query, Trust: t, Store: store})
	return p, store, self, err
}

// pollName names the poll of the Gerrit server at server, as River's
// periodic job ids may be named: its host and path.
func pollName(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return "gerrit"
	}
	return strings.Trim(u.Host+u.Path, "/")
}

// pollOnce polls the Gerrit server once, queueing each event's job or
// reply; the queue runs it every -poll (queue.Periodic), on one process
// of those on the database at a time. state is the cursor the last poll
// left in the database, on whichever machine it ran: merged into this
// machine's file (store) first, so that the poll goes on from the further
// of the two; the cursor after the poll is the state returned.
func pollOnce(ctx context.Context, p *poll.Poller, store poll.Store, q *queue.Queue, log *slog.Logger, state []byte) ([]byte, error) {
	if len(state) > 0 {
		var shared poll.Cursor
		if err := json.Unmarshal(state, &shared); err != nil {
			log.Warn("gerrit poll: the cursor in the queue's database is not one; going on from this machine's", "err", err)
		} else if mine, err := store.Load(); err != nil {
			return nil, err
		} else if err := store.Save(poll.Merge(mine, shared, 0)); err != nil {
			return nil, err
		}
	}
	events, err := p.Poll(ctx, func(ctx context.Context, ev *poll.Event) error {
		var a *queue.Args
		var err error
		if ev.Decision.Verdict == command.Run {
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
	if err != nil && ctx.Err() == nil {
		log.Warn("gerrit poll failed", "err", err, "events", len(events))
	}
	// The poller saved the cursor of what it queued, also on a failure.
	c, err := store.Load()
	if err != nil {
		return nil, err
	}
	return json.Marshal(c)
}

// jobResult is the status page's serve.Config.Results: what the workers
// recorded with a job in the queue (work.Output), whichever process ran it.
func jobResult(_ context.Context, j queue.JobInfo) (*serve.Result, error) {
	o, err := work.ReadOutput(j.Output())
	if o == nil || err != nil {
		return nil, err
	}
	return &serve.Result{URL: o.URL, Bench: o.Bench, Note: o.Note}, nil
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
