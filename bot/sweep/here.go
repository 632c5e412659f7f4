package sweep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/sandbox"
)

// DryRunQueue stands for serve's queue in a dry run, which inserts
// nothing: with it the stale task says "into the queue" and opens no
// database.
type DryRunQueue struct{}

func (DryRunQueue) Insert(context.Context, *queue.Args) (queue.InsertResult, error) {
	return queue.InsertResult{}, errors.New("sweep: a dry run inserts nothing")
}

func (DryRunQueue) InsertTrack(context.Context, *queue.TrackArgs) (queue.InsertResult, error) {
	return queue.InsertResult{}, errors.New("sweep: a dry run inserts nothing")
}

// Here returns the Options.Work that runs a stale benchmark on this
// machine, as serve's worker would: in work areas under dir ("" is
// sweep-work/ in the user's state directory, held by this process from
// the first job on), in the sandbox, probed at the first job; without one
// only when unsafe.
func Here(cfg *config.Config, env job.Env, dir string, unsafe bool) queue.Handler {
	var once sync.Once
	var w *work.Worker
	var setupErr error
	return func(ctx context.Context, j *queue.Job) error {
		once.Do(func() {
			if dir == "" {
				p, err := db.DefaultPath()
				if err != nil {
					setupErr = err
					return
				}
				dir = filepath.Join(filepath.Dir(p), "sweep-work")
			}
			w = &work.Worker{Areas: &work.Areas{Root: dir}, Config: cfg, Env: env}
			// The root is this sweep's until the process ends: a
			// sweep started while another runs finds it taken.
			if _, err := w.Areas.Lock(); err != nil {
				setupErr = err
				return
			}
			sb, err := sandbox.New(ctx, &sandbox.Options{})
			switch {
			case err == nil:
				w.Env.Runner = sb
			case !unsafe:
				setupErr = fmt.Errorf("%v; sweep runs no benchmark of a patch without a sandbox: make one work here, queue them for serve with -db, or run with -unsafe-no-sandbox", err)
			}
		})
		if setupErr != nil {
			return setupErr
		}
		return w.Handle(ctx, j)
	}
}
