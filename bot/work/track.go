package work

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/job"
)

// A TrackInserter queues track jobs: *queue.Queue.
type TrackInserter interface {
	InsertTrack(ctx context.Context, a *queue.TrackArgs) (queue.InsertResult, error)
}

var _ TrackInserter = (*queue.Queue)(nil)

// HandleTrack runs a track job (queue.TrackHandler): it fetches the
// tracked branch into its work area and runs job.Track there with
// w.Tracks. A record run records the branch's new commits, finds their
// change points and queues a bisection job for each slowdown (with
// w.TrackQueue; without it, it bisects them itself); a bisection job
// bisects its range and comments once on the culprit's review. What a job
// that died had done is in the store, and the job run again goes on from
// there.
func (w *Worker) HandleTrack(ctx context.Context, j *queue.TrackJob) error {
	if w.Tracks == nil {
		return queue.Permanent(errors.New("work: track job: this worker has no track store (Worker.Tracks)"))
	}
	a := j.Args
	co, err := w.Areas.Branch(ctx, a.Source, a.Branch)
	if err != nil {
		return classify(err)
	}
	defer co.Close()
	req := a.Request // a copy: the queued job stays as it was
	req.Repo, req.Branch, req.Name, req.Range = co.Dir, co.Ref, a.Track, a.Range
	env := w.jobEnv()
	env.Tracks = w.Tracks
	if req.Range == nil && w.TrackQueue != nil {
		env.QueueBisect = func(ctx context.Context, r job.Range) error {
			_, err := w.TrackQueue.InsertTrack(ctx, &queue.TrackArgs{Track: a.Track, Range: &r, Source: a.Source, Branch: a.Branch, Request: a.Request})
			return err
		}
	}
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	env.Tell = func(line string) { fmt.Fprintln(log, line) }
	res, err := job.Track(ctx, &req, w.Config, env)
	if err != nil {
		return classify(fmt.Errorf("work: %s: %w", &a, err))
	}
	if req.Range != nil && len(res.Bisections) == 0 {
		// Nothing of the range left to do: bisected and commented by
		// an earlier job, or never found (a job queued by hand).
		fmt.Fprintf(log, "%s: nothing to do (done before, or no slowdown in the range)\n", &a)
	}
	return classify(co.Close())
}

var _ queue.TrackHandler = (*Worker)(nil).HandleTrack
