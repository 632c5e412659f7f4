// Package work is the worker of patchbot serve: the queue's handler that
// runs a queued job. It fetches the revision the job is bound to into a
// work area of its own (Areas), benchmarks it against its parent with
// the job library, and replies on the review once; or posts a help or
// refusal text. What a finished job left, the reply's link and a bench
// job's result, it records in the queue with the job (Output).
//
// It sits beside bot/serve and bot/poll rather than under
// serve: those two put jobs into the queue, this takes them out, and
// none of them imports another. Credentials stay in this process (the
// review clients, Env.Clients); the fetches and the benchmarks run
// without them.
package work

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/track"
)

// A Worker runs queued jobs: Handle is its queue.Handler.
type Worker struct {
	// Areas are the work areas the jobs fetch into.
	Areas *Areas
	// Config is patchbot's configuration; nil is the built-in one.
	Config *config.Config
	// Env is where the job logs, and Env.Clients are the review
	// clients the worker reads the reviews with and replies with; nil
	// makes them once, from the configuration and Env.Getenv's
	// credentials. Env.Runner wraps the benchmarks' processes. The
	// worker takes Env as it is at its first job.
	Env job.Env
	// Tracks is the store track jobs record in (HandleTrack), the
	// queue's database's; TrackQueue takes the bisection jobs a track
	// job finds (nil: the track job bisects itself).
	Tracks     *track.Store
	TrackQueue TrackInserter
	// Parts, when set, splits a bench job of several packages into one
	// job a package on it, so that they run on every worker of every
	// process on the queue, and merges their results into the job's
	// one reply (parts.go); nil runs them all in the one job.
	Parts PartQueue

	once sync.Once
	env  job.Env // Env, with its Clients
}

// jobEnv returns the Env of the jobs: Env, with the review clients made
// once when it has none.
func (w *Worker) jobEnv() job.Env {
	w.once.Do(func() {
		w.env = w.Env
		if w.env.Clients == nil {
			cfg := w.Config
			if cfg == nil {
				cfg = config.Default()
			}
			w.env.Clients = job.NewClients(cfg, w.env.Getenv, false, w.env.Log)
		}
	})
	return w.env
}

var _ queue.Handler = (*Worker)(nil).Handle

// Handle runs one job: a post-only job (help, refusal) posts its text;
// a run job is fetched, run and replied to. An error that running again
// cannot mend (a request that is not valid, a package that does not
// exist, a fetch that is not the bound commit, a base branch that is not
// one, missing credentials, a review that is gone: hopeless) is
// queue.Permanent; the rest (a fetch, a server that did not answer, a
// benchmark that failed) are retried. Every
// reply is posted once, however often the job runs: a run job that fails
// for good (a permanent error, or any on its last attempt) is answered
// with a failure reply instead of its result (replyFailure).
func (w *Worker) Handle(ctx context.Context, j *queue.Job) error {
	a := &j.Args
	req := a.Request // a copy: the queued job stays as it was
	if slices.Equal(req.Steps, []string{job.StepPost}) {
		// Help and refusals: a text, posted once by its kind.
		res, err := job.Post(ctx, &req, w.Config, w.jobEnv())
		if res != nil && len(res.Posts) > 0 {
			w.record(j, &Output{URL: replyURL(res.Posts)})
		}
		return classify(waitForLimit(err))
	}
	res, err := w.run(ctx, j, req)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The job's time ran out: a benchmark that hangs, or one far
		// slower than the limit allows, would do so on every attempt,
		// holding a worker each time. Answered once, naming the limit
		// and (in the bench error) the benchmark that was running.
		err = queue.Permanent(&TimeoutError{Limit: j.Timeout, Err: err})
	}
	var measured *benchrun.Result // kept with the failure reply: the status page shows it
	if err != nil && res != nil && (res.Post == nil || len(res.Post.Posts) == 0) {
		// Failed before its reply: recorded with the failure's.
		measured, res = res.Bench, nil
	}
	if res != nil {
		o := &Output{Bench: res.Bench}
		if res.Post != nil {
			o.URL = replyURL(res.Post.Posts)
		}
		w.record(j, o)
	}
	if err == nil || queue.IsSnooze(err) || !final(j, err) {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		// Stopped, not failed: the queue puts the job back.
		return err
	}
	if a.Part != nil && w.Parts != nil {
		// One package of several: the whole's reply says it failed,
		// beside the others' results.
		url, perr := w.partFailed(ctx, j, err)
		if perr != nil {
			return classify(fmt.Errorf("work: %s: posting that it failed (%q): %w", a, errorLine(err.Error()), perr))
		}
		if url != "" {
			w.record(j, &Output{URL: url, Bench: measured})
		}
		return err
	}
	posted, perr := w.replyFailure(ctx, j, err)
	if perr != nil {
		// Not the job's error: that one may be permanent, and the
		// reply must be tried again.
		return classify(fmt.Errorf("work: %s: posting the failure reply to %q: %w", a, errorLine(err.Error()), perr))
	}
	if posted != nil && len(posted.Posts) > 0 {
		w.record(j, &Output{URL: replyURL(posted.Posts), Bench: measured})
	}
	return err
}

// final reports whether err ends the job: a permanent error, or any on
// the last attempt. A Job with no MaxAttempts (made by hand) is on its
// last.
func final(j *queue.Job, err error) bool {
	return queue.IsPermanent(err) || j.Attempt >= j.MaxAttempts
}

// run runs a run job on req, a copy of its request. The result is the
// job library's when it ran to the end (the reply is posted), even if
// cleaning up after it failed; nil when it did not.
func (w *Worker) run(ctx context.Context, j *queue.Job, req job.Request) (*job.Result, error) {
	a := &j.Args
	if len(req.Steps) == 0 || slices.Contains(req.Steps, job.StepPort) {
		return nil, queue.Permanent(fmt.Errorf("work: %s: a review's job runs bench, freeze and post, not %q", a, req.Steps))
	}
	if req.Repo != "" || req.Base != "" || req.Head != "" {
		// The server's, from the review: never from the queue's data.
		return nil, queue.Permanent(fmt.Errorf("work: %s: the request names a repository or revisions; the worker finds them from the review", a))
	}
	b, err := w.bind(ctx, a, &req)
	if err != nil {
		return nil, classify(err)
	}
	// The project is where the review server keeps the repository: a
	// freeze policy governs only its own (freeze.projects).
	req.Project = job.ProjectOf(b.src.URL)
	var co *Checkout
	if slices.Contains(req.Steps, job.StepBench) {
		// Only the benchmarks need the code: a freeze answer is the
		// branch's, and fetches nothing.
		if co, err = w.Areas.Checkout(ctx, b.src); err != nil {
			return nil, classify(err)
		}
		defer co.Close()
		req.Repo, req.Base, req.Head = co.Dir, co.Base, co.Head
	}

	asReply(a, &req)
	env := w.jobEnv()
	if co != nil {
		// Which head was measured; a freeze answer measures nothing,
		// and is the branch's whatever the head.
		env.Note = b.note
	}
	if prev, err := ReadOutput(j.Previous); err == nil && prev != nil {
		env.Measured = prev.Bench // an earlier attempt's, whose reply waited
	}
	if co != nil && w.Parts != nil && (a.Review.GitHub != nil || a.Review.Gerrit != nil) {
		if a.Part != nil {
			return nil, classify(w.runPart(ctx, j, req, env))
		}
		if env.Measured == nil {
			split, err := w.split(ctx, j, &req, &env)
			if err != nil {
				return nil, classify(err)
			}
			if split {
				return nil, classify(co.Close())
			}
		}
	}
	res, err := job.Run(ctx, &req, w.Config, env)
	if err != nil {
		if err := waitForLimit(err); queue.IsSnooze(err) {
			if res != nil && res.Bench != nil {
				// Kept for the attempt after the wait, which posts
				// it without running the benchmarks again.
				w.record(j, &Output{Bench: res.Bench})
			}
			return nil, err
		}
		// What it did get to (the bench result, when the post
		// failed), for the failure's record.
		return res, classify(err)
	}
	if co == nil {
		return res, nil
	}
	return res, classify(co.Close())
}

// asReply makes req, a run job's request, post the job's reply: of its
// kind, saying the command it answers; and, a command asking, tagging
// nothing (the change's hashtags are the author's and the release
// tooling's).
func asReply(a *queue.Args, req *job.Request) {
	req.Post.Kind = ReplyKind(a)
	req.Post.Asked = asked(a)
	req.Freeze.NoTag = true
}

// ReplyKind is the kind of a run job's reply (review.Message):
// ReplyPrefix(command) and ten hex digits of the job's identity, the
// revision it is bound to and its options, as the queue keys it. So
// every job has a reply of its own, which no other job's result or
// failure edits or keeps off the patch set (Gerrit posts once per patch
// set and kind), and a job run again, or asked again by a redelivery or a
// second reviewer, finds and edits its own.
func ReplyKind(a *queue.Args) string {
	h := sha256.Sum256([]byte(a.Revision.String() + "\x00" + a.Options))
	return ReplyPrefix(a.Command) + hex.EncodeToString(h[:5])
}

// ReplyPrefix is how the kind of every reply to command begins:
// "serve-bench-". A reply of a patchbot before ReplyKind had its job's
// identity is of kind "serve-bench", the prefix less its dash.
func ReplyPrefix(command string) string { return "serve-" + command + "-" }

// asked is the command a job answers and who asked, for its reply: the
// asker's login or account name, left out when it is an e-mail address
// (a Gerrit account without a username), which the reply would publish.
func asked(a *queue.Args) *job.Asked {
	who := a.Who
	if strings.Contains(who, "@") {
		who = ""
	}
	return &job.Asked{Command: commandLine(a), Who: who}
}

// commandLine is the command a job answers, as its comment wrote it
// normalised: "/patchbot bench -count 5 ./codec".
func commandLine(a *queue.Args) string {
	return strings.TrimSpace("/patchbot " + a.Command + " " + a.Options)
}

// A binding is a job's revision, found from the review: what to fetch,
// and how to say at reply time that a newer one exists.
type binding struct {
	src  Source
	note func(ctx context.Context) (string, error)
}

func (w *Worker) bind(ctx context.Context, a *queue.Args, req *job.Request) (*binding, error) {
	clients := w.jobEnv().Clients
	cfg := w.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if err := checkTarget(a, req, cfg); err != nil {
		return nil, err
	}
	switch {
	case a.Review.GitHub != nil:
		pr := *a.Review.GitHub // the request's, as checkTarget checked
		gh, err := clients.GitHub()
		if err != nil {
			return nil, &job.SetupError{Field: "github", Err: err}
		}
		// The webhook keeps the base branch and the repository's URL
		// it read with the head (job.Request.Branch and GitHub); a job
		// queued without them reads them here.
		clone := req.GitHub.CloneURL
		if req.Branch == "" || clone == "" {
			head, err := gh.PullRequestHead(ctx, pr)
			if err != nil {
				return nil, err
			}
			req.Branch, clone = cmp.Or(req.Branch, head.Base), head.CloneURL
		}
		if clone == "" {
			return nil, fmt.Errorf("GitHub named no git URL for %s (base.repo.clone_url): nothing to fetch it from", pr)
		}
		bound := a.Revision.Commit // a head commit, as checkTarget checked
		return &binding{
			src: Source{
				URL:        clone,
				Ref:        "refs/pull/" + strconv.Itoa(pr.Number) + "/head",
				Commit:     bound,
				BaseBranch: req.Branch,
			},
			note: func(ctx context.Context) (string, error) {
				now, err := gh.PullRequestHead(ctx, pr)
				if err != nil {
					return "", err
				}
				var note string
				if req.GitHub.Unverified {
					// The webhook had no pull_request event for this
					// head: it cannot say the reviewer saw it.
					note = fmt.Sprintf("Measured %s, the pull request's head when patchbot read it for this command; patchbot has no record of when it was pushed, so it may be newer than the command.", bound)
				}
				if now.SHA != bound {
					note = strings.TrimSpace(note + fmt.Sprintf(" Measured %s, the head when this was asked; the pull request's head is now %s: ask again to measure it.", bound, now.SHA))
				}
				return note, nil
			},
		}, nil

	default:
		// Checked by checkTarget.
		g := req.Gerrit
		psn, commit := a.Revision.PatchSet, a.Revision.Commit
		change := a.Review.Gerrit.Number // the request's, as checkTarget checked
		server := gerritServer(g, cfg)
		gc, err := clients.Gerrit(server)
		if err != nil {
			return nil, &job.SetupError{Field: "gerrit", Err: err}
		}
		read := func(ctx context.Context) (*review.ChangeMessages, error) {
			cs, err := gc.ChangesUpdatedSince(ctx, "change:"+strconv.Itoa(change), time.Time{}, 1)
			if err != nil {
				return nil, err
			}
			if len(cs) != 1 || cs[0].Number != change {
				return nil, queue.Permanent(fmt.Errorf("work: %s: change %d is not on %s (or not visible)", a, change, server))
			}
			return &cs[0], nil
		}
		c, err := read(ctx)
		if err != nil {
			return nil, err
		}
		if c.Commits[psn] != commit {
			return nil, &BindingError{Ref: fmt.Sprintf("patch set %d of change %d", psn, change), Want: commit, Got: c.Commits[psn]}
		}
		if req.Branch == "" {
			req.Branch = c.Branch
		}
		if req.Branch != "" {
			// Not fetched (the base is the patch set's parent), but
			// the freeze step and the reply name it.
			if err := checkBranch(ctx, req.Branch); err != nil {
				return nil, err
			}
		}
		return &binding{
			src: Source{
				URL:    strings.TrimSuffix(server, "/") + "/" + c.Project,
				Ref:    fmt.Sprintf("refs/changes/%02d/%d/%d", change%100, change, psn),
				Commit: commit,
				Exact:  true,
			},
			note: func(ctx context.Context) (string, error) {
				c, err := read(ctx)
				if err != nil {
					return "", err
				}
				if c.CurrentPatchSet <= psn {
					return "", nil
				}
				return fmt.Sprintf("Measured patch set %d (%s); patch set %d is newer: ask again on it to measure it.", psn, abbrev.Hash(commit), c.CurrentPatchSet), nil
			},
		}, nil
	}
}

// checkTarget checks that req's review target is the job's review and
// revision, so that the job's replies, its result or its failure, go
// there and nowhere else.
func checkTarget(a *queue.Args, req *job.Request, cfg *config.Config) error {
	switch {
	case a.Review.GitHub != nil && req.GitHub != nil:
		if req.GitHub.PullRequest != *a.Review.GitHub || a.Revision.IsZero() || a.Revision != (review.Revision{Commit: req.GitHub.HeadSHA}) {
			return queue.Permanent(fmt.Errorf("work: %s: the request's pull request and head (%s @ %s) are not the job's", a, req.GitHub.PullRequest, req.GitHub.HeadSHA))
		}
		return nil
	case a.Review.Gerrit != nil && req.Gerrit != nil:
		g := req.Gerrit
		if a.Revision.PatchSet <= 0 || g.Change == "" || g.Revision != a.Revision.Commit {
			return queue.Permanent(fmt.Errorf("work: %s: revision %q is not PATCHSET:COMMIT of the request's change (%s @ %s)", a, a.Revision, g.Change, g.Revision))
		}
		change, err := strconv.Atoi(g.Change)
		if err != nil || change <= 0 {
			return queue.Permanent(fmt.Errorf("work: %s: change %q: want its number", a, g.Change))
		}
		server := gerritServer(g, cfg)
		if _, err := review.CheckServerURL(server); err != nil {
			return queue.Permanent(fmt.Errorf("work: %s: %v", a, err))
		}
		if s, _ := review.ServerOf(server); s != a.Review.Gerrit.Server || change != a.Review.Gerrit.Number {
			return queue.Permanent(fmt.Errorf("work: %s: the request's server %s and change %s are not the job's", a, server, g.Change))
		}
		return nil
	}
	return queue.Permanent(fmt.Errorf("work: %s: the request has no review target of the job's review", a))
}

// gerritServer returns the URL of g's server, as review.CheckServerURL
// gives it back when it is valid.
func gerritServer(g *job.Gerrit, cfg *config.Config) string {
	server := g.Server
	if server == "" {
		server = cfg.Review.Gerrit
	}
	if s, err := review.CheckServerURL(server); err == nil {
		return s
	}
	return server
}

// classify marks the errors that running the job again cannot mend as
// permanent (hopeless), so that the job fails at once with one reply
// instead of after the queue's retries.
func classify(err error) error {
	if err == nil || !hopeless(err) {
		return err
	}
	return queue.Permanent(err)
}

// A TimeoutError is the error of a job that ran past its time limit
// (queue.Job.Timeout, serve's job timeout): not retried, since a retry
// would most likely run out of time the same way.
type TimeoutError struct {
	Limit time.Duration // 0 when unknown
	Err   error
}

func (e *TimeoutError) Error() string {
	limit := "its time limit"
	if e.Limit > 0 {
		limit = fmt.Sprintf("the server's limit of %v for a job", e.Limit)
	}
	return fmt.Sprintf("the job ran past %s: %v", limit, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// limitWait is how long a job waits for a rate limit whose server did not
// say when it resets.
const limitWait = time.Minute

// waitForLimit returns err as a wait until the limit resets
// (queue.Snooze) when a review server refused for a rate limit (GitHub's
// primary limit resets within the hour): retried as any error, the reply
// would be given up after five attempts within minutes, long before.
func waitForLimit(err error) error {
	if e, ok := errors.AsType[*review.Error](err); ok && e.RateLimited() {
		return queue.Snooze(err, cmp.Or(e.RetryAfter, limitWait))
	}
	return err
}

// hopeless reports whether err is a property of the job, the same on
// every attempt: of its request (a field that is not valid, a package
// that does not exist, a -bench that matches nothing, a revision that
// is not there), of its review (a commit that is not the bound one, a
// base branch that is not a branch or not in the repository, a review
// that is gone or refused), or of the server's configuration and
// credentials. Everything else may pass and is retried: the network, a
// review server's 5xx or rate limit, a timeout, a sandbox that did not
// start, a process killed, a side that does not build (its modules are
// downloaded), a benchmark that failed.
func hopeless(err error) bool {
	if e, ok := errors.AsType[*review.Error](err); ok && e.Permanent() {
		// Gone, forbidden, refused: the review's answer, not an outage
		// (nor a rate limit, which GitHub answers with a 403 too).
		return true
	}
	return isType[*BindingError](err) ||
		isType[*SourceError](err) ||
		isType[*remedy.FieldError](err) ||
		isType[*job.SetupError](err) ||
		isType[*config.Error](err) ||
		isType[*remedy.FieldError](err) ||
		isType[*benchrun.PackageError](err) ||
		errors.Is(err, benchrun.ErrBadRevision) ||
		errors.Is(err, benchrun.ErrNoMatch)
}

// isType reports whether err's chain holds an error of type E.
func isType[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}

var defaultGetenv = os.Getenv
