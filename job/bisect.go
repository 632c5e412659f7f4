package job

import (
	"context"
	"fmt"
	"os"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/bisect"
	"github.com/patchbot/patchbot/step/verdict"
)

// A BisectRequest asks which commit between Good and Bad made the
// benchmarks slower by more than Threshold.
type BisectRequest struct {
	Repo string `json:"repo,omitempty"` // the repository (and Go module); "" means "."
	// Good and Bad are revisions, Good a first-parent ancestor of Bad.
	Good string `json:"good"`
	Bad  string `json:"bad"`
	// Threshold is the slowdown that counts, 0.05 for 5%; 0 means
	// bench.threshold.
	Threshold float64 `json:"threshold,omitempty"`

	// Bench says which benchmarks and how, as for bench. Without
	// Packages, each step runs the benchmarks that the change from Good
	// to the step's commit affects (benchrun's Selection): a step whose
	// commit affects none is not slower, with no runs.
	Bench BenchSettings `json:"bench"`
}

// Validate reports the first problem of r that is found without reading
// the repository, as a *remedy.FieldError.
func (r *BisectRequest) Validate() error {
	switch {
	case r.Good == "":
		return remedy.Fieldf("good", "", "missing: give the last revision known not to be slower")
	case r.Bad == "":
		return remedy.Fieldf("bad", "", "missing: give a revision that is slower")
	}
	if err := validThreshold(r.Threshold); err != nil {
		return err
	}
	return r.Bench.validate()
}

// validThreshold checks a request's threshold: 0 (the configuration's) or
// a fraction above 0 and under 1.
func validThreshold(t float64) error {
	if t != 0 && !(t > 0 && t < 1) {
		return remedy.Fieldf("threshold", fmt.Sprintf("%g%%", 100*t), "want a change above 0%% and under 100%%, like 5%%")
	}
	return nil
}

// Bisect bisects as req says, each step a sequential comparison
// (an automatic count, unless req.Bench gives one) in which "the same"
// means within ±Threshold: a benchmark that did not move by the threshold
// is what the search needs to know, not whether it moved by 2%. A
// benchmark runs to the cap when it is not decided (no futility): the
// search's question is one-sided, and an interval whose upper end falls
// under the threshold answers it where the same within ±threshold may
// never come. Each commit's test binaries are built once for the whole
// bisection. env.Tell hears the range (bisect.Result.Intro) and each step
// (bisect.Step.String) as they are known.
func Bisect(ctx context.Context, req *BisectRequest, cfg *config.Config, env Env) (*bisect.Result, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	threshold := req.Threshold
	if threshold == 0 {
		threshold = cfg.Bench.Threshold.Fraction()
	}
	if !(threshold > 0 && threshold < 1) {
		return nil, &SetupError{Field: "threshold", Err: fmt.Errorf("bench.threshold %g%%: a bisection needs a slowdown above 0%% and under 100%%, like 5%%", 100*threshold)}
	}
	b := req.Bench.orDefaults(cfg.Bench.Count, cfg.Bench.Benchtime)
	o, err := benchOptions(ctx, &b, &cfg.Bench, env)
	if err != nil {
		return nil, err
	}
	if o.Plan != nil {
		o.Plan = &verdict.Plan{Looks: o.Plan.Looks, Alpha: o.Plan.Alpha, Margin: threshold, NoFutility: true}
	}
	o.Compare = &benchrun.CompareOptions{Alpha: o.Compare.Alpha, Margin: threshold}
	cache, err := benchrun.MkdirTemp("bisect")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cache)
	o.Dir, o.BinCache = req.Repo, cache
	return bisect.Run(ctx, bisect.Options{
		Dir: req.Repo, Good: req.Good, Bad: req.Bad, Threshold: threshold,
		Start: func(r *bisect.Result) { env.Tell(r.Intro()) },
		Step:  func(s bisect.Step) { env.Tell(s.String()) },
		Compare: func(ctx context.Context, old, new string) (*benchrun.Result, error) {
			o := o
			o.Base, o.Head = old, new
			return benchrun.Run(ctx, o)
		},
	})
}
