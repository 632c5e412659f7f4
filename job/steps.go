package job

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/port"
	"github.com/patchbot/patchbot/step/review"
)

// The steps one at a time, for the commands that run one step and for
// callers that need one: each takes the same Request, checks it as Run
// does, and honours its DryRun by making the review clients and port's
// effects with it, the one write path of each package that writes
// (review's Options.write, port's effects).

// A PortResult is what Port did: the port, and the push when the request
// asked for one.
type PortResult struct {
	Port *port.Result `json:"port"`
	// Push is the push's result; nil when nothing was pushed (no push
	// asked, nothing new to push, or the push failed: then PushError).
	Push      *review.PushResult `json:"push,omitempty"`
	PushError string             `json:"push_error,omitempty"`
}

// Port runs the port step of req: its patches onto its repository with
// req.Port's settings, and, when req.Gerrit.Push is set, a push for review
// of the last commit. A mistake in the push is found before the port, so
// it writes nothing. A push that fails after the port leaves the port in
// place; the error says so.
func Port(ctx context.Context, req *Request, cfg *config.Config, env Env) (*PortResult, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req = req.withBranch(ctx)
	opts, err := req.portOptions(cfg)
	if err != nil {
		return nil, err
	}
	clients := env.clients(cfg, req.DryRun)
	// The port's effects are a dry run when the clients are.
	opts.DryRun = clients.DryRun()
	var push *review.PushOptions
	var g *review.Gerrit
	if req.Gerrit != nil {
		if req.Gerrit.Push == nil {
			return nil, remedy.Fieldf("gerrit.change", "", "the port step posts nothing: push for review, or post with the post step")
		}
		if g, push, err = gerritTarget(req, &cfg.Review, clients); err != nil {
			return nil, err
		}
	}
	res, err := port.Port(ctx, opts, req.inputs())
	if err != nil {
		return nil, err
	}
	out := &PortResult{Port: res}
	if push == nil || len(res.Commits) == 0 {
		return out, nil
	}
	o := *push
	o.Dir, o.Commit = req.Repo, res.Head
	if res.DryRun {
		// The port wrote nothing, so there is no commit to push: say
		// what would be pushed, and where.
		ref, _ := o.Ref()
		out.Push = &review.PushResult{Remote: g.PushRemote(o.Project), Ref: ref, Commit: res.Head, DryRun: true}
		return out, nil
	}
	if out.Push, err = g.Push(ctx, o); err != nil {
		out.Push = nil
		err = fmt.Errorf("push failed: %v. The port itself succeeded: branch %s (at %s) is kept, nothing is lost; to retry, run it again (the port finds the branch up to date and only pushes)",
			err, res.Branch, abbrev.Hash(res.Head))
		out.PushError = err.Error()
		return out, err
	}
	return out, nil
}

// inputs returns the request's patches as the port takes them.
func (r *Request) inputs() []port.Input {
	var in []port.Input
	for _, p := range r.Patches {
		in = append(in, port.Input{Name: p.Name, Data: p.Data})
	}
	return in
}

// portOptions returns the port's options: the configuration's port
// section, then the request's.
func (r *Request) portOptions(cfg *config.Config) (*port.Options, error) {
	opts, err := PortOptions(&cfg.Port)
	if err != nil {
		return nil, err
	}
	for _, s := range r.Port.Remaps {
		rm, err := port.ParseRemap(s)
		if err != nil {
			return nil, remedy.Fieldf("port.remaps", s, "%v", err)
		}
		opts.Remaps = append(opts.Remaps, rm)
	}
	opts.Repo, opts.Onto, opts.Branch = r.Repo, r.Onto, r.Port.Branch
	opts.Fuzz, opts.Author, opts.Message = r.Port.Fuzz, r.Port.Author, r.Port.Message
	opts.Checkout, opts.RejectDir = r.Port.Checkout, r.Port.RejectDir
	return opts, nil
}

// A FreezeResult is what Freeze answered, and what it did to the change
// when asked to act.
type FreezeResult struct {
	*freeze.Status
	Apply *freeze.ApplyResult `json:"apply,omitempty"`
}

// Freeze runs the freeze step of req: whether req.Branch is frozen at
// req.At, from the configuration's calendar and rule and, unless
// req.Freeze.Offline, its live signals; with req.Freeze.Apply, the change
// req.Gerrit.Change is tagged accordingly (freeze.Apply). A release
// freeze is an answer, not an error: the caller decides what it means.
func Freeze(ctx context.Context, req *Request, cfg *config.Config, env Env) (*FreezeResult, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req = req.withBranch(ctx)
	clients := env.clients(cfg, req.DryRun)
	var g *review.Gerrit
	if req.Freeze.Apply {
		if req.Gerrit == nil || req.Gerrit.Change == "" {
			return nil, remedy.Fieldf("gerrit.change", "", "missing: acting on the freeze needs the change to act on")
		}
		var err error
		if g, _, err = gerritTarget(req, &cfg.Review, clients); err != nil {
			return nil, err
		}
	}
	src, err := freeze.FromConfig(&cfg.Freeze, req.Freeze.Offline)
	if err != nil {
		return nil, &SetupError{Err: err}
	}
	if !req.Freeze.Offline {
		server := ""
		if req.Gerrit != nil {
			server = req.Gerrit.Server
		}
		if err := src.AddLive(&cfg.Freeze.Live, server, clients); err != nil {
			return nil, &SetupError{Err: err}
		}
	}
	st, err := checkFreeze(ctx, src, req)
	if err != nil {
		return nil, err
	}
	res := &FreezeResult{Status: st}
	if g != nil {
		res.Apply, err = freeze.Apply(ctx, g, req.Gerrit.Change, st)
	}
	return res, err
}

// checkFreeze checks the freeze of req's branch at req.At (now when zero),
// turning a date freeze cannot answer for into a *remedy.FieldError.
func checkFreeze(ctx context.Context, src *freeze.Sources, req *Request) (*freeze.Status, error) {
	at := req.At
	if at.IsZero() {
		at = time.Now()
	}
	var st *freeze.Status
	var err error
	if project, known := req.project(ctx); known {
		st, err = freeze.CheckProject(ctx, src, project, req.branch(), at)
	} else {
		st, err = freeze.Check(ctx, src, req.branch(), at)
	}
	if de, ok := errors.AsType[*freeze.DateError](err); ok {
		return nil, remedy.Fieldf("at", "", "%v", de)
	}
	if err != nil {
		// Neither calendar nor rule: the configuration's problem.
		return nil, &SetupError{Err: err}
	}
	return st, nil
}

// branch returns the branch the change is for: Branch, which
// withBranch fills in from the repository.
func (r *Request) branch() string {
	if r.Branch == "" {
		return "master"
	}
	return r.Branch
}

// withBranch returns r, or a copy of r with its Branch said when r leaves
// it out: the branch the repository is on (a change in a checkout is for
// the branch it is checked out on: main, on most projects), else master,
// Go's, for the built-in example and a repository on no branch.
func (r *Request) withBranch(ctx context.Context) *Request {
	if r.Branch != "" || r.Repo == "" {
		return r
	}
	b, err := gitOut(ctx, r.Repo, "symbolic-ref", "--short", "-q", "HEAD")
	if err != nil || b == "" {
		return r
	}
	c := *r
	c.Branch = b
	return &c
}

// Bench runs the bench step of req on its own: req.Base against req.Head
// ("HEAD^" and "HEAD" when empty) in req.Repo, with req.Bench's settings
// and, for those it leaves zero, the configuration's bench section (the
// whole job takes its run section's count and benchtime instead).
func Bench(ctx context.Context, req *Request, cfg *config.Config, env Env) (*benchrun.Result, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	b := req.Bench.orDefaults(cfg.Bench.Count, cfg.Bench.Benchtime)
	o, err := benchOptions(ctx, &b, &cfg.Bench, env)
	if err != nil {
		return nil, err
	}
	o.Dir, o.Base, o.Head = req.Repo, req.Base, req.Head
	return benchrun.Run(ctx, o)
}

// A PostResult is what Post did on each target, in order: Gerrit, then
// GitHub.
type PostResult struct {
	Posts  []*review.PostResult `json:"posts"`
	Errors []string             `json:"errors,omitempty"`
}

// Post runs the post step of req on its own: req.Post's text, or its saved
// bench result rendered for each target (plain text for Gerrit, Markdown
// for GitHub), posted once on req.Gerrit's change and req.GitHub's pull
// request. A failure on one target does not keep the message from the
// other; the error is the last one.
func Post(ctx context.Context, req *Request, cfg *config.Config, env Env) (*PostResult, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req = req.withBranch(ctx)
	p := req.Post
	if p.Text == "" && p.Result == nil {
		return nil, remedy.Fieldf("post", "", "missing: give the text to post, or a bench result")
	}
	if req.Gerrit == nil && req.GitHub == nil {
		return nil, remedy.Fieldf("gerrit", "", "nothing to post to: give a Gerrit change or a GitHub pull request")
	}
	kind := p.Kind
	if kind == "" {
		kind = "note"
		if p.Result != nil {
			kind = "bench"
		}
	}
	if err := review.CheckKind(kind); err != nil {
		return nil, remedy.Fieldf("post.kind", "", "%v", err)
	}
	texts := p.Texts()
	// Every client and its credentials are checked before anything is
	// posted anywhere.
	clients := env.clients(cfg, req.DryRun)
	var g *review.Gerrit
	var gh *review.GitHub
	var err error
	if req.Gerrit != nil {
		if req.Gerrit.Change == "" {
			return nil, remedy.Fieldf("gerrit.change", "", "missing: the post step posts to a change (a push needs the port step)")
		}
		if g, _, err = gerritTarget(req, &cfg.Review, clients); err != nil {
			return nil, err
		}
	}
	if req.GitHub != nil {
		if gh, err = githubTarget(clients); err != nil {
			return nil, err
		}
		gh = gh.WithStepSummary(env.Getenv("GITHUB_STEP_SUMMARY"))
	}
	res := &PostResult{Posts: []*review.PostResult{}}
	var last error
	done := func(r *review.PostResult, err error) {
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
			last = err
			return
		}
		res.Posts = append(res.Posts, r)
	}
	if g != nil {
		done(g.Post(ctx, review.GerritPost{
			Change:   req.Gerrit.Change,
			Revision: req.Gerrit.Revision,
			Labels:   cfg.Review.Labels,
			Message:  review.Message{Kind: kind, Text: texts["gerrit"]},
			Once:     p.Once,
		}))
	}
	if gh != nil {
		done(gh.Post(ctx, req.GitHub.PullRequest, review.Message{Kind: kind, Text: texts["github"]}))
	}
	return res, last
}

// gerritTarget returns the client of req's Gerrit server, of clients,
// with its credentials checked unless they are a dry run's, and the push
// req asks for (nil for a change).
func gerritTarget(req *Request, rc *config.Review, clients *review.Clients) (*review.Gerrit, *review.PushOptions, error) {
	g := req.Gerrit
	server := g.Server
	if server == "" {
		server = rc.Gerrit
	}
	if server == "" {
		return nil, nil, remedy.Fieldf("gerrit.server", "", "missing: give the Gerrit server's URL (or set review.gerrit in the configuration)")
	}
	server, err := review.CheckServerURL(server)
	if err != nil {
		return nil, nil, remedy.Fieldf("gerrit.server", "", "%v", err)
	}
	var push *review.PushOptions
	if p := g.Push; p != nil {
		project := p.Project
		if project == "" {
			if req.Example() {
				return nil, nil, remedy.Fieldf("gerrit.push.project", "", "missing: the built-in example's scratch repository has no remote origin to take the project from")
			}
			if project, err = GerritProject(req.Repo, server); err != nil {
				return nil, nil, remedy.Fieldf("gerrit.push.project", "", "missing, and %v, so the Gerrit project cannot be taken from it", err)
			}
		}
		push = &review.PushOptions{
			Project:   project,
			Branch:    req.branch(),
			Topic:     p.Topic,
			Hashtags:  p.Hashtags,
			Reviewers: p.Reviewers,
			CC:        p.CC,
			WIP:       p.WIP,
		}
		if _, err := push.Ref(); err != nil {
			return nil, nil, remedy.Fieldf("gerrit.push", "", "%v", err)
		}
	}
	// Credentials last: a mistake in the request is said first.
	field := "gerrit.change"
	if push != nil {
		field = "gerrit.push"
	}
	client, err := clients.Gerrit(server)
	if err != nil {
		// The environment's credentials themselves are wrong: the
		// error says which variable.
		return nil, nil, &SetupError{Err: err}
	}
	if !client.SignedIn() && !clients.DryRun() {
		u, _ := url.Parse(server)
		return nil, nil, &SetupError{Field: field, Err: fmt.Errorf("no credentials for Gerrit %s: set %s and %s (an HTTP password), or add %s to ~/.gitcookies; nothing was done",
			server, review.EnvGerritUser, review.EnvGerritPassword, u.Hostname())}
	}
	return client, push, nil
}

// githubTarget returns the GitHub client of clients, with its token
// checked unless they are a dry run's.
func githubTarget(clients *review.Clients) (*review.GitHub, error) {
	gh, err := clients.GitHub()
	if err != nil {
		return nil, &SetupError{Field: "github", Err: err}
	}
	if !gh.SignedIn() && !clients.DryRun() {
		// Found now, not after minutes of benchmarks.
		return nil, &SetupError{Field: "github", Err: fmt.Errorf("no credentials: set %s; nothing was done", review.EnvGitHubToken)}
	}
	return gh, nil
}

func (env Env) orDefaults() Env {
	if env.Getenv == nil {
		env.Getenv = osGetenv
	}
	if env.Log == nil {
		env.Log = discard{}
	}
	if env.Tell == nil {
		env.Tell = func(string) {}
	}
	return env
}

func orDefault(cfg *config.Config) *config.Config {
	if cfg == nil {
		return config.Default()
	}
	return cfg
}

// MaxPost is the largest input ParsePost and ReadPost take: a bench
// result's limit, benchrun.MaxJSON (far more than any review message).
const MaxPost = benchrun.MaxJSON

// ReadPost reads what to post from rd, the input called name, as
// ParsePost does, reading no more than MaxPost bytes: a larger input is
// refused before it is all in memory.
func ReadPost(name string, rd io.Reader) (PostSettings, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxPost+1))
	if err != nil {
		return PostSettings{}, fmt.Errorf("%s: %v", name, err)
	}
	return ParsePost(name, data)
}

// ParsePost reads what to post from data, the content of the input called
// name: a result of 'patchbot bench -json' (a JSON object, read strictly,
// as benchrun.DecodeJSON reads it: it may be a pull request's artifact,
// and posting raw JSON to a review is never what was meant), or any other
// text, posted as it is. An input larger than MaxPost is refused.
func ParsePost(name string, data []byte) (PostSettings, error) {
	if len(data) > MaxPost {
		return PostSettings{}, fmt.Errorf("%s is larger than %d MiB: refused, nothing is posted", name, MaxPost>>20)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return PostSettings{}, fmt.Errorf("%s is empty: nothing to post", name)
	}
	if trimmed[0] != '{' {
		return PostSettings{Text: string(data)}, nil
	}
	r, err := benchrun.DecodeJSON(trimmed)
	if err != nil {
		return PostSettings{}, fmt.Errorf("%s is JSON but not a bench result (%v); post text, or a bench result", name, err)
	}
	return PostSettings{Result: r}, nil
}

// Texts returns the text Post posts to each kind of server: "gerrit"
// (plain text) and "github" (Markdown).
func (p *PostSettings) Texts() map[string]string {
	if p.Result == nil {
		return map[string]string{"gerrit": p.Text, "github": p.Text}
	}
	return map[string]string{"gerrit": p.Result.String(benchrun.Gerrit), "github": p.Result.String(benchrun.Markdown)}
}
