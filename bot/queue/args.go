package queue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// JobKind is the River job kind of patchbot's jobs.
const JobKind = "patchbot.job"

// Args are a queued job: its identity and the request it runs. They are
// plain data, stored as JSON in the queue; like the request, they hold no
// credentials.
//
// A job is unique per (Review, Revision or Reply, Command, Options): those
// fields carry River's `river:"unique"` tag, so a redelivered webhook or a
// comment seen again by a poller inserts nothing. A job has a Revision or
// a Reply, never both, and River leaves an absent JSON field out of the
// unique key: a run job's key is the one it had when the revision was a
// plain string. Who and Delivery say where the job came from and do not
// count.
//
// The stored JSON changed on 2 December 2026: until then "revision" was a
// string that held a reply's identity too ("message:ID", "author:ID",
// "defer:ID"), now in "reply". A run job queued by an older patchbot
// decodes as before, with the same unique key; a reply or a decide job
// queued by one does not decode ("message:ID" is not a revision), and the
// queue cancels it at its first attempt with that error rather than
// retrying it (worker.Middleware): its help or refusal is not posted, its
// deferred comment not decided. The same reply queued again is a new job,
// its key being under "reply" now: at worst one reply twice, across the
// upgrade.
type Args struct {
	// Review is the review the job answers; in JSON its text form,
	// "gerrit:SERVER:CHANGE" or "github:OWNER/REPO#N".
	Review review.Target `json:"review" river:"unique"`
	// Revision is what a run job's command was bound to: for Gerrit the
	// patch set and its commit, for GitHub the head commit; in JSON its
	// text form, "3:5a295b08…" or "5a295b08…". Zero, and absent from the
	// JSON, for a job that runs nothing (IsReply).
	Revision review.Revision `json:"revision,omitzero" river:"unique"`
	// Reply is, for a job that runs nothing (IsReply), its identity in
	// the revision's place; empty, and absent from the JSON, for a run
	// job.
	Reply ReplyKey `json:"reply,omitempty" river:"unique"`
	// Command is the comment command's name ("bench", "freeze").
	Command string `json:"command" river:"unique"`
	// Options are the command's arguments, normalised as Parse reads
	// them ("-count 10 ./codec"): a command with other options is
	// another job.
	Options string `json:"options,omitempty" river:"unique"`

	// Who asked: the reviewer's account or login.
	Who string `json:"who,omitempty"`
	// Delivery is the event that carried the command: the webhook's
	// delivery id, or the Gerrit message id.
	Delivery string `json:"delivery,omitempty"`
	// Message is the comment's or review message's id (Origin.Message):
	// a delivery of a message that has a job already, under whatever
	// delivery id and however late, is that job's (JobOfMessage).
	Message string `json:"message,omitempty"`

	// Part, for a bench job that runs one package of a comparison
	// split over the workers, is which: a part is unique apart from its
	// whole and the other parts, and absent from the JSON of every other
	// job, whose unique key it leaves as it was.
	Part *Part `json:"part,omitempty" river:"unique"`

	// Request is the job itself.
	Request job.Request `json:"request"`

	// Deferred, for a CommandDecide job, is the comment whose decision
	// waits: the webhook could not read what deciding needs (GitHub's
	// rate limit) and queued the comment, to be decided when the limit
	// has reset.
	Deferred *Deferred `json:"deferred,omitempty"`
}

// A ReplyKey is what a job that runs nothing is unique by, with its
// review and command: "message:ID" for a help reply, once per comment or
// review message (MessageKey); "author:ID" for a refusal, once per author
// and review however often they write (AuthorKey); "defer:ID" for a
// comment whose decision waits, once per comment (DeferKey).
type ReplyKey string

// MessageKey is the key of the help reply to the comment or review
// message with the id.
func MessageKey(id string) ReplyKey { return ReplyKey("message:" + review.KindPart(id)) }

// AuthorKey is the key of the refusal of author, their stable name on
// the review server.
func AuthorKey(author string) ReplyKey { return ReplyKey("author:" + review.KindPart(author)) }

// DeferKey is the key of the decide job of the GitHub comment with the id.
func DeferKey(comment int64) ReplyKey { return ReplyKey("defer:" + strconv.FormatInt(comment, 10)) }

// valid reports whether k is of one of the three kinds, with an id.
func (k ReplyKey) valid() bool {
	kind, id, ok := strings.Cut(string(k), ":")
	return ok && id != "" && (kind == "message" || kind == "author" || kind == "defer")
}

// DeferredMaxAttempts is a decide job's attempts: River's backoff after
// the tenth is past two hours in all, twice GitHub's longest limit.
const DeferredMaxAttempts = 10

// CommandDecide is the command of a job that decides on a comment later
// (Args.Deferred): it runs nothing itself, and queues what the decision
// makes (a job, a reply, nothing).
const CommandDecide = "decide"

// A Deferred is a GitHub pull-request comment as the webhook got it,
// kept to be decided on later.
type Deferred struct {
	Comment   int64     `json:"comment"` // its id
	Action    string    `json:"action"`  // "created"
	Login     string    `json:"login"`
	UserType  string    `json:"user_type"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	// Until is when to decide: when GitHub said its limit resets, or
	// when the head's pull_request event has had time to come.
	Until time.Time `json:"until"`
	// Why it waits, in words: "GitHub's rate limit", "the head's push
	// not seen yet".
	Why string `json:"why,omitempty"`
}

// Kind is River's job kind (river.JobArgs).
func (Args) Kind() string { return JobKind }

// ReplyQueue is the River queue of the reply jobs: a request whose only
// step is post (help, refusals). The run jobs are in River's default
// queue.
const ReplyQueue = "reply"

// InsertOpts are River's insert options for every job (river.JobArgsWithInsertOpts):
// unique by the tagged fields, in River's default unique states (pending,
// scheduled, available, running, retryable, completed), so a job that has
// already run is not run again while it is kept; and in its queue, by
// kind: a reply, or a job that runs no benchmark (a freeze answer), in
// ReplyQueue, the rest in River's default queue.
func (a Args) InsertOpts() river.InsertOpts {
	o := river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
	if a.IsReply() || !a.Benchmarks() {
		o.Queue = ReplyQueue
	}
	if a.Deferred != nil {
		// GitHub's limit may be spent again by the time it resets:
		// attempts enough for River's backoff (attempt⁴ seconds) to
		// span hours, so that the comment is decided, not dropped.
		o.ScheduledAt = a.Deferred.Until
		o.MaxAttempts = DeferredMaxAttempts
	}
	return o
}

// Benchmarks reports whether the job runs benchmarks: its request's steps
// hold bench, or are all of them (none named). A job that does not (a
// freeze answer: the branch's state, read from the review server and the
// calendar) runs in ReplyQueue, so that it never waits behind a
// benchmark.
func (a Args) Benchmarks() bool {
	return len(a.Request.Steps) == 0 || slices.Contains(a.Request.Steps, job.StepBench)
}

// IsReply reports whether the job only posts a text (help, a refusal), or
// decides on a comment (CommandDecide), running nothing.
func (a Args) IsReply() bool {
	return a.Command == CommandDecide || len(a.Request.Steps) == 1 && a.Request.Steps[0] == job.StepPost
}

// Validate checks the identity and the request: a job that could never
// run is refused at the door rather than retried.
func (a *Args) Validate() error {
	switch {
	case a.Review.IsZero():
		return fmt.Errorf("queue: job has no review")
	case a.Review.GitHub != nil && a.Review.Gerrit != nil:
		return fmt.Errorf("queue: job names both a pull request and a change as its review")
	case a.Command == "":
		return fmt.Errorf("queue: job for %s has no command", a.Review)
	case (a.Command == CommandDecide) != (a.Deferred != nil):
		return fmt.Errorf("queue: job %s: a comment to decide on goes with the command %s, and only with it", a, CommandDecide)
	case a.Deferred != nil && (a.Review.GitHub == nil || a.Deferred.Comment <= 0 || a.Deferred.Login == ""):
		return fmt.Errorf("queue: job %s: a comment to decide on is a GitHub pull request's, with its id and author", a)
	}
	if err := a.checkBound(); err != nil {
		return err
	}
	if a.Part != nil {
		if a.IsReply() || !a.Benchmarks() {
			return fmt.Errorf("queue: job %s: only a job that runs benchmarks has a part", a)
		}
		if err := a.Part.validate(); err != nil {
			return fmt.Errorf("queue: job %s: %w", a, err)
		}
	}
	if err := a.Request.Validate(); err != nil {
		return fmt.Errorf("queue: job %s: %w", a, err)
	}
	return nil
}

// checkBound checks what the job is bound to: a run job to a revision of
// its review's kind, a job that runs nothing to its reply key; exactly one
// of the two.
func (a *Args) checkBound() error {
	switch {
	case a.IsReply() && !a.Revision.IsZero():
		return fmt.Errorf("queue: job %s runs nothing, so it is bound to no revision, not %s", a, a.Revision)
	case a.IsReply() && !a.Reply.valid():
		return fmt.Errorf("queue: job %s for %s runs nothing, and needs a reply key (message:ID, author:ID or defer:ID), not %q", a.Command, a.Review, a.Reply)
	case a.IsReply():
		return nil
	case a.Reply != "":
		return fmt.Errorf("queue: job %s runs a command, so it is bound to a revision, not to the reply key %s", a, a.Reply)
	case a.Revision.IsZero():
		return fmt.Errorf("queue: job %s for %s has no revision (a job is bound to one patch set or head commit)", a.Command, a.Review)
	case a.Review.Gerrit != nil && a.Revision.PatchSet <= 0:
		return fmt.Errorf("queue: job %s: a change's revision names its patch set (PATCHSET:COMMIT)", a)
	case a.Review.GitHub != nil && a.Revision.PatchSet != 0:
		return fmt.Errorf("queue: job %s: a pull request's revision is its head commit alone, with no patch set", a)
	}
	return nil
}

// Bound returns what the job is bound to, as text: its revision ("3:5a295b0…",
// a head commit), or for a job that runs nothing its reply key
// ("message:1007"). Logs and the status page name a job by it.
func (a *Args) Bound() string {
	if a.Reply != "" {
		return string(a.Reply)
	}
	return a.Revision.String()
}

// String names the job by its identity: "bench gerrit:go-review.googlesource.com:12345 @ 3:5a295b0",
// "help github:golang/go#7 @ message:1007", with the options after the
// command when it has any ("bench -count 10 ...").
func (a *Args) String() string {
	c := a.Command
	if a.Options != "" {
		c += " " + a.Options
	}
	s := c + " " + a.Review.String() + " @ " + a.Bound()
	if p := a.Part; p != nil {
		s += fmt.Sprintf(" (part %d of %d: %s)", p.Index+1, p.Of, p.Package)
	}
	return s
}
