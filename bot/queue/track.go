package queue

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/patchbot/patchbot/job"
)

// TrackKind is the River job kind of patchbot track's jobs: a run that
// records a branch's new commits and finds its change points, or the
// bisection of one slowdown and its comment.
const TrackKind = "patchbot.track"

// TrackArgs are a queued track job: which track, from which repository,
// and the request it runs. Like Args, they hold no credentials.
//
// A track job is unique by its track and range among the jobs waiting or
// running, not the finished ones: the next record run of a track is
// queued when the last has ended, and a range already bisected is
// queued again only to comment (the store says what is done).
type TrackArgs struct {
	// Track is the track's name in the store ("example.com/m@main").
	Track string `json:"track" river:"unique"`
	// Range is, for a bisection job, the range it bisects (in JSON
	// "GOOD..BAD", two full hashes); nil for a record run.
	Range *job.Range `json:"range,omitempty" river:"unique"`
	// Source is the repository's git URL, fetched anonymously into a
	// work area, and Branch the branch tracked.
	Source string `json:"source"`
	Branch string `json:"branch"`
	// Request is the run's settings; its Repo, Branch, Name and Range
	// are the worker's to set from the fields above.
	Request job.TrackRequest `json:"request"`
}

// Kind is River's job kind (river.JobArgs).
func (TrackArgs) Kind() string { return TrackKind }

// InsertOpts are River's insert options of a track job: in River's
// default queue (it runs benchmarks), unique by track and range among the
// jobs not finished.
func (TrackArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}}
}

var (
	trackNameRE = regexp.MustCompile(`^[A-Za-z0-9._~/@:+-]{1,200}$`)
)

// Validate checks a track job: a name, a range of two hashes or none, a
// source and a branch, and a request that leaves the worker's fields to
// it.
func (a *TrackArgs) Validate() error {
	r := &a.Request
	switch {
	case !trackNameRE.MatchString(a.Track):
		return fmt.Errorf("queue: track job: name %q: want letters, digits and ._~/@:+-, at most 200", a.Track)
	case a.Range != nil && !a.Range.Valid():
		return fmt.Errorf("queue: track job %s: range %s..%s: want GOOD..BAD, two full commit hashes", a.Track, a.Range.Good, a.Range.Bad)
	case a.Source == "" || a.Source[0] == '-':
		return fmt.Errorf("queue: track job %s: no repository to fetch (source %q)", a.Track, a.Source)
	case a.Branch == "":
		return fmt.Errorf("queue: track job %s: no branch", a.Track)
	case r.Repo != "" || r.Branch != "" || r.Name != "" || r.Range != nil:
		return fmt.Errorf("queue: track job %s: the request names a repository, branch, name or range; the worker sets them", a.Track)
	}
	return nil
}

// String names the job: "track example.com/m@main", "track
// example.com/m@main bisect 5a295b08a2c0..0b5e1c0d7a3f".
func (a *TrackArgs) String() string {
	if a.Range != nil {
		return "track " + a.Track + " bisect " + a.Range.String()
	}
	return "track " + a.Track
}

// A TrackJob is one attempt at a track job, as a TrackHandler sees it.
type TrackJob struct {
	ID          int64
	Args        TrackArgs
	Attempt     int
	MaxAttempts int
	RescueAt    time.Time // as Job's
}

// A TrackHandler does one track job; its errors are as a Handler's.
type TrackHandler func(ctx context.Context, j *TrackJob) error

// InsertTrack queues a track job after checking it; one of the same track
// and range that waits or runs makes it a duplicate.
func (q *Queue) InsertTrack(ctx context.Context, a *TrackArgs) (InsertResult, error) {
	if err := a.Validate(); err != nil {
		return InsertResult{}, err
	}
	if err := q.checkFile(); err != nil {
		return InsertResult{}, err
	}
	res, err := q.client.Insert(ctx, *a, nil)
	if err != nil {
		return InsertResult{}, fmt.Errorf("queue: inserting %s: %w", a, err)
	}
	return InsertResult{ID: res.Job.ID, Duplicate: res.UniqueSkippedAsDuplicate, State: string(res.Job.State)}, nil
}

// workTrack runs the queue's TrackHandler on a track job.
func (q *Queue) workTrack(ctx context.Context, rj *river.Job[TrackArgs]) error {
	if q.opts.TrackHandler == nil {
		// Another process's to run: a process without a track handler
		// (a machine for replies, say) puts it back for a while.
		return river.JobSnooze(time.Minute)
	}
	j := &TrackJob{ID: rj.ID, Args: rj.Args, Attempt: rj.Attempt, MaxAttempts: rj.MaxAttempts}
	if rj.AttemptedAt != nil {
		j.RescueAt = rj.AttemptedAt.Add(q.opts.RescueAfter)
	}
	return q.opts.TrackHandler(ctx, j)
}
