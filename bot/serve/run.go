package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/poll"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/sandbox"
	"github.com/patchbot/patchbot/step/track"
)

// The HTTP server's timeouts: a webhook's answer comes once its job is
// queued (seconds at most); the status page is small.
const (
	readTimeout     = 30 * time.Second
	writeTimeout    = 30 * time.Second
	idleTimeout     = 2 * time.Minute
	shutdownTimeout = 10 * time.Second // for the HTTP requests in flight
)

// Options are what 'patchbot serve' is made of: what its flags, its
// configuration and its environment decided. Run checks none of the
// ranges the command checks (a -poll of at least 5 s, a -job-timeout
// between 10 s and a day): the caller says what is wrong in its own words.
type Options struct {
	Config       *config.Config // nil is the built-in one
	Listen       string         // host:port of the HTTP server; port 0 picks a free one
	DB           string         // the queue's URL (queue.ParseURL)
	Workers      int            // run jobs (bench, freeze) at once; 0 runs none
	ReplyWorkers int            // replies (help, refusals) at once; 0 posts none
	JobTimeout   time.Duration  // one run of a job
	// StateDir is this machine's state (the Gerrit cursor); "" is
	// beside a SQLite queue, else the user's state directory. WorkDir
	// holds the workers' work areas; "" is work/ in StateDir.
	StateDir    string
	WorkDir     string
	Poll        time.Duration // how often the Gerrit server is polled, with review.gerrit set
	Secret      []byte        // the webhook's
	GitHubLogin string        // patchbot's own GitHub account; "": serve.github.login, else asked of GitHub

	// Sandbox runs the benchmarks' processes; with Workers > 0 and no
	// sandbox, NoSandbox says why there is none (the caller chose to run
	// them unsandboxed).
	Sandbox   *sandbox.Sandbox
	NoSandbox error

	// Getenv reads the credentials (step/review's variables); nil is
	// no environment.
	Getenv func(string) string
	// Log receives the server's log, one line per event (log/slog's text
	// form); never a secret.
	Log io.Writer
}

// Run builds the parts of the bot, serves until ctx ends, and stops them
// in order: HTTP, then the queue, with its workers and the Gerrit poll (a
// periodic run of the queue's). It logs "serving" with the address it
// listens on once it does. The error is a *job.SetupError when nothing
// was served, for what it was given (its configuration, its credentials;
// its address, with Field "listen"); nil when it stopped because ctx
// ended.
func Run(ctx context.Context, opts *Options) error {
	o := *opts
	log := slog.New(slog.NewTextHandler(o.Log, nil))
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var err error
	if o.StateDir, err = stateDir(o); err != nil {
		return &job.SetupError{Err: err}
	}
	if o.WorkDir == "" {
		o.WorkDir = filepath.Join(o.StateDir, "work")
	}
	cfg := o.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if o.GitHubLogin != "" {
		c := *cfg
		c.Serve.GitHub.Login = o.GitHubLogin
		cfg = &c
	}
	// One set of review clients for the process: the webhook's, the
	// poller's and the workers'.
	clients := job.NewClients(cfg, getenv, false, &logWriter{log: log, msg: "review"})

	trust := command.Trust{
		GitHubTrusted: cfg.Serve.GitHub.Trusted,
		GerritGroup:   cfg.Serve.Gerrit.Group,
		GerritTrusted: cfg.Serve.Gerrit.Trusted,
	}
	var poller *poll.Poller
	var store poll.Store // this machine's cursor file
	if server := cfg.Review.Gerrit; server != "" {
		g, err := clients.Gerrit(server)
		if err != nil {
			return &job.SetupError{Err: err}
		}
		// patchbot's own account on the server, as far as the
		// credentials say (the user name of PATCHBOT_GERRIT_USER; none
		// for cookies).
		if u := g.User(); u != "" {
			trust.GerritSelf = []string{u}
		}
		// And its account id, which cookies do not say: asked of the
		// server, when it answers now.
		sctx, cancel := context.WithTimeout(ctx, DefaultLookupTimeout)
		if id, err := g.Self(sctx); err == nil {
			trust.GerritSelf = append(trust.GerritSelf, strconv.FormatInt(id, 10))
		} else if g.SignedIn() {
			log.Warn("gerrit: which account is patchbot's is not known yet", "err", err)
		}
		cancel()
		if store, err = poll.NewFileStore(o.StateDir, server); err != nil {
			return &job.SetupError{Err: err}
		}
		if poller, err = poll.New(g, &poll.Options{Query: cfg.Serve.Gerrit.Query, Trust: trust, Store: store}); err != nil {
			return &job.SetupError{Err: err}
		}
	}

	qopts := &queue.Options{
		// The queue's 0 is its default; below 0 is none.
		Workers:      cmp.Or(o.Workers, -1),
		ReplyWorkers: cmp.Or(o.ReplyWorkers, -1),
		Timeout:      o.JobTimeout,
		Logger:       slog.New(slog.NewTextHandler(o.Log, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	// The branches patchbot track records in the queue's database: the
	// track jobs' store, and the status page's series.
	tracks, closeTracks, err := openTracks(ctx, o.DB)
	if err != nil {
		return &job.SetupError{Err: err}
	}
	defer closeTracks()
	var h *Handler     // the webhook's, made once the queue is open
	var w *work.Worker // the jobs', given the queue once it is open
	if o.Workers > 0 || o.ReplyWorkers > 0 {
		areas := &work.Areas{Root: o.WorkDir}
		if o.Workers > 0 {
			// One process per work root: its areas, and the machine's
			// benchmarks, are this process's alone.
			release, err := areas.Lock()
			if err != nil {
				return &job.SetupError{Field: "work", Err: err}
			}
			defer release()
			// What the runs of processes killed before left behind
			// (their binaries, megabytes each).
			removed, err := benchrun.SweepTemp("")
			if err != nil {
				log.Warn("sweeping the temporary directories of dead processes", "err", err)
			}
			if len(removed) > 0 {
				log.Info("removed the temporary directories of dead processes", "dirs", len(removed))
			}
		}
		w = &work.Worker{
			Areas:  areas,
			Config: cfg,
			Env:    job.Env{Getenv: getenv, Log: &logWriter{log: log, msg: "job log"}, Clients: clients},
			Tracks: tracks,
		}
		if o.Sandbox != nil {
			w.Env.Runner = o.Sandbox
			log.Info("sandbox", "isolation", o.Sandbox.Isolation().String())
		} else if o.Workers > 0 {
			log.Warn("no sandbox: the benchmarks run the patches' code unsandboxed (-unsafe-no-sandbox)", "err", o.NoSandbox)
		}
		// A comment deferred by GitHub's rate limit is decided by the
		// webhook's handler, h, made below, before the queue starts.
		qopts.Handler = logJobs(log, func(ctx context.Context, j *queue.Job) error {
			if j.Args.Command == queue.CommandDecide {
				return h.Decide(ctx, j)
			}
			return w.Handle(ctx, j)
		})
		if o.Workers > 0 {
			qopts.TrackHandler = func(ctx context.Context, j *queue.TrackJob) error {
				a := []any{"job", j.ID, "what", j.Args.String(), "attempt", j.Attempt}
				log.Info("track job started", a...)
				start := time.Now()
				err := w.HandleTrack(ctx, j)
				a = append(a, "took", time.Since(start).Round(time.Millisecond))
				if err != nil {
					log.Warn("track job failed", append(a, "err", err)...)
				} else {
					log.Info("track job done", a...)
				}
				return err
			}
		}
	}
	var q *queue.Queue
	if poller != nil {
		// A periodic run of the queue's: one process among those on
		// the database polls at a time, the one River's elected leader
		// schedules it on.
		qopts.Periodic = []queue.Periodic{{
			Name:  "gerrit-poll:" + pollName(cfg.Review.Gerrit),
			Every: o.Poll,
			Run: func(ctx context.Context, state []byte) ([]byte, error) {
				return pollOnce(ctx, poller, store, q, log, state)
			},
		}}
	}
	q, err = queue.Open(ctx, o.DB, qopts)
	if err != nil {
		return &job.SetupError{Err: err}
	}
	if w != nil {
		// Track jobs queue their bisections here; a bench job of
		// several packages, its parts.
		w.TrackQueue, w.Parts = q, q
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
		return &job.SetupError{Err: err}
	}
	// patchbot's own account, whose comments are never commands: the
	// one configured, else the token's, asked now. A GitHub that does
	// not answer does not stop the start: the bot's own comments are
	// bots' (never commands) when it is an App, and the replies find
	// their comments by asking again.
	if gh.SignedIn() || cfg.Serve.GitHub.Login != "" {
		sctx, cancel := context.WithTimeout(ctx, DefaultLookupTimeout)
		self, err := gh.Self(sctx)
		cancel()
		if e, ok := errors.AsType[*review.Error](err); ok && e.Permanent() {
			// An App's token, say, whose account GitHub does not say:
			// no reply could find its own comment. Said now.
			stopQueue()
			return &job.SetupError{Err: err}
		}
		if err != nil {
			log.Warn("github: whose token this is is not known yet", "err", err)
		}
		trust.GitHubSelf = self
	}
	h, err = New(Config{Secret: o.Secret, Queue: q, Heads: q, GitHub: gh, Trust: trust, Tracks: tracks, Logger: log})
	if err != nil {
		stopQueue()
		return &job.SetupError{Err: err}
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		stopQueue()
		return &job.SetupError{Field: "listen", Err: err}
	}
	if o.Workers > 0 || o.ReplyWorkers > 0 || poller != nil {
		if err := q.Start(context.WithoutCancel(ctx)); err != nil {
			ln.Close()
			stopQueue()
			return err
		}
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpDone := make(chan error, 1)
	go func() { httpDone <- hs.Serve(ln) }()
	db, _ := db.Parse(o.DB) // its String hides a password; Open parsed it
	attrs := []any{"addr", ln.Addr().String(), "db", db.String(), "queue_id", q.ID(), "workers", o.Workers, "reply_workers", o.ReplyWorkers}
	if o.Workers > 0 {
		attrs = append(attrs, "work", o.WorkDir, "job_timeout", o.JobTimeout, "rescue_after", o.JobTimeout+queue.RescueMargin(o.JobTimeout))
	}
	if poller != nil {
		attrs = append(attrs, "gerrit", cfg.Review.Gerrit, "query", cfg.Serve.Gerrit.Query, "poll", o.Poll)
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
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	cancel()
	if err := stopQueue(); err != nil {
		log.Warn("queue stop", "err", err)
		failed = cmp.Or(failed, err)
	}
	log.Info("stopped")
	return failed
}

// stateDir returns the machine's own state directory: beside a SQLite
// queue; with PostgreSQL, the user's state directory.
func stateDir(o Options) (string, error) {
	if o.StateDir != "" {
		return o.StateDir, nil
	}
	d, err := db.Parse(o.DB)
	if err != nil {
		return "", err
	}
	if d.Engine == "sqlite" {
		return filepath.Dir(d.Path), nil
	}
	p, err := db.DefaultPath()
	if err != nil {
		return "", err
	}
	return filepath.Dir(p), nil
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

// askedAgain answers a review message that asks what another message
// asked already on the same patch set (job id): one reply, to that
// message, saying where the answer is. The message that queued the job,
// read again by a later poll, is not answered.
func askedAgain(ctx context.Context, q *queue.Queue, log *slog.Logger, ev *poll.Event, a *queue.Args, id int64) error {
	prev, err := q.Job(ctx, id)
	if err != nil {
		return err
	}
	if prev.Delivery == ev.MessageID {
		return nil
	}
	where := fmt.Sprintf("patch set %d (%s)", ev.PatchSet, abbrev.Hash(ev.Commit))
	again := *ev
	again.Decision = command.Decision{Verdict: command.Answer, Reply: alreadyAsked(ctx, readResults, a, prev, escape.Gerrit, where, "change")}
	r, err := again.ReplyArgs()
	if err != nil {
		return err
	}
	res, err := q.Insert(ctx, r)
	if err != nil {
		return err
	}
	log.Info("gerrit message asks again", "review", ev.Review(), "message", ev.MessageID, "asked", prev.ID, "job", res.ID, "duplicate", res.Duplicate)
	return nil
}

// pollOnce polls the Gerrit server once, queueing each event's job or
// reply; the queue runs it every Options.Poll (queue.Periodic), on one
// process of those on the database at a time. state is the cursor the last
// poll left in the database, on whichever machine it ran: merged into this
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
		if res.Duplicate && ev.Decision.Verdict == command.Run {
			return askedAgain(ctx, q, log, ev, a, res.ID)
		}
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

// logJobs logs one line when a job starts and one when it ends.
func logJobs(log *slog.Logger, h queue.Handler) queue.Handler {
	return func(ctx context.Context, j *queue.Job) error {
		a := []any{"job", j.ID, "review", j.Args.Review, "revision", j.Args.Bound(), "command", j.Args.Command, "attempt", j.Attempt}
		if p := j.Args.Part; p != nil {
			// One package of a split bench job (its options, normalised
			// as parsed, say which command).
			a = append(a, "options", j.Args.Options, "part", fmt.Sprintf("%d/%d", p.Index+1, p.Of), "package", p.Package)
		}
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

// A logWriter logs each line written to it as one record: the job's
// log and the review clients', which write lines.
type logWriter struct {
	log *slog.Logger
	msg string
	mu  sync.Mutex
	buf []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
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

// openTracks opens the track store in the queue's database (migrating its
// schema, as track does), and returns it and the function that closes it.
func openTracks(ctx context.Context, dbURL string) (*track.Store, func(), error) {
	d, err := db.Parse(dbURL)
	if err != nil {
		return nil, nil, err
	}
	return track.OpenDatabase(ctx, d)
}
