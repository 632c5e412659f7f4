package job

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/verdict"
)

// AllSteps are the steps of a Request whose Steps is empty.
var AllSteps = []string{StepPort, StepFreeze, StepBench, StepPost}

// A Request is one job. The zero Request runs the built-in example: its
// patch ported onto a scratch repository, the freeze checked, codec
// benchmarked before and after, and the review message printed.
type Request struct {
	// Steps are the steps to run, from AllSteps; empty means all of them.
	// They always run in AllSteps' order, whatever the order here.
	Steps []string `json:"steps,omitempty"`

	// Repo is the Git repository the job works in; "" is the built-in
	// example, which takes no patches.
	Repo string `json:"repo,omitempty"`
	// Onto is the revision the patches are ported onto; "" is HEAD.
	Onto string `json:"onto,omitempty"`
	// Patches are the patch files, in order, as their bytes.
	Patches []Patch `json:"patches,omitempty"`

	// Base and Head, for a job without the port step, are the revisions
	// the bench step compares (a pull request's merge base and head).
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`

	// Branch is the branch the change is for: the one whose freeze is
	// checked, and the one a push is for; "" is the branch Repo is on,
	// else master (the built-in example's, Go's).
	Branch string `json:"branch,omitempty"`
	// Project is the repository the change is for, as its host and path
	// (ProjectOf): a freeze policy governs only its projects
	// (freeze.projects). "" is the one Repo's remote named origin names;
	// the built-in example, with neither, asks the policy itself.
	Project string `json:"project,omitempty"`
	// At is the moment the freeze is checked at; zero is when the job
	// runs.
	At time.Time `json:"at,omitzero"`

	Bench BenchSettings `json:"bench,omitzero"`

	// Port, Freeze and Post are the settings of those steps that a
	// command running the step on its own needs.
	Port   PortSettings   `json:"port,omitzero"`
	Freeze FreezeSettings `json:"freeze,omitzero"`
	Post   PostSettings   `json:"post,omitzero"`

	// Gerrit and GitHub are the review targets of the post step; with
	// neither, the message is printed.
	Gerrit *Gerrit `json:"gerrit,omitempty"`
	GitHub *GitHub `json:"github,omitempty"`

	// DryRun changes nothing of the user's: a port is made in a scratch
	// clone, and nothing is pushed, tagged or posted.
	DryRun bool `json:"dry_run,omitempty"`
	// Keep keeps the scratch directory (the example's repository, or a
	// dry run's clone).
	Keep bool `json:"keep,omitempty"`
}

// A Patch is one patch file.
type Patch struct {
	Name string `json:"name"` // for messages: the file name
	Data []byte `json:"data"` // its bytes (base64 in JSON: a patch need not be UTF-8)
}

// BenchSettings are what the bench step measures. Zero fields take the
// configuration's values (run.count, run.benchtime).
type BenchSettings struct {
	Packages []string `json:"packages,omitempty"` // go list patterns; empty: the packages the change affects
	// Select is how the packages and benchmarks are picked when
	// Packages is empty: "affected" (the default, "") those the change
	// affects and can reach, "all" every one of the module.
	Select string `json:"select,omitempty"`
	Bench  string `json:"bench,omitempty"` // the -test.bench regexp; "": all (the example's story for the example)
	Count  int    `json:"count,omitempty"` // runs per side
	// Auto makes the comparison sequential (-count auto): rounds of 6
	// runs a side, each benchmark run until it is decided, at most
	// MaxCount runs a side (0: bench.max_count). Count is then unused.
	Auto     bool `json:"auto,omitempty"`
	MaxCount int  `json:"max_count,omitempty"`
	// AA compares the head with itself, one binary on both sides, to
	// measure the false alarms: Base is then unused.
	AA        bool   `json:"aa,omitempty"`
	Benchtime string `json:"benchtime,omitempty"` // each run's -test.benchtime
	OutDir    string `json:"out_dir,omitempty"`   // where to keep the raw results, old.txt and new.txt

	// The rest: zero takes the configuration's bench section, in the
	// whole job as in the bench step on its own.
	CPU     string        `json:"cpu,omitempty"`        // the -test.cpu list
	Timeout time.Duration `json:"timeout_ns,omitempty"` // how long one run may take
	Order   string        `json:"order,omitempty"`      // interleaved, sequential or shuffled
	Seed    uint64        `json:"seed,omitempty"`       // of the shuffled order

	// Sandbox runs the bench step in the sandbox (package sandbox);
	// false leaves it to bench.sandbox. A sandbox Env.Runner is one
	// already.
	Sandbox bool `json:"sandbox,omitempty"`
}

// PortSettings are the port step's own settings; the configuration's port
// section gives the rest.
type PortSettings struct {
	Branch    string   `json:"branch,omitempty"`     // the branch to create; "": port.branch_prefix and the hg node
	Checkout  bool     `json:"checkout,omitempty"`   // check the branch out
	Fuzz      int      `json:"fuzz,omitempty"`       // context lines a hunk may ignore at each end
	RejectDir string   `json:"reject_dir,omitempty"` // where to write the hunks that fail
	Author    string   `json:"author,omitempty"`     // 'Name <email>' of a diff without metadata
	Message   string   `json:"message,omitempty"`    // the message of a diff without metadata
	Remaps    []string `json:"remaps,omitempty"`     // OLD=NEW path remaps, after the configuration's
}

// FreezeSettings are the freeze step's own settings.
type FreezeSettings struct {
	// Offline leaves out the live signals: the answer comes from the
	// calendar and the rule only, and depends on the date alone. The
	// whole job (Run) always checks offline, so that a rerun's message
	// is the same message.
	Offline bool `json:"offline,omitempty"`
	// Apply acts on the answer: the change gerrit.change is tagged
	// wait-release while the tree is frozen, and ex-wait-release once
	// it reopens, with one message saying so (freeze.Apply). It is the
	// freeze step's on its own (Freeze): the whole job (Run) tags the
	// change it posts to unless NoTag.
	Apply bool `json:"apply,omitempty"`
	// NoTag, in the whole job (Run), leaves the hashtags of the change
	// it posts to alone: the answer is said in the review message only.
	// A reviewer's /patchbot freeze asks; it does not tag the change,
	// nor get freeze's own message beside the reply (serve's worker).
	NoTag bool `json:"no_tag,omitempty"`
}

// PostSettings are what the post step posts when it runs on its own: a
// text, or a saved bench result, rendered for each target; and the kind
// of the whole job's review message.
type PostSettings struct {
	// Kind is the kind of the message (review.Message): one per kind and
	// patch set on Gerrit, one comment per kind on GitHub. "" is, for
	// the post step on its own, bench for a result and note otherwise;
	// for the whole job (Run), run (MessageKind). A server's worker
	// replies as serve-COMMAND- and its job's identity.
	Kind   string           `json:"kind,omitempty"`
	Text   string           `json:"text,omitempty"`
	Result *benchrun.Result `json:"result,omitempty"`
	// Once posts at most one message of the kind per patch set on
	// Gerrit, whatever its text (review.GerritPost.Once): for a text
	// that differs from run to run. GitHub's one comment of the kind is
	// edited in place either way.
	Once bool `json:"once,omitempty"`
	// Asked, for the whole job (Run), is the command the message
	// answers, said first in it (Result.Asked).
	Asked *Asked `json:"asked,omitempty"`
}

// Asked is a command that a job answers: a server's worker names it at
// the head of its reply, so that a reviewer who asked twice, or two
// reviewers, can tell which reply is whose.
type Asked struct {
	Command string `json:"command"`       // as written, normalised: "/patchbot bench -count 5"
	Who     string `json:"who,omitempty"` // who asked: a login, a Gerrit account
}

// Gerrit is a review target on a Gerrit server: an existing change, or a
// push that creates or updates one.
type Gerrit struct {
	// Server is the server's URL; "" is review.gerrit of the
	// configuration.
	Server string `json:"server,omitempty"`
	// Change is the change to post to: a number, project~number or
	// Change-Id. Revision binds the post to one patch set (a number, or
	// the patch set's commit); "" is the current one.
	Change   string `json:"change,omitempty"`
	Revision string `json:"revision,omitempty"`
	// Push, instead of Change, pushes the last ported commit for review
	// and posts to the change it creates or updates.
	Push *Push `json:"push,omitempty"`
}

// Push is a push for review, as refs/for/BRANCH with Gerrit's options.
type Push struct {
	// Project is the Gerrit project; "" is the path of the repository's
	// remote origin, when that is on the server.
	Project   string   `json:"project,omitempty"`
	Topic     string   `json:"topic,omitempty"`
	Hashtags  []string `json:"hashtags,omitempty"`
	Reviewers []string `json:"reviewers,omitempty"`
	CC        []string `json:"cc,omitempty"`
	WIP       bool     `json:"wip,omitempty"`
}

// GitHub is a pull request to post to, as its patchbot comment.
type GitHub struct {
	PullRequest review.PullRequest `json:"pull_request"` // OWNER/REPO#N in JSON
	// HeadSHA, when set, is the commit the job was asked for: the
	// pull request's head when the command was written.
	HeadSHA string `json:"head_sha,omitempty"`
	// CloneURL, when set, is the git URL the pull request is fetched
	// from, as GitHub named it (review.PullRequestHead.CloneURL); a
	// queued job without it reads it from GitHub.
	CloneURL string `json:"clone_url,omitempty"`
	// Unverified is set when whoever bound the job to HeadSHA could not
	// tell whether that head was pushed before the command was written
	// (serve had no pull_request event for it): the reply says which
	// commit was measured, and that it may be newer than the command.
	Unverified bool `json:"unverified,omitempty"`
}

// has reports whether the request runs step.
func (r *Request) has(step string) bool {
	return len(r.Steps) == 0 || slices.Contains(r.Steps, step)
}

// Example reports whether the request is the built-in example.
func (r *Request) Example() bool {
	return r.Repo == "" && len(r.Patches) == 0 && r.Base == "" && r.Head == ""
}

var hexRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Bounds of a request, which may come from a queue that others fill: no
// field may make a job unbounded.
const (
	MaxCount        = 1000      // runs per side
	MaxPatches      = 1000      // patch files
	MaxPatchBytes   = 512 << 20 // all patches together
	MaxBenchPattern = 1000      // bytes of the bench regexp
)

// Validate checks the request on its own, without the configuration or
// any repository or server: the first problem found is a *remedy.FieldError.
func (r *Request) Validate() error {
	for i, s := range r.Steps {
		if !slices.Contains(AllSteps, s) {
			return remedy.Fieldf(fmt.Sprintf("steps[%d]", i), s, "unknown step (the steps are %s)", strings.Join(AllSteps, ", "))
		}
		if slices.Contains(r.Steps[:i], s) {
			return remedy.Fieldf(fmt.Sprintf("steps[%d]", i), s, "given twice")
		}
	}
	switch {
	case r.Repo == "" && len(r.Patches) > 0:
		return remedy.Fieldf("repo", "", "patches need a repository to port onto (without both, the job is the built-in example)")
	case r.Repo == "" && r.Onto != "":
		return remedy.Fieldf("onto", r.Onto, "needs patches and a repository (the built-in example ports onto its own base)")
	case r.Repo != "" && r.has(StepPort) && len(r.Patches) == 0:
		return remedy.Fieldf("patches", "", "the port step needs a patch (or leave the port step out and give base and head)")
	case (r.Base != "" || r.Head != "") && r.has(StepPort):
		return remedy.Fieldf("base", r.Base, "base and head are for a job without the port step, which makes its own")
	case r.Head != "" && r.Base == "":
		return remedy.Fieldf("base", "", "missing: a head needs a base to compare it with")
	case r.Base != "" && r.Repo == "":
		return remedy.Fieldf("repo", "", "base and head need the repository they are in")
	}
	if len(r.Patches) > MaxPatches {
		return remedy.Fieldf("patches", "", "%d patch files: at most %d", len(r.Patches), MaxPatches)
	}
	size := 0
	for i, p := range r.Patches {
		if p.Name == "" {
			return remedy.Fieldf(fmt.Sprintf("patches[%d].name", i), "", "missing: name each patch, for messages")
		}
		if size += len(p.Data); size > MaxPatchBytes {
			return remedy.Fieldf("patches", "", "more than %d MiB of patches", MaxPatchBytes>>20)
		}
	}
	if r.Branch != "" {
		if err := CheckBranch(r.Branch); err != nil {
			return remedy.Fieldf("branch", "", "%v", err)
		}
	}
	if r.Project != "" && (len(r.Project) > 500 || ProjectOf("https://"+r.Project) != r.Project) {
		return remedy.Fieldf("project", r.Project, "not a repository's host and path, like github.com/golang/go")
	}
	if err := r.Bench.validate(); err != nil {
		return err
	}
	if err := r.Port.validate(); err != nil {
		return err
	}
	if g := r.Gerrit; g != nil {
		if g.Server != "" {
			if _, err := review.CheckServerURL(g.Server); err != nil {
				return remedy.Fieldf("gerrit.server", "", "%v", err)
			}
		}
		switch {
		case g.Change != "" && g.Push != nil:
			return remedy.Fieldf("gerrit.push", "", "a push posts to the change it pushes: give change or push, not both")
		case g.Change == "" && g.Push == nil && (r.has(StepPost) || r.Freeze.Apply):
			// Without either, the server is only read (the freeze step's
			// live signals).
			return remedy.Fieldf("gerrit.change", "", "missing: give the change to post to, or a push")
		case g.Revision != "" && g.Change == "":
			return remedy.Fieldf("gerrit.revision", g.Revision, "needs a change")
		case g.Push != nil && !r.has(StepPort):
			return remedy.Fieldf("gerrit.push", "", "a push needs the port step, whose last commit it pushes")
		}
		if p := g.Push; p != nil && p.Project != "" {
			if err := CheckProject(p.Project); err != nil {
				return remedy.Fieldf("gerrit.push.project", "", "%v", err)
			}
		}
	}
	if h := r.GitHub; h != nil {
		if h.PullRequest.IsZero() {
			return remedy.Fieldf("github.pull_request", "", "missing: give the pull request, OWNER/REPO#N")
		}
		if err := h.PullRequest.Check(); err != nil {
			return remedy.Fieldf("github.pull_request", "", "%v", err)
		}
		if h.HeadSHA != "" && !hexRE.MatchString(h.HeadSHA) {
			return remedy.Fieldf("github.head_sha", h.HeadSHA, "not a commit: want 40 lower-case hex digits")
		}
	}
	return nil
}

func (b *BenchSettings) validate() error {
	if b.Count < 0 || b.Count > MaxCount {
		return remedy.Fieldf("bench.count", fmt.Sprint(b.Count), "must be from 1 to %d", MaxCount)
	}
	if b.MaxCount != 0 && (b.MaxCount < verdict.Round || b.MaxCount > MaxCount) {
		return remedy.Fieldf("bench.max_count", fmt.Sprint(b.MaxCount), "must be from %d (one round of an automatic count) to %d", verdict.Round, MaxCount)
	}
	if b.Select != "" && b.Select != "affected" && b.Select != "all" {
		return remedy.Fieldf("bench.select", b.Select, "must be affected or all")
	}
	if b.Benchtime != "" {
		if err := config.ValidBenchtime(b.Benchtime); err != nil {
			return remedy.Fieldf("bench.benchtime", "", "%v", err)
		}
	}
	if len(b.Bench) > MaxBenchPattern {
		return remedy.Fieldf("bench.bench", "", "a regexp of %d bytes: at most %d", len(b.Bench), MaxBenchPattern)
	}
	if b.Bench != "" {
		if _, err := regexp.Compile(b.Bench); err != nil {
			return remedy.Fieldf("bench.bench", b.Bench, "not a regular expression: %v", err)
		}
	}
	if b.Timeout < 0 {
		return remedy.Fieldf("bench.timeout_ns", fmt.Sprint(b.Timeout), "must not be negative")
	}
	if b.Order != "" {
		if _, err := benchrun.ParseOrder(b.Order); err != nil {
			return remedy.Fieldf("bench.order", "", "%v", err)
		}
	}
	for i, p := range b.Packages {
		if p == "" || strings.HasPrefix(p, "-") || strings.ContainsAny(p, " \t\n\x00") {
			return remedy.Fieldf(fmt.Sprintf("bench.packages[%d]", i), p, "not a package pattern like ./codec or ./...")
		}
	}
	return nil
}

func (p *PortSettings) validate() error {
	if p.Fuzz < 0 {
		return remedy.Fieldf("port.fuzz", fmt.Sprint(p.Fuzz), "must be 0 or more")
	}
	return nil
}

// ParseAt parses a moment as the commands take it (Request.At, -at): a day
// like 2014-11-06 (its start, UTC), or an RFC 3339 time.
func ParseAt(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date like 2014-11-06 (or a time like 2014-11-06T15:04:05Z)", s)
}
