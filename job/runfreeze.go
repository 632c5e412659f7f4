package job

import (
	"context"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/step/freeze"
)

// A freezePlan says where the whole job's freeze step looks, for which
// branch, and when; or the answer, found before the job began.
type freezePlan struct {
	// Sources are the freeze's sources; the built-in configuration's,
	// offline (calendar and rule), when nil.
	Sources *freeze.Sources
	Branch  string    // the branch the change is for; "" is master
	At      time.Time // the moment to check; zero is now
	// NoTag leaves the change's hashtags alone: the answer is said in
	// the review message only. A reviewer's /patchbot freeze asks; it
	// does not tag the change, nor get freeze's own message beside the
	// reply.
	NoTag bool
	// Status, when set, is the answer: the step reports it.
	Status *freeze.Status
}

// freeze is the second step: whether the branch the change is for is
// frozen at the moment asked.
func (r *runner) freeze(ctx context.Context) error {
	f := r.opts.Freeze
	if f.Status != nil {
		r.res.Freeze = f.Status
		return nil
	}
	if f.Branch == "" {
		f.Branch = "master"
	}
	if f.At.IsZero() {
		f.At = time.Now()
	}
	if f.Sources == nil {
		s, err := freeze.FromConfig(&config.Default().Freeze, true)
		if err != nil {
			return err
		}
		f.Sources = s
	}
	st, err := freeze.Check(ctx, f.Sources, f.Branch, f.At)
	if err != nil {
		return err
	}
	r.res.Freeze = st
	return nil
}

// applyFreeze tags the change wait-release while its branch is frozen (and
// swaps the tag for ex-wait-release once it reopens), with freeze's own
// message, once: freeze.Apply reads the hashtags first. A release branch
// takes no tag, nor a change with Request.Freeze.NoTag.
func (r *runner) applyFreeze(ctx context.Context, change string) (*freeze.ApplyResult, error) {
	st := r.res.Freeze
	if st == nil || !st.Governed() || r.opts.Freeze.NoTag {
		return nil, nil
	}
	return freeze.Apply(ctx, r.opts.Gerrit, change, st)
}
