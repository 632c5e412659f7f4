// Package queue is patchbot's durable job queue: River
// (github.com/riverqueue/river) behind a small interface, so that the
// server, its status page and its tests see jobs, not River.
//
// A job is an Args: its identity (review, revision, command, who asked,
// which delivery) and the job.Request it runs; a track job is a TrackArgs.
// Open opens the queue in the database a URL names (internal/db: a SQLite
// file through River's SQLite driver over the pure-Go modernc.org/sqlite,
// or PostgreSQL through its pgx driver) and brings River's schema and
// patchbot's tables beside it up to date; Insert adds a job,
// or reports that the same (review, revision, command) is already there;
// Start works jobs with the caller's Handler; Stop stops; Jobs lists them
// for a status page. A handler may record what a job left (Job.RecordOutput:
// a reply's link, a benchmark result), which is stored with the job and
// listed with it (JobInfo.Output).
//
// Execution is at least once: a job whose process died is run again once
// River's rescuer finds it (Options.RescueAfter), so a handler's effects,
// above all its reply on the review, must be idempotent (post's marker).
package queue

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/review"
)

// Defaults of Options.
const (
	// DefaultTimeout fits benchmarks: several packages, both sides, many
	// runs each. River's own default is one minute.
	DefaultTimeout = 30 * time.Minute
	// DefaultRescueMargin is the longest rescue margin (RescueMargin),
	// the one of the default timeout.
	DefaultRescueMargin = 5 * time.Minute
	// MinRescueMargin is the shortest rescue margin: three times
	// River's JobStuckThreshold (10 s, how long River waits for a job
	// whose timeout passed before calling it stuck), and more than a
	// job needs to stop its processes once its context ends (a process
	// group killed, then at most 5 s for its pipes, in benchrun and
	// bot/work's git) with time left for a reply bounded by
	// Job.RescueAt.
	MinRescueMargin = 30 * time.Second
	// DefaultMaxAttempts is small: a failure that five tries with River's
	// backoff (1 s, 16 s, 81 s, 256 s) do not mend needs a person.
	DefaultMaxAttempts = 5
	// DefaultGrace is how long Stop lets running jobs finish.
	DefaultGrace = time.Minute
	// DefaultWorkers is one: two benchmark jobs on one machine spoil
	// each other's numbers.
	DefaultWorkers = 1
	// DefaultReplyWorkers is how many replies (help, refusals) are
	// posted at once: they run no benchmark, and take a request each.
	DefaultReplyWorkers = 4
	// DefaultRetention is how long finished jobs are kept: for the status
	// page, and because a kept job is what makes a late redelivery a
	// duplicate.
	DefaultRetention = 30 * 24 * time.Hour
)

// MaxOutput bounds what one job records (Job.RecordOutput), in bytes of
// JSON: far below River's own bound of 32 MB, because a listing of the
// queue (Jobs) reads every listed job's output from the database.
const MaxOutput = 256 << 10

// ErrOutputTooLarge is wrapped by the error of Job.RecordOutput for an
// output over MaxOutput.
var ErrOutputTooLarge = errors.New("over the queue's bound (queue.MaxOutput)")

// A Handler does one job. An error makes River retry the job with backoff,
// up to Options.MaxAttempts, unless it is permanent (Permanent, or a
// *remedy.FieldError): then the job is cancelled and not run again. The
// context ends when the job's timeout passes or the queue stops.
type Handler func(ctx context.Context, j *Job) error

// A Job is one attempt at a queued job, as a Handler sees it.
type Job struct {
	ID          int64
	Args        Args
	Attempt     int            // 1 on the first run
	MaxAttempts int            // the last attempt there will be
	Errors      []AttemptError // of the attempts before this one
	// RescueAt is when the queue may take this attempt for the one of a
	// dead process and run the job again (its start plus
	// Options.RescueAfter): the handler must have returned by then,
	// whatever it does after its context ends. Zero when unknown.
	RescueAt time.Time
	// Timeout is how long the attempt may run (Options.Timeout): its
	// context's deadline, which a handler names when the job ran past it.
	Timeout time.Duration
	// Previous is what an earlier attempt recorded (RecordOutput), as
	// JSON; nil when none did. A handler that must wait (Snooze) keeps
	// there what the next attempt needs not do again.
	Previous json.RawMessage

	output json.RawMessage
}

// RecordOutput records v, as JSON, as what the job left: the queue stores
// it with the job when the handler returns, whatever it returns, and
// JobInfo.Output gives it back. A later call replaces it, as does the
// output of a later attempt; an attempt that records nothing leaves the
// one before in place. An output over MaxOutput is refused with an error
// that wraps ErrOutputTooLarge, and what was recorded before stays. Call
// it from the handler's goroutine, before the handler returns.
func (j *Job) RecordOutput(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("queue: job %d: output: %w", j.ID, err)
	}
	if len(data) > MaxOutput {
		return fmt.Errorf("queue: job %d: output of %d bytes is %w, %d bytes", j.ID, len(data), ErrOutputTooLarge, MaxOutput)
	}
	j.output = data
	return nil
}

// Output returns what RecordOutput recorded in this attempt, as JSON; nil
// when nothing was.
func (j *Job) Output() json.RawMessage { return j.output }

// Options configure a Queue. The zero value takes the defaults above.
type Options struct {
	// Handler works the jobs; nil makes a queue that only inserts and
	// lists (Start refuses).
	Handler Handler
	// Timeout is how long one attempt may run before its context is
	// cancelled.
	Timeout time.Duration
	// RescueAfter is how long a job may stay running before River's
	// rescuer takes it for the job of a dead process and runs it again.
	// It must exceed Timeout; zero is Timeout + RescueMargin(Timeout).
	// The rescuer runs on the elected leader, at its election and every
	// 30 s after, so a job is rescued up to 30 s after it is due. Every
	// process that works one database should have the same Timeout and
	// RescueAfter: the leader's decide.
	RescueAfter time.Duration
	// MaxAttempts is how many times a failing job is tried in all.
	MaxAttempts int
	// Grace is how long Stop waits for running jobs before it cancels
	// them.
	Grace time.Duration
	// Workers is how many run jobs (bench, freeze) run at once; below 0,
	// none: the process takes no run job (a machine for replies only).
	Workers int
	// ReplyWorkers is how many reply jobs (help and refusals: a text to
	// post, no benchmark) run at once, in a River queue of their own
	// (ReplyQueue), so that a reply never waits behind a benchmark;
	// below 0, none: a benchmark machine that takes only run jobs.
	ReplyWorkers int
	// Retention is how long completed, cancelled and discarded jobs are
	// kept.
	Retention time.Duration
	// TrackHandler works the track jobs (TrackArgs), in the run jobs'
	// River queue, so that they take the run workers' turns: benchmarks
	// one after another. nil leaves them to a process that has one.
	TrackHandler TrackHandler
	// Periodic is work that one process among those on the database
	// does every so often (see Periodic); Start runs it, with or without
	// a Handler.
	Periodic []Periodic
	// Logger receives River's log; nil logs warnings and errors to
	// stderr (River's own default is stdout, where -json output goes).
	Logger *slog.Logger
}

func (o *Options) withDefaults() (Options, error) {
	opts := *o
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.RescueAfter == 0 && opts.Timeout > 0 {
		opts.RescueAfter = opts.Timeout + RescueMargin(opts.Timeout)
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.Grace == 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.ReplyWorkers == 0 {
		opts.ReplyWorkers = DefaultReplyWorkers
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	switch {
	case opts.Timeout < 0:
		return opts, fmt.Errorf("queue: timeout %v: must be positive", opts.Timeout)
	case opts.RescueAfter <= opts.Timeout:
		return opts, fmt.Errorf("queue: rescue delay %v must exceed the job timeout %v, or live jobs are run twice", opts.RescueAfter, opts.Timeout)
	case opts.MaxAttempts < 0, opts.Grace < 0, opts.Retention < 0:
		return opts, fmt.Errorf("queue: negative option")
	}
	return opts, checkPeriodic(opts.Periodic)
}

// RescueMargin returns what is added to a job timeout to make the rescue
// delay when Options.RescueAfter is zero: the timeout itself, at least
// MinRescueMargin and at most DefaultRescueMargin (30 s for a 10 s
// timeout, 2 minutes for 2, 5 minutes for 5 or more: 35 minutes in all
// for the default 30).
//
// The margin is the time a job whose timeout passed has to return before
// the rescuer takes it for the job of a dead process and runs it again,
// beside itself: its context is cancelled at the timeout, it stops its
// processes (seconds), and a reply it posts after that (bot/work's
// failure reply) is bounded by Job.RescueAt, which the margin leaves
// room for. It scales with the timeout because longer jobs run more and
// larger processes to stop, and because its cost, the wait for a crashed
// process's jobs, matters less beside a long timeout than beside a short
// one: a 5-minute margin would make a 10-second job's rescue wait 5
// minutes.
func RescueMargin(timeout time.Duration) time.Duration {
	return min(DefaultRescueMargin, max(timeout, MinRescueMargin))
}

var errNoHandler = errors.New("queue: Start needs Options.Handler or Options.Periodic")

// A Queue is an open job queue.
type Queue struct {
	db     db.Database
	opts   Options
	client engine
	leader func(context.Context) (*riverdriver.Leader, error)
	exec   riverdriver.Executor // the database, for patchbot's own tables (heads.go, health.go, parts.go)
	file   os.FileInfo          // the SQLite file as it was opened (Check)
	close  func() error         // the database

	mu       sync.Mutex
	started  bool
	stopping bool
	stopped  bool
}

// engine is what Queue uses of a River client, whatever its driver: the
// seam where PostgreSQL (riverpgxv5) comes in beside SQLite, as another
// river.Client[TTx].
type engine interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobDeleteMany(ctx context.Context, params *river.JobDeleteManyParams) (*river.JobDeleteManyResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	ID() string
}

var _ engine = (*river.Client[*sql.Tx])(nil)

// Open opens the queue at dbURL (see db.Parse), creating the database if
// need be and running River's migrations on it, which is a no-op when the
// schema is current. It does not start working jobs: see Start.
func Open(ctx context.Context, dbURL string, opts *Options) (*Queue, error) {
	if opts == nil {
		opts = &Options{}
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	d, err := db.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	q := &Queue{db: d, opts: o}
	switch d.Engine {
	case "sqlite":
		pool, err := db.OpenSQLite(ctx, d.Path)
		if err != nil {
			return nil, err
		}
		driver := riversqlite.New(pool)
		if q.file, err = os.Stat(d.Path); err != nil {
			pool.Close()
			return nil, fmt.Errorf("queue database %s: %w", d, err)
		}
		q.client, err = newEngine(ctx, driver, q)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("queue database %s: %w", d, err)
		}
		q.close = pool.Close
	case "postgres":
		pool, err := db.OpenPostgres(ctx, d)
		if err != nil {
			return nil, err
		}
		driver := riverpgxv5.New(pool)
		unlock, err := db.LockMigrations(ctx, pool)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("queue database %s: %w", d, db.Scrub(err, d))
		}
		q.client, err = newEngine(ctx, driver, q)
		unlock()
		if err != nil {
			pool.Close()
			hint := ""
			if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Code == "42501" {
				hint = " (the user must be allowed to create River's tables: make it the database's owner, or GRANT CREATE ON SCHEMA public TO it)"
			}
			return nil, fmt.Errorf("queue database %s: %w%s", d, db.Scrub(err, d), hint)
		}
		q.close = func() error { pool.Close(); return nil }
	default:
		panic("queue: db.Parse returned engine " + d.Engine)
	}
	return q, nil
}

// newEngine migrates the database behind driver and makes the River
// client, for any of River's drivers.
func newEngine[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], q *Queue) (engine, error) {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: q.opts.Logger})
	if err != nil {
		return nil, err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("migrating River's schema: %w", err)
	}
	q.exec = driver.GetExecutor()
	// patchbot's own tables, beside River's: under the same lock as
	// River's migrations on PostgreSQL (db.LockMigrations), and SQLite's one
	// writer, so two processes never create them at once.
	for _, schema := range []string{headsSchema, healthSchema, partsSchema} {
		if err := q.exec.Exec(ctx, schema); err != nil {
			return nil, fmt.Errorf("creating patchbot's tables: %w", err)
		}
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &riverWorker[Args, *Args]{q: q, what: "job", do: q.work}); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &periodicWorker{q: q}); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &riverWorker[TrackArgs, *TrackArgs]{q: q, what: "track job", do: q.workTrack}); err != nil {
		return nil, err
	}
	o := q.opts
	cfg := &river.Config{
		JobTimeout:                  o.Timeout,
		RescueStuckJobsAfter:        o.RescueAfter,
		MaxAttempts:                 o.MaxAttempts,
		SoftStopTimeout:             o.Grace,
		CompletedJobRetentionPeriod: o.Retention,
		CancelledJobRetentionPeriod: o.Retention,
		DiscardedJobRetentionPeriod: o.Retention,
		Logger:                      o.Logger,
		Workers:                     workers,
	}
	if o.Handler != nil || len(o.Periodic) > 0 {
		cfg.Queues = map[string]river.QueueConfig{}
	}
	if o.Handler != nil && o.Workers > 0 {
		cfg.Queues[river.QueueDefault] = river.QueueConfig{MaxWorkers: o.Workers}
	}
	if o.Handler != nil && o.ReplyWorkers > 0 {
		cfg.Queues[ReplyQueue] = river.QueueConfig{MaxWorkers: o.ReplyWorkers}
	}
	if len(o.Periodic) > 0 {
		cfg.Queues[PeriodicQueue] = river.QueueConfig{MaxWorkers: 1}
		cfg.PeriodicJobs = periodicJobs(o.Periodic)
	}
	client, err := river.NewClient(driver, cfg)
	if err != nil {
		return nil, err
	}
	q.leader = func(ctx context.Context) (*riverdriver.Leader, error) {
		return client.Driver().GetExecutor().LeaderGetElectedLeader(ctx, &riverdriver.LeaderGetElectedLeaderParams{Schema: client.Schema()})
	}
	return client, nil
}

// ID is the queue's name among the processes on its database: River's
// client id, the host's name and the time the queue was opened. It names
// the process in the leader's place (Leader) and in a job's attempts.
func (q *Queue) ID() string { return q.client.ID() }

// A Leader is the process that leads the queues on a database, as River
// elected it: it schedules the periodic runs (Options.Periodic) and
// rescues the jobs of dead processes. Its lease is renewed every 5 s or so;
// when it is not (the process died), another queue is elected once it has
// expired.
type Leader struct {
	ID        string    `json:"id"` // the leader's Queue.ID
	ElectedAt time.Time `json:"elected_at"`
	ExpiresAt time.Time `json:"expires_at"` // of its lease, unless renewed
}

// Leader returns the queue that leads now, and false when none does: no
// started queue is on the database, or the last leader's lease expired
// (the process died) and no other has been elected yet.
func (q *Queue) Leader(ctx context.Context) (Leader, bool, error) {
	l, err := q.leader(ctx)
	switch {
	case errors.Is(err, rivertype.ErrNotFound):
		return Leader{}, false, nil
	case err != nil:
		return Leader{}, false, fmt.Errorf("queue: reading the leader: %w", err)
	case !l.ExpiresAt.After(time.Now()):
		return Leader{}, false, nil
	}
	return Leader{ID: l.LeaderID, ElectedAt: l.ElectedAt, ExpiresAt: l.ExpiresAt}, true, nil
}

// DB is the database the queue is in.
func (q *Queue) DB() db.Database { return q.db }

// An InsertResult is what Insert did.
type InsertResult struct {
	ID int64 `json:"id"` // the job's id: the new job's, or the one already queued
	// Duplicate reports that a job with the same identity (review,
	// revision or reply key, command, options: see Args) was already
	// queued, running or done, so nothing was inserted.
	Duplicate bool   `json:"duplicate"`
	State     string `json:"state"` // the job's state now
}

// Insert queues a job after checking it (Args.Validate): a job that
// could never run is refused here rather than retried.
func (q *Queue) Insert(ctx context.Context, a *Args) (InsertResult, error) {
	if err := a.Validate(); err != nil {
		return InsertResult{}, err
	}
	if err := q.checkFile(); err != nil {
		return InsertResult{}, fmt.Errorf("queue: inserting %s: %w", a, err)
	}
	res, err := q.client.Insert(ctx, *a, nil)
	if err != nil {
		return InsertResult{}, fmt.Errorf("queue: inserting %s: %w", a, err)
	}
	return InsertResult{ID: res.Job.ID, Duplicate: res.UniqueSkippedAsDuplicate, State: string(res.Job.State)}, nil
}

// Start starts working jobs with Options.Handler, in the background, until
// Stop. Jobs inserted before, by this queue or by another process on the
// same database, are worked too.
func (q *Queue) Start(ctx context.Context) error {
	if q.opts.Handler == nil && len(q.opts.Periodic) == 0 {
		return errNoHandler
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopping || q.stopped {
		return errors.New("queue: Start after Stop")
	}
	if q.started {
		return nil
	}
	// Cancelling ctx later is a soft stop, as Stop is: the jobs' contexts
	// do not inherit its cancellation.
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("queue: starting: %w", err)
	}
	q.started = true
	return nil
}

// Stop stops taking jobs, lets running ones finish for Options.Grace,
// then cancels their contexts and waits for them to return; a job
// interrupted so is put back, not counted as a failed attempt, and runs
// when a queue next starts. Then it closes the database. If ctx ends
// first, Stop returns its error and leaves the database open under the
// jobs still running; the process may exit, and those jobs are rescued
// later.
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return nil
	}
	q.stopping = true
	started := q.started
	q.mu.Unlock()

	if started {
		if err := q.client.Stop(ctx); err != nil {
			return fmt.Errorf("queue: stopping: %w", err)
		}
	}
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	if err := q.close(); err != nil {
		return fmt.Errorf("queue database %s: closing: %w", q.db, err)
	}
	return nil
}

func (q *Queue) isStopping() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stopping
}

// A validated is a pointer to the arguments of one of patchbot's kinds
// of job, which check themselves.
type validated[T any] interface {
	*T
	Validate() error
}

// riverWorker is River's worker for one of patchbot's kinds of job, T its
// arguments: each kind gets the queue's timeout, the same cancelling of
// stored arguments that do not decode or are not valid, and the same end
// of an attempt (a permanent error cancels the job; an attempt that Stop
// interrupted goes back into the queue at once). do does the job.
type riverWorker[T river.JobArgs, P validated[T]] struct {
	river.WorkerDefaults[T]
	q    *Queue
	what string // "job", "track job": for messages
	do   func(ctx context.Context, rj *river.Job[T]) error
}

// Timeout overrides River's one-minute default with the queue's.
func (w *riverWorker[T, P]) Timeout(*river.Job[T]) time.Duration { return w.q.opts.Timeout }

// Middleware decodes the job's stored arguments before River does. River
// counts arguments that do not decode (a reply stored by an older
// patchbot, its key in "revision": see Args) as a failed attempt and
// retries them, though every attempt fails the same way; here the job is
// cancelled at once, with the decoding error.
func (w *riverWorker[T, P]) Middleware(*rivertype.JobRow) []rivertype.WorkerMiddleware {
	return []rivertype.WorkerMiddleware{river.WorkerMiddlewareFunc(func(ctx context.Context, r *rivertype.JobRow, doInner func(context.Context) error) error {
		var a T
		if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
			return river.JobCancel(fmt.Errorf("queue: %s %d: its stored arguments do not decode, as a job queued by another version of patchbot may not: %w", w.what, r.ID, err))
		}
		return doInner(ctx)
	})}
}

func (w *riverWorker[T, P]) Work(ctx context.Context, rj *river.Job[T]) error {
	if err := P(&rj.Args).Validate(); err != nil {
		// Stored by another version, or by hand: retrying cannot help.
		return river.JobCancel(err)
	}
	err := w.do(ctx, rj)
	switch {
	case err == nil:
		return nil
	case IsPermanent(err):
		return river.JobCancel(err)
	case ctx.Err() != nil && w.q.isStopping():
		// Interrupted by Stop, not failed: back in the queue at once,
		// and this attempt does not count.
		return river.JobSnooze(0)
	}
	if se, ok := errors.AsType[*snoozeError](err); ok {
		// River does not count a snoozed attempt.
		return river.JobSnooze(se.d)
	}
	return err
}

// work runs the queue's Handler on a job of Args.
func (q *Queue) work(ctx context.Context, rj *river.Job[Args]) error {
	if q.opts.Handler == nil {
		// Only a queue with a handler has a River queue to fetch from.
		return errNoHandler
	}
	j := &Job{
		ID:          rj.ID,
		Args:        rj.Args,
		Attempt:     rj.Attempt,
		MaxAttempts: rj.MaxAttempts,
		Errors:      attemptErrors(rj.Errors),
		Timeout:     q.opts.Timeout,
	}
	if rj.AttemptedAt != nil {
		// As River's rescuer counts: from the attempt's start in the
		// database.
		j.RescueAt = rj.AttemptedAt.Add(q.opts.RescueAfter)
	}
	var meta struct {
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(rj.Metadata, &meta) == nil && len(meta.Output) > 0 && string(meta.Output) != "null" {
		j.Previous = meta.Output
	}
	err := q.opts.Handler(ctx, j)
	if j.output != nil {
		// Stored as the job's metadata "output" when River records
		// this attempt's end; within MaxOutput, well inside River's
		// own bound.
		if rerr := river.RecordOutput(ctx, j.output); rerr != nil {
			q.opts.Logger.WarnContext(ctx, "queue: recording a job's output", slog.Int64("job", j.ID), slog.String("error", rerr.Error()))
		}
	}
	return err
}

// MaxSnooze bounds Snooze's wait: a server that asks for longer is asked
// again then.
const MaxSnooze = time.Hour

// Snooze marks err as a wait, not a failure: the job runs again after d
// (at least a second, at most MaxSnooze), and the attempt does not count
// towards its MaxAttempts. For a reply that a rate limit refused until
// its reset: what the attempt recorded (RecordOutput) is the next one's
// Previous.
func Snooze(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &snoozeError{err, min(max(d, time.Second), MaxSnooze)}
}

// IsSnooze reports whether err was made by Snooze.
func IsSnooze(err error) bool {
	_, ok := errors.AsType[*snoozeError](err)
	return ok
}

type snoozeError struct {
	err error
	d   time.Duration
}

func (e *snoozeError) Error() string { return fmt.Sprintf("%v (waiting %v)", e.err, e.d) }
func (e *snoozeError) Unwrap() error { return e.err }

// Permanent marks err as a failure that running the job again cannot
// mend (a request the configuration refuses, a review that is gone): the
// job is cancelled instead of retried.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// IsPermanent reports whether err was marked Permanent or is a request
// that is not valid (*remedy.FieldError): whether the queue cancels the job
// rather than retry it.
func IsPermanent(err error) bool {
	var p *permanentError
	var f *remedy.FieldError
	return errors.As(err, &p) || errors.As(err, &f)
}

// An AttemptError is the error of one failed attempt.
type AttemptError struct {
	At      time.Time `json:"at"`
	Attempt int       `json:"attempt"`
	Error   string    `json:"error"`
}

func attemptErrors(es []rivertype.AttemptError) []AttemptError {
	var out []AttemptError
	for _, e := range es {
		out = append(out, AttemptError{At: e.At, Attempt: e.Attempt, Error: e.Error})
	}
	return out
}

// JobInfo is a job as a status page shows it. Its Revision is what the
// job is bound to, as Args.Bound gives it: the revision, or for a job
// that runs nothing its reply key.
type JobInfo struct {
	ID       int64  `json:"id"`
	Kind     string `json:"kind"`
	Review   string `json:"review"`
	Revision string `json:"revision"`
	Command  string `json:"command"`
	Options  string `json:"options,omitempty"`
	Who      string `json:"who,omitempty"`
	// State is River's: available, scheduled, running, retryable,
	// completed, cancelled or discarded (pending is unused here).
	State       string         `json:"state"`
	Attempt     int            `json:"attempt"`
	MaxAttempts int            `json:"max_attempts"`
	Errors      []AttemptError `json:"errors,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
	ScheduledAt time.Time      `json:"scheduled_at"`
	AttemptedAt time.Time      `json:"attempted_at,omitzero"`
	FinalizedAt time.Time      `json:"finalized_at,omitzero"`

	metadata []byte // River's, with the recorded output in it

	// Delivery is the event that queued the job (Args.Delivery); not
	// shown by the API.
	Delivery string `json:"-"`
}

// Output returns what the job recorded (Job.RecordOutput), as JSON; nil
// when it recorded nothing. It is decoded from the listing only when
// asked, and is not part of the JobInfo's own JSON.
func (j JobInfo) Output() json.RawMessage {
	if len(j.metadata) == 0 {
		return nil
	}
	var m struct {
		Output json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(j.metadata, &m); err != nil || string(m.Output) == "null" {
		return nil
	}
	// Compact, so that it reads the same from every engine: PostgreSQL's
	// jsonb gives it back with spaces.
	var b bytes.Buffer
	if json.Compact(&b, m.Output) != nil {
		return m.Output
	}
	return b.Bytes()
}

// waiting are the states of a job that is waiting or running.
var waiting = []rivertype.JobState{
	rivertype.JobStatePending, rivertype.JobStateScheduled, rivertype.JobStateAvailable,
	rivertype.JobStateRunning, rivertype.JobStateRetryable,
}

// Depth counts the jobs that wait or run (pending, scheduled, available,
// running, retryable), up to limit. Unlike a count over Jobs, it does not
// read the finished jobs and what they recorded.
func (q *Queue) Depth(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(JobKind).States(waiting...).First(limit))
	if err != nil {
		return 0, fmt.Errorf("queue: counting jobs: %w", err)
	}
	return len(res.Jobs), nil
}

// Jobs lists up to limit jobs, the newest first, in any state River still
// keeps (see Options.Retention).
func (q *Queue) Jobs(ctx context.Context, limit int) ([]JobInfo, error) {
	if limit <= 0 {
		return nil, nil
	}
	params := river.NewJobListParams().Kinds(JobKind).First(limit).OrderBy(river.JobListOrderByID, river.SortOrderDesc)
	res, err := q.client.JobList(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("queue: listing jobs: %w", err)
	}
	out := make([]JobInfo, 0, len(res.Jobs))
	for _, r := range res.Jobs {
		out = append(out, infoOf(r))
	}
	return out, nil
}

// Job returns the job with the id, as Jobs lists it.
func (q *Queue) Job(ctx context.Context, id int64) (JobInfo, error) {
	r, err := q.client.JobGet(ctx, id)
	if err != nil {
		return JobInfo{}, fmt.Errorf("queue: job %d: %w", id, err)
	}
	return infoOf(r), nil
}

// JobOfMessage returns the newest job of the message (a comment's id,
// Args.Message) on the review t, and whether there is one: the job a
// redelivery of the message would make again, whatever its delivery id,
// whatever process or restart came between. A job cancelled or discarded
// is none (a redelivery may run it again, as River's uniqueness lets it),
// nor is a decide job, which waits to make the message's job.
func (q *Queue) JobOfMessage(ctx context.Context, t review.Target, message string) (JobInfo, bool, error) {
	if message == "" {
		return JobInfo{}, false, nil
	}
	query := `SELECT id FROM river_job WHERE kind = $1 AND json_extract(args, '$.review') = $2 AND json_extract(args, '$.message') = $3
		AND json_extract(args, '$.command') <> $4 AND state NOT IN ('cancelled', 'discarded') ORDER BY id DESC LIMIT 1`
	if q.db.Engine == "postgres" {
		query = `SELECT id FROM river_job WHERE kind = $1 AND args->>'review' = $2 AND args->>'message' = $3
		AND args->>'command' <> $4 AND state NOT IN ('cancelled', 'discarded') ORDER BY id DESC LIMIT 1`
	}
	var id int64
	err := q.exec.QueryRow(ctx, query, JobKind, t.String(), message, CommandDecide).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows):
		return JobInfo{}, false, nil
	case err != nil:
		return JobInfo{}, false, fmt.Errorf("queue database %s: the job of message %s: %w", q.db, message, db.Scrub(err, q.db))
	}
	info, err := q.Job(ctx, id)
	return info, err == nil, err
}

// infoOf is River's row as a JobInfo.
func infoOf(r *rivertype.JobRow) JobInfo {
	info := JobInfo{
		ID:          r.ID,
		Kind:        r.Kind,
		State:       string(r.State),
		Attempt:     r.Attempt,
		MaxAttempts: r.MaxAttempts,
		Errors:      attemptErrors(r.Errors),
		CreatedAt:   r.CreatedAt,
		ScheduledAt: r.ScheduledAt,
		metadata:    r.Metadata,
	}
	if r.AttemptedAt != nil {
		info.AttemptedAt = *r.AttemptedAt
	}
	if r.FinalizedAt != nil {
		info.FinalizedAt = *r.FinalizedAt
	}
	if r.Kind == JobKind {
		// The identity only: the request (its patches) is not
		// decoded into the listing.
		var id struct {
			Review   string `json:"review"`
			Revision string `json:"revision"`
			Reply    string `json:"reply"`
			Command  string `json:"command"`
			Options  string `json:"options"`
			Who      string `json:"who"`
			Delivery string `json:"delivery"`
		}
		// As text, not as Args: a job stored by an older patchbot,
		// which may not decode as Args, is listed too.
		if err := json.Unmarshal(r.EncodedArgs, &id); err == nil {
			info.Review, info.Revision, info.Command, info.Options, info.Who = id.Review, cmp.Or(id.Revision, id.Reply), id.Command, id.Options, id.Who
			info.Delivery = id.Delivery
		}
	}
	return info
}
