package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/patchbot/patchbot/benchrun"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/workflow/freeze"
	"github.com/patchbot/patchbot/workflow/port"
	"github.com/patchbot/patchbot/workflow/review"
	"github.com/patchbot/patchbot/workflow/run"
)

// An Env is what a job may take from the process that runs it, and where
// it reports. None of it is in the Request: credentials are read through
// Getenv when the job runs, and never stored or printed.
type Env struct {
	// Getenv reads the credentials (PATCHBOT_GERRIT_USER and
	// PATCHBOT_GERRIT_PASSWORD, GITHUB_TOKEN, GITHUB_API_URL; HOME for
	// ~/.gitcookies); nil is os.Getenv.
	Getenv func(string) string
	// Log receives one line per retry of a request to a review server,
	// and in a dry run one per write not done; nil discards them.
	Log io.Writer
	// Progress, when set, receives the benchmarks' progress line,
	// rewritten in place: set it only to a terminal.
	Progress io.Writer
	// Report, when set, is called as each step ends, with the result so
	// far.
	Report func(step string, res *run.Result)
}

// A SetupError is a job refused before anything was done because of the
// configuration or the environment rather than the request: a review
// target without credentials, say. Field names the part of the request it
// concerns.
type SetupError struct {
	Field string
	Err   error
}

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Run runs the job req asks for, with the configuration cfg (nil: the
// built-in one), in env. Everything that can be checked before the job
// starts is checked first: a *FieldError for the request, a *SetupError
// for credentials, a *config.Error for the configuration. Otherwise the
// result is the run's, and the error, when not nil, is a *run.StepError
// naming the step that stopped the job; the result then holds what the
// steps before it did.
func Run(ctx context.Context, req *Request, cfg *config.Config, env Env) (*run.Result, error) {
	o, err := Prepare(ctx, req, cfg, env)
	if err != nil {
		return nil, err
	}
	return run.Run(ctx, *o)
}

// Prepare checks req and turns it, cfg and env into the options of a run,
// with its review clients built and their credentials checked, without
// doing anything: the first half of Run, for callers that show the plan.
func Prepare(ctx context.Context, req *Request, cfg *config.Config, env Env) (*run.Options, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = config.Default()
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Log == nil {
		env.Log = io.Discard
	}
	rc := &cfg.Review
	o := &run.Options{
		Repo:   req.Repo,
		Onto:   req.Onto,
		Steps:  req.Steps,
		Base:   req.Base,
		Head:   req.Head,
		Keep:   req.Keep,
		DryRun: req.DryRun,
		Labels: rc.Labels,
		Report: env.Report,
	}
	var err error
	if o.Port, err = PortOptions(&cfg.Port); err != nil {
		return nil, err
	}
	for _, p := range req.Patches {
		o.Inputs = append(o.Inputs, port.Input{Name: p.Name, Data: p.Data})
	}

	// The freeze step: the configuration's calendar and rule, offline, so
	// that the answer depends only on the date and a rerun's message is
	// the same message. The branch and the date are checked now, so that
	// a mistake in them is found before anything is ported.
	o.Freeze.Branch = req.Branch
	if o.Freeze.Branch == "" {
		o.Freeze.Branch = "master"
	}
	o.Freeze.At = req.At
	if o.Freeze.Sources, err = freeze.FromConfig(&cfg.Freeze, true); err != nil {
		return nil, err
	}
	at := o.Freeze.At
	if at.IsZero() {
		at = time.Now()
	}
	if _, err := freeze.Check(ctx, o.Freeze.Sources, o.Freeze.Branch, at); err != nil {
		if be, ok := errors.AsType[*freeze.BranchError](err); ok {
			return nil, fieldError("branch", "", "%v", be)
		}
		if de, ok := errors.AsType[*freeze.DateError](err); ok {
			return nil, fieldError("at", "", "%v", de)
		}
		return nil, err
	}

	// The bench step: the request's settings, else the configuration's.
	b := req.Bench
	if b.Count == 0 {
		b.Count = cfg.Run.Count
	}
	if b.Benchtime == "" {
		b.Benchtime = cfg.Run.Benchtime
	}
	ord, err := benchrun.ParseOrder(cfg.Bench.Order)
	if err != nil {
		return nil, err
	}
	o.Bench = benchrun.Options{
		Packages: b.Packages, Bench: b.Bench, Count: b.Count, Benchtime: b.Benchtime,
		Timeout: cfg.Bench.Timeout, Order: ord, OutDir: b.OutDir,
		Compare:  &benchrun.CompareOptions{Alpha: cfg.Bench.Alpha},
		Progress: env.Progress,
	}

	// The post step's targets, and their credentials.
	if g := req.Gerrit; g != nil {
		if err := prepareGerrit(o, req, g, rc, env); err != nil {
			return nil, err
		}
	}
	if h := req.GitHub; h != nil {
		pr, _ := review.ParsePullRequest(h.PullRequest) // checked by Validate
		o.PullRequest = &pr
		auth := review.GitHubAuthFromEnv(env.Getenv)
		if auth.Token.Reveal() == "" && !req.DryRun {
			// Found now, not after minutes of benchmarks.
			return nil, &SetupError{Field: "github", Err: fmt.Errorf("no credentials: set %s; nothing was done", review.EnvGitHubToken)}
		}
		if o.GitHub, err = review.NewGitHub(auth, ReviewOptions(rc, req.DryRun, env.Log)); err != nil {
			return nil, &SetupError{Field: "github", Err: err}
		}
	}
	return o, nil
}

// prepareGerrit sets the Gerrit target of o: the client, and the push or
// the change.
func prepareGerrit(o *run.Options, req *Request, g *Gerrit, rc *config.Review, env Env) error {
	server := g.Server
	if server == "" {
		server = rc.Gerrit
	}
	if server == "" {
		return fieldError("gerrit.server", "", "missing: give the Gerrit server's URL (or set review.gerrit in the configuration)")
	}
	server, err := review.CheckServerURL(server)
	if err != nil {
		return fieldError("gerrit.server", "", "%v", err)
	}
	if p := g.Push; p != nil {
		project := p.Project
		if project == "" {
			if req.Example() {
				return fieldError("gerrit.push.project", "", "missing: the built-in example's scratch repository has no remote origin to take the project from")
			}
			if project, err = GerritProject(req.Repo, server); err != nil {
				return fieldError("gerrit.push.project", "", "missing, and %v, so the Gerrit project cannot be taken from it", err)
			}
		}
		branch := req.Branch
		if branch == "" {
			branch = "master"
		}
		o.Push = &review.PushOptions{
			Project:   project,
			Branch:    branch,
			Topic:     p.Topic,
			Hashtags:  p.Hashtags,
			Reviewers: p.Reviewers,
			CC:        p.CC,
			WIP:       p.WIP,
		}
		if _, err := o.Push.Ref(); err != nil {
			return fieldError("gerrit.push", "", "%v", err)
		}
	} else {
		o.Change, o.Revision = g.Change, g.Revision
	}
	// Credentials last: a mistake in the request is said first.
	field := "gerrit.change"
	if g.Push != nil {
		field = "gerrit.push"
	}
	client, signedIn, err := NewGerrit(server, env.Getenv, ReviewOptions(rc, req.DryRun, env.Log))
	if err != nil {
		return &SetupError{Field: field, Err: err}
	}
	if !signedIn && !req.DryRun {
		u, _ := url.Parse(server)
		return &SetupError{Field: field, Err: fmt.Errorf("no credentials for Gerrit %s: set %s and %s (an HTTP password), or add %s to ~/.gitcookies; nothing was done",
			server, review.EnvGerritUser, review.EnvGerritPassword, u.Hostname())}
	}
	o.Gerrit = client
	return nil
}
