package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// A Periodic is work done every Every by one process among all those on
// the queue's database, such as polling a Gerrit server: River's elected
// leader schedules it (at its election, then every Every), and a process
// that has it among its Options.Periodic runs it. When the leader dies,
// another is elected once its lease lapses (River's leader TTL, 15 s, and
// up to 6 s more until the next attempt at election) and takes the
// schedule over, with a run at once.
//
// Runs do not overlap: a run is over by the next tick (its Timeout); a
// tick that finds the run before it still waiting or running is skipped;
// and a run that finds an earlier one running on a live process, as when
// the leader changed between two ticks, does nothing. A run whose process
// died stays "running" in the database until River's rescuer takes it
// (Options.RescueAfter, 35 minutes by default), but holds up the next run
// by its Timeout and a few seconds at most: a run is unique within half
// an interval (River's UniqueOpts.ByPeriod), not for as long as it runs.
type Periodic struct {
	Name  string // unique among a queue's Periodic
	Every time.Duration
	// Run does the work once. It is given the state the last run that
	// finished returned, on whichever process it ran (nil at first),
	// and returns the state for the next: a Gerrit poller's cursor, say,
	// kept in the database, so that the poll can move between machines.
	// An error is logged, the state returned with it is kept (nil keeps
	// the old one), and the next run comes at the next tick: a run is
	// not retried.
	Run func(ctx context.Context, state []byte) ([]byte, error)
	// Timeout bounds one run; 0 is Every, so that a run is over by the
	// next tick, up to MaxPeriodicTimeout.
	Timeout time.Duration
}

// MaxPeriodicTimeout bounds one run of a Periodic whose Timeout is 0.
const MaxPeriodicTimeout = 5 * time.Minute

// timeout is p's bound on one run.
func (p *Periodic) timeout() time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return min(p.Every, MaxPeriodicTimeout)
}

// PeriodicQueue is the River queue periodic runs wait in, apart from the
// jobs, so that a poll never waits behind a benchmark.
const PeriodicQueue = "periodic"

// PeriodicKind is the River job kind of a periodic run.
const PeriodicKind = "patchbot_periodic"

// periodicArgs is a periodic run, as a River job.
type periodicArgs struct {
	Name string `json:"name" river:"unique"`
}

func (periodicArgs) Kind() string { return PeriodicKind }

// periodicInsertOpts are the insert options of p's runs: unique by name
// among those waiting or running (River's required states, not the
// finished ones) within half of p's interval. Two ticks are an interval
// apart, so each is in a half of its own, and a tick whose run before it is
// still waiting or running in the same half is skipped; a run left
// running by a dead process only blocks the ticks of its own half.
func periodicInsertOpts(p *Periodic) *river.InsertOpts {
	return &river.InsertOpts{
		Queue:       PeriodicQueue,
		MaxAttempts: 1,
		UniqueOpts: river.UniqueOpts{
			ByArgs:   true,
			ByPeriod: max(p.Every/2, time.Second), // River's least
			ByState: []rivertype.JobState{
				rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
				rivertype.JobStateRetryable, rivertype.JobStateScheduled,
			},
		},
	}
}

// periodicJobs returns River's periodic jobs for ps.
func periodicJobs(ps []Periodic) []*river.PeriodicJob {
	var jobs []*river.PeriodicJob
	for i := range ps {
		args, opts := periodicArgs{Name: ps[i].Name}, periodicInsertOpts(&ps[i])
		jobs = append(jobs, river.NewPeriodicJob(river.PeriodicInterval(ps[i].Every),
			func() (river.JobArgs, *river.InsertOpts) { return args, opts },
			&river.PeriodicJobOpts{ID: args.Name, RunOnStart: true}))
	}
	return jobs
}

// periodicNameRE is River's rule for a periodic job's ID, which panics
// on another.
var periodicNameRE = regexp.MustCompile(`\A[\w][\w\-\[\]<>\/.·:+]+\z`)

func checkPeriodic(ps []Periodic) error {
	seen := map[string]bool{}
	for _, p := range ps {
		switch {
		case p.Name == "" || p.Run == nil:
			return fmt.Errorf("queue: a Periodic needs a Name and a Run")
		case !periodicNameRE.MatchString(p.Name):
			return fmt.Errorf("queue: periodic %q: a name is letters, digits and _-[]<>/.·:+, at least two, without spaces (River's rule for periodic job ids)", p.Name)
		case p.Every <= 0:
			return fmt.Errorf("queue: periodic %s: Every must be positive", p.Name)
		case seen[p.Name]:
			return fmt.Errorf("queue: two periodic runs named %s", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// periodicWorker is River's worker for periodic runs.
type periodicWorker struct {
	river.WorkerDefaults[periodicArgs]
	q *Queue
}

func (w *periodicWorker) find(name string) *Periodic {
	for i := range w.q.opts.Periodic {
		if p := &w.q.opts.Periodic[i]; p.Name == name {
			return p
		}
	}
	return nil
}

func (w *periodicWorker) Timeout(j *river.Job[periodicArgs]) time.Duration {
	if p := w.find(j.Args.Name); p != nil {
		return p.timeout()
	}
	return MaxPeriodicTimeout
}

func (w *periodicWorker) Work(ctx context.Context, j *river.Job[periodicArgs]) error {
	p := w.find(j.Args.Name)
	if p == nil {
		// Scheduled by a leader with other settings: not this one's.
		return nil
	}
	if busy, err := w.running(ctx, p, j.ID); err != nil {
		return err // River logs it; the next tick tries again
	} else if busy {
		// The last leader's tick and the new one's first, a few seconds
		// apart: one run is enough.
		return nil
	}
	last, older, err := w.finished(ctx, p.Name)
	if err != nil {
		return err
	}
	state := last.state
	next, err := p.Run(ctx, state)
	if next != nil {
		state = next
	}
	if state != nil {
		if rerr := river.RecordOutput(ctx, json.RawMessage(state)); rerr != nil {
			w.q.opts.Logger.Warn("queue: periodic run's state", "name", p.Name, "err", rerr)
		}
	}
	if err != nil {
		w.q.opts.Logger.Warn("queue: periodic run failed", "name", p.Name, "err", err)
	}
	// The runs are no history worth keeping (a poll every 30 s would be
	// 86,000 rows in the retention's 30 days): all but the last finished
	// one, whose state this run started from, go.
	if len(older) > 0 {
		if _, derr := w.q.client.JobDeleteMany(context.WithoutCancel(ctx), river.NewJobDeleteManyParams().IDs(older...)); derr != nil {
			w.q.opts.Logger.Warn("queue: removing finished periodic runs", "err", derr)
		}
	}
	return nil
}

// running reports whether an earlier run of p than the run id is running,
// on a live process: one that started less than p's timeout ago (and a
// little more, for the clocks of other machines), where a dead process's
// run has been "running" for longer. Two runs can wait at once when the
// leader changes: the last one's tick and the new one's at its election,
// in two halves of an interval (periodicInsertOpts).
func (w *periodicWorker) running(ctx context.Context, p *Periodic, id int64) (bool, error) {
	res, err := w.q.client.JobList(ctx, river.NewJobListParams().Kinds(PeriodicKind).
		States(rivertype.JobStateRunning).First(100))
	if err != nil {
		return false, fmt.Errorf("queue: periodic %s: reading the running runs: %w", p.Name, err)
	}
	for _, r := range res.Jobs {
		var a periodicArgs
		if r.ID >= id || r.AttemptedAt == nil || json.Unmarshal(r.EncodedArgs, &a) != nil || a.Name != p.Name {
			continue
		}
		if time.Since(*r.AttemptedAt) < p.timeout()+periodicClockSlack {
			return true, nil
		}
	}
	return false, nil
}

// periodicClockSlack is what running allows for the clocks of the
// machines on one database.
const periodicClockSlack = 5 * time.Second

// A periodicRun is a finished run's id and the state it left.
type periodicRun struct {
	id    int64
	state []byte
}

// finished returns the newest finished run of name that left a state, and
// the ids of the others still kept, which are of no more use: older ones,
// and newer ones that left none (a run of a dead process, discarded by the
// rescuer, or one that failed before its first state).
func (w *periodicWorker) finished(ctx context.Context, name string) (last periodicRun, older []int64, err error) {
	res, err := w.q.client.JobList(ctx, river.NewJobListParams().Kinds(PeriodicKind).
		States(rivertype.JobStateCompleted, rivertype.JobStateDiscarded, rivertype.JobStateCancelled).
		OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(100))
	if err != nil {
		return last, nil, fmt.Errorf("queue: periodic %s: reading the last run: %w", name, err)
	}
	for _, r := range res.Jobs {
		var a periodicArgs
		if json.Unmarshal(r.EncodedArgs, &a) != nil || a.Name != name {
			continue
		}
		if state := (JobInfo{metadata: r.Metadata}).Output(); last.id == 0 && state != nil {
			last = periodicRun{id: r.ID, state: state}
			continue
		}
		older = append(older, r.ID)
	}
	return last, older, nil
}
