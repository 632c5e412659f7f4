package queue

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// An output as a worker records one: a link and some numbers.
type testOutput struct {
	URL    string    `json:"url"`
	Values []float64 `json:"values,omitempty"`
}

// TestOutput: what a handler records is stored with the job, whatever
// the attempt's end, listed back, and still there after the queue is
// opened again; an output over MaxOutput is refused and what was recorded
// before stays.
func TestOutput(t *testing.T) {
	t.Parallel()
	path := dbURL(t)
	type outcome struct {
		big  error // RecordOutput's error for an output over MaxOutput
		kept string
	}
	got := make(chan outcome, 10)
	q := open(t, path, Options{Handler: func(ctx context.Context, j *Job) error {
		switch j.Args.Revision {
		case revision("done"):
			if err := j.RecordOutput(testOutput{URL: "https://github.example/o/r/pull/1#issuecomment-1", Values: []float64{1.5, 2.25}}); err != nil {
				return Permanent(err)
			}
			big := testOutput{URL: strings.Repeat("x", MaxOutput)}
			err := j.RecordOutput(big)
			got <- outcome{big: err, kept: string(j.Output())}
			return nil
		case revision("failed"):
			// Recorded, then failed for good: the output is kept.
			if err := j.RecordOutput(testOutput{URL: "https://gerrit.example/c/p/+/7/1"}); err != nil {
				return Permanent(err)
			}
			return Permanent(errors.New("change 7 is gone"))
		}
		return nil // records nothing
	}})
	done := insert(t, q, args("done")).ID
	failed := insert(t, q, args("failed")).ID
	none := insert(t, q, args("none")).ID
	start(t, q)

	o := recv(t, got, "the handler's outcome")
	if !errors.Is(o.big, ErrOutputTooLarge) || !strings.Contains(o.big.Error(), "bytes") {
		t.Errorf("RecordOutput of %d bytes and more: %v; want ErrOutputTooLarge", MaxOutput, o.big)
	}
	want := `{"url":"https://github.example/o/r/pull/1#issuecomment-1","values":[1.5,2.25]}`
	if o.kept != want {
		t.Errorf("after the refused output, Output() = %s; want the one before, %s", o.kept, want)
	}
	check := func(q *Queue) {
		t.Helper()
		for _, c := range []struct {
			id    int64
			state string
			want  string
		}{
			{done, "completed", want},
			{failed, "cancelled", `{"url":"https://gerrit.example/c/p/+/7/1"}`},
			{none, "completed", ""},
		} {
			info := waitState(t, q, c.id, c.state)
			if got := string(info.Output()); got != c.want {
				t.Errorf("job %d (%s): Output() = %q; want %q", c.id, info.Revision, got, c.want)
			}
			var v testOutput
			if c.want != "" {
				if err := json.Unmarshal(info.Output(), &v); err != nil || v.URL == "" {
					t.Errorf("job %d: output %s: %v", c.id, info.Output(), err)
				}
			}
			// Not in the listing's own JSON: a status API decides
			// what of it to show.
			data, _ := json.Marshal(info)
			if strings.Contains(string(data), "output") || (c.want != "" && strings.Contains(string(data), v.URL)) {
				t.Errorf("job %d: the output is in JobInfo's JSON: %s", c.id, data)
			}
		}
	}
	check(q)

	// The output is in the database: a queue opened again lists it.
	if err := q.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	check(open(t, path, Options{}))
}

// TestOutputRetried: an attempt that fails keeps its output, a later
// attempt that records its own replaces it, and one that records nothing
// leaves it.
func TestOutputRetried(t *testing.T) {
	t.Parallel()
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		switch {
		case j.Attempt == 1:
			j.RecordOutput(testOutput{URL: "first"})
			return errors.New("gerrit: 503 Service Unavailable")
		case j.Args.Revision == revision("replaced"):
			j.RecordOutput(testOutput{URL: "second"})
		}
		return nil
	}})
	replaced := insert(t, q, args("replaced")).ID
	kept := insert(t, q, args("kept")).ID
	start(t, q)
	for id, want := range map[int64]string{replaced: `{"url":"second"}`, kept: `{"url":"first"}`} {
		info := waitState(t, q, id, "completed")
		if got := string(info.Output()); info.Attempt != 2 || got != want {
			t.Errorf("job %d: attempt %d, Output() = %s; want attempt 2, %s", id, info.Attempt, got, want)
		}
	}
}

// TestSnooze: a job that snoozes runs again after the wait, with what
// it recorded as Previous, and the snoozed attempt does not count: the
// job's second run is its attempt 1 still, and it completes.
func TestSnooze(t *testing.T) {
	t.Parallel()
	type run struct {
		attempt  int
		previous string
	}
	runs := make(chan run, 10)
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		runs <- run{j.Attempt, string(j.Previous)}
		if j.Previous == nil {
			j.RecordOutput(testOutput{URL: "measured"})
			return Snooze(errors.New("github: 403 rate limit exceeded"), time.Second)
		}
		return nil
	}})
	id := insert(t, q, args("snoozed")).ID
	start(t, q)
	first, second := recv(t, runs, "the first run"), recv(t, runs, "the run after the wait")
	var kept testOutput
	json.Unmarshal([]byte(second.previous), &kept) // PostgreSQL's jsonb spaces it out
	if first != (run{1, ""}) || second.attempt != 1 || kept.URL != "measured" {
		t.Errorf("runs %+v then %+v; want attempt 1 with nothing, then attempt 1 again with the first's output", first, second)
	}
	if info := waitState(t, q, id, "completed"); info.Attempt != 1 || len(info.Errors) != 0 {
		t.Errorf("job %d: attempt %d, errors %+v; want one attempt and no error", id, info.Attempt, info.Errors)
	}
}
