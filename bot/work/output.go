package work

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
)

// An Output is what a job left, as the worker records it in the queue
// with the job (queue.Job.RecordOutput) for a status page to show: the
// link to its reply and, for a bench job, the comparison with every run's
// value. A job that fails for good leaves the link to its failure reply.
//
// Everything in Bench comes from the benchmarks of the code under review
// (names, units, output): a page that shows it escapes it.
type Output struct {
	// URL is the reply: the GitHub comment (its html_url), or the Gerrit
	// change at the patch set the message is on; "" when nothing was
	// posted (a dry run).
	URL string `json:"url,omitempty"`
	// Bench is a bench job's result; nil for other jobs, and when it did
	// not fit in the queue's bound (Note says so).
	Bench *benchrun.Result `json:"bench,omitempty"`
	// Note says what was left out to fit the queue's bound.
	Note string `json:"note,omitempty"`
	// Split, for a bench job split into one job a package (queue.Part),
	// are the packages, in the parts' order.
	Split []string `json:"split,omitempty"`
}

// ReadOutput decodes what a job recorded (queue.JobInfo.Output): nil, nil
// when it recorded nothing.
func ReadOutput(data json.RawMessage) (*Output, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var o Output
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("work: a job's output: %w", err)
	}
	return &o, nil
}

// Notes of an Output cut to fit queue.MaxOutput.
var (
	noteNoValues = fmt.Sprintf("Each run's value is left out, and with it the plot: the result is over the queue's bound of %d KiB.", queue.MaxOutput>>10)
	noteNoBench  = fmt.Sprintf("The benchmark result is left out: even without each run's value it is over the queue's bound of %d KiB. The reply has its table.", queue.MaxOutput>>10)
)

// record records o as what j left, cut to fit the queue's bound: whole;
// else without each run's value (the tables stay); else without the bench
// result. A failure is written to the job's log, not returned: the reply
// is posted, and running the job again for its output would run its
// benchmarks again.
func (w *Worker) record(j *queue.Job, o *Output) {
	err := j.RecordOutput(o)
	if errors.Is(err, queue.ErrOutputTooLarge) && o.Bench != nil {
		c := *o
		c.Bench, c.Note = withoutValues(o.Bench), noteNoValues
		if err = j.RecordOutput(&c); errors.Is(err, queue.ErrOutputTooLarge) {
			c.Bench, c.Note = nil, noteNoBench
			err = j.RecordOutput(&c)
		}
	}
	if err != nil && w.Env.Log != nil {
		fmt.Fprintf(w.Env.Log, "work: %s: recording what the job left: %v\n", &j.Args, err)
	}
}

// withoutValues returns a copy of r without the samples of its
// summaries; r is not changed.
func withoutValues(r *benchrun.Result) *benchrun.Result {
	c := *r
	c.Tables = make([]*benchrun.Table, len(r.Tables))
	for i, t := range r.Tables {
		tc := *t
		tc.Rows = make([]*benchrun.Row, len(t.Rows))
		for k, row := range t.Rows {
			rc := *row
			rc.Old, rc.New = noValues(row.Old), noValues(row.New)
			tc.Rows[k] = &rc
		}
		c.Tables[i] = &tc
	}
	return &c
}

func noValues(s *benchrun.Summary) *benchrun.Summary {
	if s == nil {
		return nil
	}
	c := *s
	c.Values = nil
	return &c
}

// replyURL returns the link of the first reply in posts that has one: a
// GitHub comment as it is, a Gerrit change at the patch set the message
// went on.
func replyURL(posts []*review.PostResult) string {
	for _, p := range posts {
		switch {
		case p == nil || p.URL == "":
		case p.Server == "gerrit" && p.PatchSet > 0:
			return p.URL + "/" + strconv.Itoa(p.PatchSet)
		default:
			return p.URL
		}
	}
	return ""
}
