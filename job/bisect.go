package job

import (
	"context"
	"os"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/bisect"
	"github.com/patchbot/patchbot/step/verdict"
)

// A BisectRequest asks which commit between Good and Bad made the
// benchmarks slower by more than Threshold.
type BisectRequest struct {
	Repo      string  // the repository (and Go module); "" means "."
	Good, Bad string  // revisions; Good a first-parent ancestor of Bad
	Threshold float64 // 0.05 for 5%; 0 means bench.threshold

	// Bench says which benchmarks and how, as for bench. Without
	// Packages, each step runs the benchmarks that the change from Good
	// to the step's commit affects (benchrun's Selection): a step whose
	// commit affects none is not slower, with no runs.
	Bench BenchSettings
}

// Bisect bisects as req says, each step a sequential comparison
// (-count auto, unless req.Bench gives a count) in which "the same" means
// within ±Threshold: a benchmark that did not move by the threshold is
// what the search needs to know, not whether it moved by 2%. A benchmark
// runs to the cap when it is not decided (no futility): the search's
// question is one-sided, and an interval whose upper end falls under the
// threshold answers it where the same within ±threshold may never come.
// Each commit's test binaries are built once for the whole bisection.
// start and step, when set, hear of the range and of each step as they
// are known (bisect.Options).
func Bisect(ctx context.Context, req *BisectRequest, cfg *config.Config, env Env, start func(*bisect.Result), step func(bisect.Step)) (*bisect.Result, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	threshold := req.Threshold
	if threshold == 0 {
		threshold = cfg.Bench.Threshold.Fraction()
	}
	b := req.Bench.orDefaults(cfg.Bench.Count, cfg.Bench.Benchtime)
	o, err := benchOptions(ctx, &b, &cfg.Bench, env)
	if err != nil {
		return nil, err
	}
	if threshold > 0 && threshold < 1 {
		if o.Plan != nil {
			o.Plan = &verdict.Plan{Looks: o.Plan.Looks, Alpha: o.Plan.Alpha, Margin: threshold, NoFutility: true}
		}
		o.Compare = &benchrun.CompareOptions{Alpha: o.Compare.Alpha, Margin: threshold}
	}
	cache, err := benchrun.MkdirTemp("bisect")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cache)
	o.Dir, o.BinCache = req.Repo, cache
	return bisect.Run(ctx, bisect.Options{
		Dir: req.Repo, Good: req.Good, Bad: req.Bad, Threshold: threshold, Start: start, Step: step,
		Compare: func(ctx context.Context, old, new string) (*benchrun.Result, error) {
			o := o
			o.Base, o.Head = old, new
			return benchrun.Run(ctx, o)
		},
	})
}
