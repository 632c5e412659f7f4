package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/sandbox"
	"github.com/patchbot/patchbot/step/track"
	"github.com/patchbot/patchbot/step/verdict"
)

// An Env is what a job may take from the process that runs it, and where
// it reports. None of it is in the Request: credentials are read through
// Getenv when the review clients are made, and never stored or printed.
type Env struct {
	// Getenv reads the credentials (PATCHBOT_GERRIT_USER and
	// PATCHBOT_GERRIT_PASSWORD, GITHUB_TOKEN, GITHUB_API_URL; HOME for
	// ~/.gitcookies) when the job makes its own review clients, and
	// GITHUB_STEP_SUMMARY; nil is os.Getenv.
	Getenv func(string) string
	// Clients are the process's review clients (NewClients), shared by
	// its jobs; nil makes them for each job from the configuration's
	// review section, Getenv, Log and the Request's DryRun. They hold
	// the dry run: a Request's DryRun with clients that write gets
	// clients like them that do not (review.Clients.WithDryRun).
	Clients *review.Clients
	// Log receives the job's notes and, when the job makes its own
	// review clients, one line per retry of a request to a review
	// server, and in a dry run one per write not done; nil discards
	// them.
	Log io.Writer
	// Progress, when set, receives the benchmarks' progress line,
	// rewritten in place: set it only to a terminal.
	Progress io.Writer
	// Report, when set, is called as each step ends, with the result so
	// far.
	Report func(step string, res *Result)
	// Note, when set, is called as the whole job's post step begins; the
	// line it returns, unless "", is the message's first line
	// (Result.Note). A server's worker says there which revision was
	// measured when a newer one exists, read at reply time, not when the
	// job began. An error stops the post step.
	Note func(ctx context.Context) (string, error)
	// Measured, when set, is what an earlier attempt of the same job's
	// bench step measured: the bench step takes it instead of running
	// the benchmarks again, if it is of the revisions the step would
	// measure. A server's worker keeps it when the reply could not be
	// posted yet (a rate limit), so that the reply waits and the
	// benchmarks do not run twice.
	Measured *benchrun.Result
	// Selected, when set, is the selection of a comparison split over
	// several jobs (Split), for the bench step of one of its parts: its
	// result says the selection as one job of them all would have.
	Selected *benchrun.Selection
	// Tell, when set, hears what a bisection or a track does as it does
	// it, a line at a time (a bisection's step with its benchmarks'
	// verdicts takes a few), without the last newline: the CLI prints
	// them, a worker logs them.
	Tell func(line string)
	// Tracks is the store of track's histories (step/track), for Track.
	Tracks *track.Store
	// QueueBisect, when set, is given the range of each slowdown a
	// Track run finds, to bisect as a job of its own (serve's workers,
	// bot/work) instead of in the run; a range bisected before whose
	// comment is not posted is given again, for its job to comment.
	QueueBisect func(ctx context.Context, r Range) error
	// Runner starts every process of the bench step (go list, go test -c,
	// the benchmarks), which run the patch's code: a sandbox wraps them
	// here. nil is benchrun.Direct. Whatever it is, the processes get an
	// environment without credentials (benchrun strips them), and the
	// posting happens in this process, never in theirs.
	Runner benchrun.Runner
}

// A SetupError is a job refused before anything was done because of the
// configuration or the environment rather than the request: a review
// target without credentials, say. Field names the part of the request it
// concerns, or is "" when the error names its own cause (a variable of the
// environment).
type SetupError struct {
	Field string
	Err   error
}

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Run runs the job req asks for, with the configuration cfg (nil: the
// built-in one), in env. Everything that can be checked before the job
// starts is checked first: a *remedy.FieldError for the request, a *SetupError
// for credentials, a *config.Error for the configuration. Otherwise the
// result is the run's, and the error, when not nil, is a *StepError
// naming the step that stopped the job; the result then holds what the
// steps before it did.
func Run(ctx context.Context, req *Request, cfg *config.Config, env Env) (*Result, error) {
	p, err := prepare(ctx, req, cfg, env)
	if err != nil {
		return nil, err
	}
	return runPlan(ctx, *p)
}

// prepare checks req and turns it, cfg and env into the plan of a run,
// with its review clients built and their credentials checked, without
// doing anything: the first half of Run.
func prepare(ctx context.Context, req *Request, cfg *config.Config, env Env) (*plan, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req = req.withBranch(ctx)
	if !req.has(StepPort) && req.has(StepBench) && req.Repo == "" {
		// A request may be queued before its repository is known (a
		// worker fills it in), but not run so.
		return nil, remedy.Fieldf("repo", "", "missing: the bench step without the port step benchmarks a repository's base and head")
	}
	kind := req.Post.Kind
	if kind == "" {
		kind = MessageKind
	}
	if err := review.CheckKind(kind); err != nil {
		return nil, remedy.Fieldf("post.kind", "", "%v", err)
	}
	rc := &cfg.Review
	clients := env.clients(cfg, req.DryRun)
	o := &plan{
		Repo:     req.Repo,
		Onto:     req.Onto,
		Steps:    req.Steps,
		Base:     req.Base,
		Head:     req.Head,
		Keep:     req.Keep,
		clients:  clients,
		Labels:   rc.Labels,
		Report:   env.Report,
		Kind:     kind,
		Note:     env.Note,
		Asked:    req.Post.Asked,
		Measured: env.Measured,
	}
	var err error
	if o.Port, err = req.portOptions(cfg); err != nil {
		return nil, err
	}
	if o.dryRun() {
		// The port itself is never a dry run: in a dry run it happens
		// in a scratch clone, which is patchbot's own, and writes no
		// rejects into the user's directories.
		o.Port.RejectDir = ""
	}
	o.Inputs = req.inputs()

	// The freeze step: the configuration's calendar and rule, offline, so
	// that the answer depends only on the date and a rerun's message is
	// the same message. It is answered now, once, so that a mistake in
	// the branch or the date is found before anything is ported; the
	// step reports the answer.
	// A job without the step asks nothing of the freeze: a branch the
	// freeze does not know (a project's main) is no mistake there.
	o.Freeze.Branch, o.Freeze.At, o.Freeze.NoTag = req.branch(), req.At, req.Freeze.NoTag
	if req.has(StepFreeze) {
		if o.Freeze.Sources, err = freeze.FromConfig(&cfg.Freeze, true); err != nil {
			return nil, &SetupError{Err: err}
		}
		if o.Freeze.Status, err = checkFreeze(ctx, o.Freeze.Sources, req); err != nil {
			return nil, err
		}
	}

	// The bench step: the request's settings, else the run section's.
	b := req.Bench.orDefaults(cfg.Run.Count, cfg.Run.Benchtime)
	if o.Bench, err = benchOptions(ctx, &b, &cfg.Bench, env); err != nil {
		return nil, err
	}
	o.Bench.Selected = env.Selected

	// The post step's targets, and their credentials.
	if req.Gerrit != nil {
		var push *review.PushOptions
		if o.Gerrit, push, err = gerritTarget(req, rc, clients); err != nil {
			return nil, err
		}
		if push != nil {
			o.Push = push
		} else {
			o.Change, o.Revision = req.Gerrit.Change, req.Gerrit.Revision
		}
	}
	if req.GitHub != nil {
		pr := req.GitHub.PullRequest
		o.PullRequest = &pr
		if o.GitHub, err = githubTarget(clients); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// orDefaults returns b with count and benchtime for the ones it leaves
// zero: a b that asks for neither a number of runs nor auto takes the
// configuration's count, auto or a number.
func (b BenchSettings) orDefaults(count config.Count, benchtime string) BenchSettings {
	if b.Count == 0 && !b.Auto {
		b.Count, b.Auto = count.N, count.Auto
	}
	if b.Benchtime == "" {
		b.Benchtime = benchtime
	}
	return b
}

// benchOptions returns benchrun's options for b, with the configuration's
// timeout, order and alpha; and, when b or the configuration asks for
// the sandbox and env.Runner is not one, a sandbox (after its probe: a
// *SetupError for {bench.sandbox} says why none works here).
func benchOptions(ctx context.Context, b *BenchSettings, bc *config.Bench, env Env) (benchrun.Options, error) {
	runner := env.Runner
	if iso, ok := runner.(benchrun.Isolator); (b.Sandbox || bc.Sandbox) && (!ok || iso.Isolation().Sandbox == "") {
		sb, err := sandbox.New(ctx, &sandbox.Options{Getenv: env.Getenv})
		if err != nil {
			return benchrun.Options{}, &SetupError{Field: "bench.sandbox", Err: err}
		}
		runner = sb
	}
	order, timeout := b.Order, b.Timeout
	if order == "" {
		order = bc.Order
	}
	if timeout == 0 {
		timeout = bc.Timeout
	}
	ord, err := benchrun.ParseOrder(order)
	if err != nil {
		return benchrun.Options{}, &SetupError{Err: err}
	}
	seed := b.Seed
	switch {
	case seed != 0 && ord != benchrun.Shuffled:
		return benchrun.Options{}, remedy.Fieldf("bench.seed", "", "is for the shuffled order: add {bench.order} shuffled")
	case seed == 0 && ord == benchrun.Shuffled:
		// Picked here, and said before the run, so that an interrupted
		// run can be repeated too.
		seed = rand.Uint64N(1 << 53)
		fmt.Fprintf(env.Log, "shuffled order, seed %d ({bench.seed} %d repeats it)\n", seed, seed)
	}
	var plan *verdict.Plan
	if b.Auto {
		maxCount := b.MaxCount
		if maxCount == 0 {
			maxCount = bc.MaxCount
		}
		plan = &verdict.Plan{Looks: verdict.Looks(verdict.Round, maxCount), Alpha: bc.Alpha, Margin: bc.Equivalence.Fraction(), MarginMax: bc.EquivalenceMax.Fraction()}
	}
	return benchrun.Options{
		Packages: b.Packages, SelectAll: b.Select == "all", Bench: b.Bench, Count: b.Count, Benchtime: b.Benchtime,
		CPU: b.CPU, Timeout: timeout, Order: ord, Seed: seed, OutDir: b.OutDir,
		Compare:  &benchrun.CompareOptions{Alpha: bc.Alpha, Margin: bc.Equivalence.Fraction()},
		Plan:     plan,
		AA:       b.AA,
		Progress: env.Progress,
		Runner:   runner,
	}, nil
}

// osGetenv and discard are Env's defaults.
var osGetenv = os.Getenv

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Split returns what the bench step of req would run, one part a package
// (benchrun.Options.Split): the packages the change affects, or those
// named, each with its benchmarks, and the selection (Run.Parts,
// Run.Selection), running none. A server runs each part as a job of its
// own, with the part's package and benchmarks as req.Bench.Packages and
// .Bench, and the selection as Env.Selected, and merges the parts'
// results (benchrun.Merge). req names the repository and both revisions.
func Split(ctx context.Context, req *Request, cfg *config.Config, env Env) (*benchrun.Result, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.Repo == "" || req.Base == "" || req.Head == "" {
		return nil, errors.New("splitting the bench step needs a repository, a base and a head")
	}
	b := req.Bench.orDefaults(cfg.Run.Count, cfg.Run.Benchtime)
	o, err := benchOptions(ctx, &b, &cfg.Bench, env)
	if err != nil {
		return nil, err
	}
	o.Dir, o.Base, o.Head, o.Split = req.Repo, req.Base, req.Head, true
	return benchrun.Run(ctx, o)
}
