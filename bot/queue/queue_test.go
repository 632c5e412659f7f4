package queue

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// waitLimit bounds every wait for the queue to do something; the waits
// end as soon as it is done. River's scheduler moves retried jobs to
// available every 5 s, so a retry takes some seconds. It guards against a
// hang, not against slowness: these machines are noisy, and speed is for
// benchmarks to state.
const waitLimit = 2 * time.Minute

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// open opens a queue on path and stops it when the test ends.
func open(t *testing.T, path string, opts Options) *Queue {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	q, err := Open(t.Context(), path, &opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), waitLimit)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop (hung, if the context ended after %v): %v", waitLimit, err)
		}
	})
	return q
}

func start(t *testing.T, q *Queue) {
	t.Helper()
	if err := q.Start(t.Context()); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// dbURL returns the -db URL of a new, empty queue database: a SQLite file,
// or with PATCHBOT_QUEUE_TEST_ENGINE=postgres (scripts/test runs the
// package so a second time) a database of its own on the test PostgreSQL.
func dbURL(t *testing.T) string {
	if os.Getenv("PATCHBOT_QUEUE_TEST_ENGINE") == "postgres" {
		return postgresDB(t)
	}
	return "sqlite:" + filepath.Join(t.TempDir(), "queue.db")
}

// args is a valid job: the built-in example, for a GitHub pull request,
// bound to revision(name).
func args(name string) *Args {
	return &Args{
		Review:   target("github:golang/go#8311"),
		Revision: revision(name),
		Command:  "bench",
		Who:      "gopher",
		Delivery: "delivery-" + name,
	}
}

// revision is a valid revision of a pull request, one for each name: the
// name's SHA-1 as its head commit. A test tells its jobs apart by it.
func revision(name string) review.Revision {
	return review.Revision{Commit: fmt.Sprintf("%x", sha1.Sum([]byte(name)))}
}

func insert(t *testing.T, q *Queue, a *Args) InsertResult {
	t.Helper()
	res, err := q.Insert(t.Context(), a)
	if err != nil {
		t.Fatalf("Insert(%s): %v", a, err)
	}
	return res
}

// jobInfo returns the job id as Jobs lists it.
func jobInfo(t *testing.T, q *Queue, id int64) (JobInfo, bool) {
	t.Helper()
	jobs, err := q.Jobs(t.Context(), 100)
	if err != nil {
		t.Fatalf("Jobs: %v", err)
	}
	for _, j := range jobs {
		if j.ID == id {
			return j, true
		}
	}
	return JobInfo{}, false
}

// waitState waits until job id is in state, and returns it.
func waitState(t *testing.T, q *Queue, id int64, state string) JobInfo {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		j, ok := jobInfo(t, q, id)
		if ok && j.State == state {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("hung: job %d never reached state %s within %v: last seen %+v (listed: %v)", id, state, waitLimit, j, ok)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// recv waits for a value from c.
func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("hung: no %s within %v", what, waitLimit)
		panic("unreachable")
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{Timeout: time.Hour, RescueAfter: time.Hour},
		{Timeout: time.Hour, RescueAfter: time.Minute},
		{Timeout: -1},
		{MaxAttempts: -1},
	} {
		if _, err := Open(t.Context(), dbURL(t), &o); err == nil {
			t.Errorf("Open with %+v: no error", o)
		}
	}
	o, err := (&Options{Timeout: time.Hour}).withDefaults()
	if err != nil || o.RescueAfter != time.Hour+DefaultRescueMargin || o.MaxAttempts != DefaultMaxAttempts {
		t.Errorf("defaults for a one-hour timeout: %+v, %v", o, err)
	}
	// The rescue margin scales with the timeout, between 30 s and 5
	// minutes.
	for _, tt := range []struct{ timeout, rescue time.Duration }{
		{0, 35 * time.Minute}, // the default timeout
		{time.Second, 31 * time.Second},
		{15 * time.Second, 45 * time.Second},
		{30 * time.Second, time.Minute},
		{2 * time.Minute, 4 * time.Minute},
		{5 * time.Minute, 10 * time.Minute},
		{10 * time.Minute, 15 * time.Minute},
		{DefaultTimeout, DefaultTimeout + DefaultRescueMargin},
	} {
		o, err := (&Options{Timeout: tt.timeout}).withDefaults()
		if err != nil || o.RescueAfter != tt.rescue {
			t.Errorf("timeout %v: rescue after %v, %v; want %v", tt.timeout, o.RescueAfter, err, tt.rescue)
		}
	}
}

// TestOpenTwice opens one file twice in a row: the second Open runs the
// migrations again, which do nothing, and sees the first one's job.
func TestOpenTwice(t *testing.T) {
	t.Parallel()
	path := dbURL(t)
	q := open(t, path, Options{})
	id := insert(t, q, args("1")).ID
	if err := q.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	q = open(t, path, Options{})
	if j, ok := jobInfo(t, q, id); !ok || j.State != "available" {
		t.Fatalf("job %d after reopening: %+v, %v", id, j, ok)
	}
}

func TestWorkedOnce(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	got := make(chan *Job, 10)
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		runs.Add(1)
		got <- j
		return nil
	}})
	a := args("5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c")
	a.Request = job.Request{Steps: []string{job.StepFreeze}, Branch: "release-branch.go1.4"}
	res := insert(t, q, a)
	if res.Duplicate || res.State != "available" {
		t.Fatalf("Insert = %+v", res)
	}
	start(t, q)

	j := recv(t, got, "job for the handler")
	if j.ID != res.ID || j.Attempt != 1 || j.MaxAttempts != DefaultMaxAttempts {
		t.Errorf("handler got job %d attempt %d of %d; want %d, 1 of %d", j.ID, j.Attempt, j.MaxAttempts, res.ID, DefaultMaxAttempts)
	}
	if j.Args.Review.String() != a.Review.String() || j.Args.Who != "gopher" || j.Args.Request.Branch != "release-branch.go1.4" {
		t.Errorf("handler got args %+v; want %+v", j.Args, *a)
	}
	info := waitState(t, q, res.ID, "completed")
	if info.Attempt != 1 || runs.Load() != 1 {
		t.Errorf("completed after attempt %d, %d runs; want 1, 1", info.Attempt, runs.Load())
	}
	if want := info.AttemptedAt.Add(DefaultTimeout + DefaultRescueMargin); !j.RescueAt.Equal(want) {
		t.Errorf("handler's job is rescued at %v; want %v, its start plus the rescue delay", j.RescueAt, want)
	}
	want := JobInfo{ID: res.ID, Kind: JobKind, Review: a.Review.String(), Revision: a.Revision.String(), Command: "bench", Who: "gopher", State: "completed", Attempt: 1, MaxAttempts: DefaultMaxAttempts, Delivery: a.Delivery}
	info.CreatedAt, info.ScheduledAt = time.Time{}, time.Time{}
	if info.AttemptedAt.IsZero() || info.FinalizedAt.IsZero() {
		t.Errorf("times not recorded: %+v", info)
	}
	info.AttemptedAt, info.FinalizedAt = time.Time{}, time.Time{}
	info.metadata = nil
	if fmt.Sprint(info) != fmt.Sprint(want) {
		t.Errorf("Jobs lists\n%+v\nwant\n%+v", info, want)
	}
}

func TestDuplicate(t *testing.T) {
	t.Parallel()
	q := open(t, dbURL(t), Options{}) // insert only: nothing runs the jobs
	first := insert(t, q, args("abc"))

	again := args("abc")
	again.Who, again.Delivery = "another reviewer", "redelivery" // not part of the identity
	dup := insert(t, q, again)
	if !dup.Duplicate || dup.ID != first.ID {
		t.Errorf("second insert of the same (review, revision, command) = %+v; want a duplicate of job %d", dup, first.ID)
	}

	other := []*Args{args("def"), args("abc"), args("abc")}
	other[1].Command = "freeze"
	other[2].Review = target("gerrit:go-review.googlesource.com:12345")
	other[2].Revision.PatchSet = 1 // the same commit, as a change's patch set
	for _, a := range other {
		if res := insert(t, q, a); res.Duplicate || res.ID == first.ID {
			t.Errorf("Insert(%s) = %+v; want a new job", a, res)
		}
	}
	jobs, err := q.Jobs(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 4 {
		t.Errorf("Jobs lists %d jobs; want 4: %+v", len(jobs), jobs)
	}
	if len(jobs) > 0 && jobs[len(jobs)-1].ID != first.ID {
		t.Errorf("Jobs is not newest first: %+v", jobs)
	}
}

func TestInsertRefusesInvalid(t *testing.T) {
	t.Parallel()
	q := open(t, dbURL(t), Options{})
	rev := revision("1")
	ps := review.Revision{PatchSet: 1, Commit: rev.Commit}
	reply := replyArgs("1")
	bad := map[string]*Args{
		"no review":     {Revision: rev, Command: "bench"},
		"no revision":   {Review: target("github:golang/go#1"), Command: "bench"},
		"no command":    {Review: target("github:golang/go#1"), Revision: rev},
		"bench.count":   {Review: target("github:golang/go#1"), Revision: rev, Command: "bench", Request: job.Request{Bench: job.BenchSettings{Count: -1}}},
		"unknown steps": {Review: target("github:golang/go#1"), Revision: rev, Command: "bench", Request: job.Request{Steps: []string{"deploy"}}},
		"both reviews": {Review: review.Target{GitHub: target("github:golang/go#1").GitHub, Gerrit: target("gerrit:go-review.googlesource.com:1").Gerrit},
			Revision: rev, Command: "bench"},
		"a patch set on GitHub":           {Review: target("github:golang/go#1"), Revision: ps, Command: "bench"},
		"no patch set on Gerrit":          {Review: target("gerrit:go-review.googlesource.com:1"), Revision: rev, Command: "bench"},
		"a run with a reply key":          {Review: target("github:golang/go#1"), Revision: rev, Reply: MessageKey("1"), Command: "bench"},
		"a run with no revision":          {Review: target("github:golang/go#1"), Reply: MessageKey("1"), Command: "bench"},
		"a reply with a revision":         {Review: reply.Review, Revision: rev, Reply: reply.Reply, Command: "help", Request: reply.Request},
		"a reply with a revision, no key": {Review: reply.Review, Revision: rev, Command: "help", Request: reply.Request},
		"a reply with no key":             {Review: reply.Review, Command: "help", Request: reply.Request},
		"a reply key of no kind":          {Review: reply.Review, Reply: "comment:1", Command: "help", Request: reply.Request},
		"a reply key with no id":          {Review: reply.Review, Reply: "message:", Command: "help", Request: reply.Request},
	}
	// A review that is not one is refused where the arguments are read.
	var a Args
	if err := json.Unmarshal([]byte(`{"review":"gitlab:x/y!1","revision":"`+rev.String()+`","command":"bench"}`), &a); err == nil || !strings.Contains(err.Error(), "github:OWNER/REPO#N") {
		t.Errorf("decoding a job for gitlab:x/y!1: %v; want an error saying what a review looks like", err)
	}
	for name, a := range bad {
		if res, err := q.Insert(t.Context(), a); err == nil {
			t.Errorf("%s: Insert = %+v; want an error", name, res)
		}
	}
	var fe *remedy.FieldError
	if _, err := q.Insert(t.Context(), bad["bench.count"]); !errors.As(err, &fe) || fe.Field != "bench.count" {
		t.Errorf("Insert of a bad request: %v; want the *remedy.FieldError", err)
	}
	if jobs, _ := q.Jobs(t.Context(), 10); len(jobs) != 0 {
		t.Errorf("refused jobs were queued: %+v", jobs)
	}
}

func TestRetry(t *testing.T) {
	t.Parallel()
	attempts := make(chan int, 10)
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		attempts <- j.Attempt
		if j.Attempt == 1 {
			return errors.New("gerrit: 503 Service Unavailable")
		}
		if len(j.Errors) != 1 || !strings.Contains(j.Errors[0].Error, "503") {
			return Permanent(fmt.Errorf("attempt %d sees errors %+v; want the first attempt's", j.Attempt, j.Errors))
		}
		return nil
	}})
	id := insert(t, q, args("1")).ID
	start(t, q)

	if a := recv(t, attempts, "first attempt"); a != 1 {
		t.Fatalf("first run is attempt %d", a)
	}
	if a := recv(t, attempts, "retry after a failure"); a != 2 {
		t.Fatalf("second run is attempt %d", a)
	}
	info := waitState(t, q, id, "completed")
	if info.Attempt != 2 || len(info.Errors) != 1 || info.Errors[0].Attempt != 1 || !strings.Contains(info.Errors[0].Error, "503") {
		t.Errorf("after one failure and a retry: %+v", info)
	}
	if len(attempts) != 0 {
		t.Errorf("%d more runs after the job completed", len(attempts))
	}
}

func TestPermanentIsCancelled(t *testing.T) {
	t.Parallel()
	errs := map[review.Revision]error{
		revision("1"): Permanent(errors.New("change 12345 is gone")),
		revision("2"): fmt.Errorf("preparing: %w", &remedy.FieldError{Field: "gerrit.server", Reason: "not in the configuration"}),
	}
	var runs atomic.Int32
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		runs.Add(1)
		return errs[j.Args.Revision]
	}})
	var ids []int64
	for _, name := range []string{"1", "2"} {
		ids = append(ids, insert(t, q, args(name)).ID)
	}
	start(t, q)
	for _, id := range ids {
		info := waitState(t, q, id, "cancelled")
		if info.Attempt != 1 || len(info.Errors) != 1 {
			t.Errorf("cancelled job: %+v; want one attempt, one error", info)
		}
	}
	if n := runs.Load(); n != int32(len(ids)) {
		t.Errorf("%d runs for %d jobs with permanent errors", n, len(ids))
	}
}

// TestStop stops a queue while a job runs: the job's context is cancelled
// after the grace period, the job goes back to the queue without using up
// an attempt, and the next queue on the file runs it.
func TestStop(t *testing.T) {
	t.Parallel()
	path := dbURL(t)
	running := make(chan *Job, 1)
	q, err := Open(t.Context(), path, &Options{
		Logger: testLogger(t),
		Grace:  100 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			running <- j
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := insert(t, q, args("1")).ID
	start(t, q)
	recv(t, running, "running job")

	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := q.Stop(ctx); err != nil {
		t.Fatalf("Stop (hung, if the context ended after %v): %v", waitLimit, err)
	}

	done := make(chan *Job, 1)
	q = open(t, path, Options{Handler: func(ctx context.Context, j *Job) error {
		done <- j
		return nil
	}})
	if info, _ := jobInfo(t, q, id); info.State != "available" || info.Attempt != 0 {
		t.Errorf("job after Stop interrupted it: %+v; want available, no attempt used", info)
	}
	start(t, q)
	if j := recv(t, done, "job interrupted by Stop, in the next queue"); j.ID != id || j.Attempt != 1 {
		t.Errorf("next queue ran job %d attempt %d; want %d attempt 1", j.ID, j.Attempt, id)
	}
	waitState(t, q, id, "completed")
}

// TestReopen inserts jobs with one queue and works them with the next.
func TestReopen(t *testing.T) {
	t.Parallel()
	path := dbURL(t)
	q := open(t, path, Options{})
	var ids []int64
	for _, rev := range []string{"1", "2", "3"} {
		ids = append(ids, insert(t, q, args(rev)).ID)
	}
	if err := q.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Insert(t.Context(), args("4")); err == nil {
		t.Error("Insert after Stop: no error")
	}

	worked := make(chan int64, 10)
	q = open(t, path, Options{Handler: func(ctx context.Context, j *Job) error {
		worked <- j.ID
		return nil
	}})
	start(t, q)
	var got []int64
	for range ids {
		got = append(got, recv(t, worked, "job inserted by the previous queue"))
	}
	slices.Sort(got)
	if !slices.Equal(got, ids) {
		t.Errorf("worked %v; want %v", got, ids)
	}
	for _, id := range ids {
		waitState(t, q, id, "completed")
	}
}

func TestStartNeedsHandler(t *testing.T) {
	t.Parallel()
	q := open(t, dbURL(t), Options{})
	if err := q.Start(t.Context()); err == nil {
		t.Error("Start without a handler: no error")
	}
}

// TestDepth counts the jobs that wait or run, not the finished ones.
func TestDepth(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		if j.Args.Revision == revision("slow") {
			<-release
		}
		return nil
	}})
	defer close(release) // before the queue's Stop, which waits for it
	done := insert(t, q, args("done")).ID
	start(t, q)
	waitState(t, q, done, "completed")
	waitState(t, q, insert(t, q, args("slow")).ID, "running")
	insert(t, q, args("waits"))
	insert(t, q, args("waits too"))
	for limit, want := range map[int]int{10: 3, 2: 2, 0: 0} {
		if n, err := q.Depth(t.Context(), limit); n != want || err != nil {
			t.Errorf("Depth(%d) = %d, %v; want %d: the running job and the two waiting", limit, n, err, want)
		}
	}
}

// replyArgs is a valid reply job: a help text to post on a pull request.
func replyArgs(id string) *Args {
	return &Args{
		Review: target("github:golang/go#8311"), Reply: MessageKey(id), Command: "help", Who: "gopher",
		Request: job.Request{
			Steps:  []string{job.StepPost},
			GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("golang/go#8311")},
			Post:   job.PostSettings{Kind: "help-" + id, Text: "help"},
		},
	}
}

// TestReplyQueue: a reply, and a freeze answer (a job that runs no
// benchmark), are posted while a benchmark job holds the only worker,
// from a queue of their own; with no run workers, run jobs wait and
// replies go on, and with no reply workers the other way round.
func TestReplyQueue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                  string
		workers, replyWorkers int
		runDone, replyDone    bool
	}{
		{"both", 1, 0, false, true}, // the run job is held until the reply is done
		{"replies only", -1, 0, false, true},
		{"runs only", 1, -1, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			q := open(t, dbURL(t), Options{Workers: tc.workers, ReplyWorkers: tc.replyWorkers, Handler: func(ctx context.Context, j *Job) error {
				if j.Args.Benchmarks() && tc.name == "both" {
					select {
					case <-release:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				return nil
			}})
			run := insert(t, q, args("r1")).ID
			reply := insert(t, q, replyArgs("1")).ID
			fa := args("f1")
			fa.Command, fa.Request.Steps = "freeze", []string{job.StepFreeze, job.StepPost}
			freeze := insert(t, q, fa).ID // runs no benchmark: a reply's queue
			start(t, q)
			if tc.replyDone {
				waitState(t, q, reply, "completed")
				waitState(t, q, freeze, "completed")
			}
			if tc.runDone {
				waitState(t, q, run, "completed")
			}
			close(release)
			time.Sleep(2 * time.Second) // what should not run has had its chance
			for id, done := range map[int64]bool{run: tc.runDone || tc.name == "both", reply: tc.replyDone, freeze: tc.replyDone} {
				j, _ := jobInfo(t, q, id)
				if got := j.State == "completed"; got != done {
					t.Errorf("job %d (%s): state %s, want completed %v", id, j.Command, j.State, done)
				}
			}
		})
	}
}

// target parses a review target a test names.
func target(s string) review.Target {
	t, err := review.ParseTarget(s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestJobOfMessage: the job of a message is found by the message's id and
// review, whatever delivery carried it; another message, or the same id
// on another review, has none.
func TestJobOfMessage(t *testing.T) {
	t.Parallel()
	q := open(t, dbURL(t), Options{})
	// A decide job of the message, waiting to make its job, is none.
	dj := &Args{Review: target("github:golang/go#8311"), Reply: DeferKey(1001), Command: CommandDecide, Who: "gopher", Message: "1001",
		Request:  job.Request{Steps: []string{job.StepPost}, GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("golang/go#8311")}},
		Deferred: &Deferred{Comment: 1001, Action: "created", Login: "gopher", Body: "/patchbot bench", CreatedAt: time.Now(), Until: time.Now().Add(time.Hour)}}
	if _, err := q.Insert(t.Context(), dj); err != nil {
		t.Fatal(err)
	}
	if j, ok, err := q.JobOfMessage(t.Context(), dj.Review, "1001"); ok || err != nil {
		t.Errorf("JobOfMessage with only a decide job = %+v, %v, %v; want none", j, ok, err)
	}
	a := args("a")
	a.Message, a.Delivery = "1001", "delivery-1"
	res, err := q.Insert(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	j, ok, err := q.JobOfMessage(t.Context(), a.Review, "1001")
	if err != nil || !ok || j.ID != res.ID {
		t.Errorf("JobOfMessage(1001) = %+v, %v, %v; want job %d", j, ok, err, res.ID)
	}
	for _, c := range []struct {
		review  string
		message string
	}{{"github:golang/go#8311", "1002"}, {"github:golang/go#1", "1001"}, {"github:golang/go#8311", ""}} {
		if j, ok, err := q.JobOfMessage(t.Context(), target(c.review), c.message); ok || err != nil {
			t.Errorf("JobOfMessage(%s, %q) = %+v, %v, %v; want none", c.review, c.message, j, ok, err)
		}
	}
}
