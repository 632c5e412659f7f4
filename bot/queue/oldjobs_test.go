package queue

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/riverqueue/river"

	"github.com/patchbot/patchbot/job"
)

// oldArgs are a job as a patchbot before 2 December 2026 stored it, with
// the reply key in "revision"; River makes their unique key from these
// tags, as it made the old Args'.
type oldArgs struct {
	Review   string      `json:"review" river:"unique"`
	Revision string      `json:"revision" river:"unique"`
	Command  string      `json:"command" river:"unique"`
	Options  string      `json:"options,omitempty" river:"unique"`
	Who      string      `json:"who,omitempty"`
	Request  job.Request `json:"request"`
}

func (oldArgs) Kind() string { return JobKind }

// insertOld stores a as an older patchbot did, in queue.
func insertOld(t *testing.T, q *Queue, a oldArgs, queue string) int64 {
	t.Helper()
	res, err := q.client.Insert(t.Context(), a, &river.InsertOpts{Queue: queue, UniqueOpts: river.UniqueOpts{ByArgs: true}})
	if err != nil {
		t.Fatalf("inserting %+v as an older patchbot did: %v", a, err)
	}
	return res.Job.ID
}

// TestOldJobs: jobs stored by a patchbot from before the reply key had a
// field of its own. A run job is the same job as before: the same
// identity, worked as before. A reply, whose key was its revision, does
// not decode: it is cancelled at its first attempt with an error that
// says so, not retried, and the handler never sees it; the listing still
// shows it.
func TestOldJobs(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	worked := map[int64]bool{}
	q := open(t, dbURL(t), Options{Handler: func(ctx context.Context, j *Job) error {
		mu.Lock()
		defer mu.Unlock()
		worked[j.ID] = true
		return nil
	}})
	run := insertOld(t, q, oldArgs{Review: "github:golang/go#8311", Revision: revision("1").String(), Command: "bench", Who: "gopher"}, river.QueueDefault)
	if res := insert(t, q, args("1")); !res.Duplicate || res.ID != run {
		t.Errorf("Insert of the same run job as an older patchbot's = %+v; want a duplicate of job %d", res, run)
	}
	old := replyArgs("1")
	reply := insertOld(t, q, oldArgs{Review: old.Review.String(), Revision: "message:1", Command: "help", Who: "gopher", Request: old.Request}, ReplyQueue)
	start(t, q)

	waitState(t, q, run, "completed")
	info := waitState(t, q, reply, "cancelled")
	if info.Attempt != 1 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "do not decode") || !strings.Contains(info.Errors[0].Error, `revision "message:1"`) {
		t.Errorf("the older patchbot's reply: %+v; want it cancelled at attempt 1, its error saying its revision does not decode", info)
	}
	if info.Revision != "message:1" || info.Command != "help" {
		t.Errorf("the older patchbot's reply is listed as %s @ %s; want help @ message:1", info.Command, info.Revision)
	}
	mu.Lock()
	if !worked[run] || worked[reply] {
		t.Errorf("the handler got jobs %v; want the run job %d, not the reply %d", worked, run, reply)
	}
	mu.Unlock()
	// Its key is under another name now: the same reply queued again is
	// a new job (at worst one reply twice, across the upgrade).
	if res := insert(t, q, replyArgs("1")); res.Duplicate {
		t.Errorf("Insert of the older patchbot's reply = %+v; want a new job", res)
	}
}
