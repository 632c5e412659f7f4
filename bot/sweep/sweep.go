// Package sweep runs patchbot's periodic chores once, for a cron job or a
// scheduled GitHub Action: a table of small named tasks (gopherbot's
// shape), each independent of the others, each returning what it did.
//
//	res, err := sweep.Run(ctx, &sweep.Options{Config: cfg, Gerrit: g, Query: "project:go"}, nil)
//
// The freeze is computed once, before the tasks, and every task sees the
// same answer. A task that fails is recorded and the next one runs; Run's
// error is then a *FailedError naming the tasks that failed. Every write
// goes through package review's one write path, so a dry run (clients
// made with review.Options.DryRun) writes nothing and says what it would
// do.
package sweep

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/track"
)

// A Task is one chore of a sweep.
type Task struct {
	Name string // as -only names it: "freeze"
	Doc  string // one line for help
	Run  func(ctx context.Context, s *Sweep) (*TaskResult, error)
	// Off, when set, says the task has nothing to do as o is
	// configured: a sweep of every task leaves it out, and only naming
	// it (-only) runs it.
	Off func(o *Options) bool
}

// Tasks is the table of a sweep's tasks, in the order they run. report
// is last: it tells what the others did.
var Tasks = []Task{
	{"freeze", "tag open changes wait-release while the tree is frozen, ex-wait-release once it reopens, with one message each", FreezeTask, nil},
	{"stale", "benchmark the current patch set of changes whose earlier patch set was benchmarked", StaleTask, nil},
	{"track", "record the benchmarks of track.branch's new commits, bisect their slowdowns, comment on the culprits", TrackTask, trackOff},
	{"report", "the state in a few lines: the freeze, and what each task did", ReportTask, nil},
}

// TaskNamed returns the task of the name, or nil.
func TaskNamed(name string) *Task {
	for i := range Tasks {
		if Tasks[i].Name == name {
			return &Tasks[i]
		}
	}
	return nil
}

// Names returns the tasks' names, in order.
func Names() []string {
	var ns []string
	for _, t := range Tasks {
		ns = append(ns, t.Name)
	}
	return ns
}

// An Inserter queues a job: *queue.Queue, when serve shares the database.
type Inserter interface {
	Insert(ctx context.Context, a *queue.Args) (queue.InsertResult, error)
}

var _ Inserter = (*queue.Queue)(nil)

// Options say what a sweep works on.
type Options struct {
	// Config is patchbot's configuration; nil is the built-in one.
	Config *config.Config
	// Branch is the branch whose freeze is checked and whose changes are
	// swept; "" is master.
	Branch string
	// At is the moment the freeze is checked at; zero is now (and then
	// with the live signals, unless Offline).
	At      time.Time
	Offline bool

	// Gerrit is the server swept; nil sweeps no Gerrit.
	Gerrit *review.Gerrit
	// Query narrows the changes swept, in Gerrit's search syntax
	// ("project:go"); the sweep adds status:open and the branch.
	Query string
	// Limit bounds the changes read per query; 0 is 500.
	Limit int

	// GitHub and Repo ("OWNER/REPO") are the GitHub repository whose pull
	// requests the freeze task labels; nil sweeps no GitHub.
	GitHub *review.GitHub
	Repo   string

	// Queue, when not nil, takes the stale task's benchmark jobs (serve
	// shares its database); nil runs them here, with Work.
	Queue Inserter
	// Work runs a job here when there is no Queue: work.Worker's Handle.
	Work queue.Handler
	// MaxStale bounds the benchmarks one sweep asks for; 0 is 5.
	MaxStale int

	// Tracks is the store the track task records in when it records
	// here, and TrackDir the repository it records ("" is the working
	// directory).
	Tracks   *track.Store
	TrackDir string

	// Env is where the job library logs, and Env.Clients the review
	// clients the freeze's live signals are read with; Gerrit and GitHub
	// are meant to be of the same set.
	Env job.Env
}

// DryRun reports whether the sweep only says what it would do: whether
// its review clients (Gerrit, GitHub, Env.Clients), which hold the
// switch, are a dry run's. Then every task writes nothing: each write
// goes through a client, and the stale task asks for no benchmark.
func (o *Options) DryRun() bool {
	return o.Gerrit != nil && o.Gerrit.DryRun() || o.GitHub != nil && o.GitHub.DryRun() ||
		o.Env.Clients != nil && o.Env.Clients.DryRun()
}

// A Sweep is one run of the tasks: the options, the freeze computed once,
// and the results of the tasks run so far.
type Sweep struct {
	*Options
	Freeze  *freeze.Status
	Results []*TaskResult
}

// A TaskResult is what one task did, or in a dry run would do.
type TaskResult struct {
	Task    string   `json:"task"`
	Summary string   `json:"summary"` // one line
	Actions []Action `json:"actions"`
	// Report is the report task's text; "" for the others.
	Report string `json:"report,omitempty"`
	// Error is why the task failed; "" when it did not.
	Error  string `json:"error,omitempty"`
	DryRun bool   `json:"dry_run"`
}

// An Action is what a task did to one change.
type Action struct {
	Change string `json:"change"` // "12", or "owner/repo#3"
	URL    string `json:"url,omitempty"`
	What   string `json:"what"` // one line
	// Freeze is the freeze task's tagging of the change.
	Freeze *freeze.ApplyResult `json:"freeze,omitempty"`
	// Job is the stale task's queued job.
	Job *queue.InsertResult `json:"job,omitempty"`
	// Error is why acting on this change failed.
	Error string `json:"error,omitempty"`
}

// A Result is what a sweep did.
type Result struct {
	Branch string         `json:"branch"`
	Freeze *freeze.Status `json:"freeze"`
	Tasks  []*TaskResult  `json:"tasks"`
	Failed []string       `json:"failed"` // the tasks that failed
	DryRun bool           `json:"dry_run"`
}

// A FailedError says which tasks failed; each TaskResult says why.
type FailedError struct{ Tasks []string }

func (e *FailedError) Error() string {
	if len(e.Tasks) == 1 {
		return "task " + e.Tasks[0] + " failed"
	}
	return "tasks " + strings.Join(e.Tasks, ", ") + " failed"
}

// An UnknownTaskError is a name that is not a task's.
type UnknownTaskError struct{ Name string }

func (e *UnknownTaskError) Error() string {
	return fmt.Sprintf("unknown task %q: the tasks are %s", e.Name, strings.Join(Names(), ", "))
}

// Run computes the freeze once and runs the tasks named in only (all of
// them that are not off when only is empty), in the table's order, each whatever the
// others did. The error is a *FailedError when tasks failed (the Result
// says what each did), an *UnknownTaskError, or the freeze's own error
// (a *remedy.FieldError or *job.SetupError: nothing was run).
func Run(ctx context.Context, o *Options, only []string) (*Result, error) {
	for _, n := range only {
		if TaskNamed(n) == nil {
			return nil, &UnknownTaskError{n}
		}
	}
	var tasks []Task
	for _, t := range Tasks {
		switch {
		case len(only) == 0:
			tasks = append(tasks, t)
		case slices.Contains(only, t.Name):
			t.Off = nil // asked for by name: it runs
			tasks = append(tasks, t)
		}
	}
	return RunTasks(ctx, o, tasks)
}

// RunTasks is Run with a table of tasks of the caller's, leaving out
// those that are off.
func RunTasks(ctx context.Context, o *Options, tasks []Task) (*Result, error) {
	st, err := computeFreeze(ctx, o)
	if err != nil {
		return nil, err
	}
	s := &Sweep{Options: o, Freeze: st}
	res := &Result{Branch: st.Branch, Freeze: st, Tasks: []*TaskResult{}, Failed: []string{}, DryRun: o.DryRun()}
	for _, t := range tasks {
		if t.Off != nil && t.Off(o) {
			continue
		}
		tr, err := t.Run(ctx, s)
		if tr == nil {
			tr = &TaskResult{}
		}
		tr.Task, tr.DryRun = t.Name, o.DryRun()
		if tr.Actions == nil {
			tr.Actions = []Action{}
		}
		if err != nil {
			tr.Error = err.Error()
			if tr.Summary == "" {
				tr.Summary = abbrev.FirstLine(tr.Error)
			}
			res.Failed = append(res.Failed, t.Name)
		}
		s.Results = append(s.Results, tr)
		res.Tasks = append(res.Tasks, tr)
	}
	if len(res.Failed) > 0 {
		return res, &FailedError{res.Failed}
	}
	return res, nil
}

// computeFreeze answers the freeze once for the sweep, through the job
// library as 'patchbot freeze' does.
func computeFreeze(ctx context.Context, o *Options) (*freeze.Status, error) {
	req := &job.Request{Steps: []string{job.StepFreeze}, Branch: o.Branch, At: o.At,
		Freeze: job.FreezeSettings{Offline: o.Offline}}
	if o.Gerrit != nil {
		req.Gerrit = &job.Gerrit{Server: o.Gerrit.URL()}
	}
	fr, err := job.Freeze(ctx, req, o.Config, o.Env)
	if err != nil {
		return nil, err
	}
	return fr.Status, nil
}

// query returns the Gerrit query of the open changes of the sweep's
// branch that also match more.
func (s *Sweep) query(more string) string {
	q := "status:open branch:" + s.Freeze.Branch
	if s.Query != "" {
		q += " (" + s.Query + ")"
	}
	if more != "" {
		q += " " + more
	}
	return q
}

func (s *Sweep) limit() int {
	if s.Limit > 0 {
		return s.Limit
	}
	return 500
}

// would returns dry in a dry run, done otherwise: "would add", "added".
func (s *Sweep) would(dry, done string) string {
	if s.DryRun() {
		return dry
	}
	return done
}
