package work

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
)

// A PartQueue is where a bench job of several packages is split into one
// job a package (queue.Part) and where the parts' results meet: the
// queue, *queue.Queue. A Worker with none runs every package in its own
// job, as the CLI does.
type PartQueue interface {
	Insert(ctx context.Context, a *queue.Args) (queue.InsertResult, error)
	RecordSplit(ctx context.Context, whole string, parts int, data []byte) error
	RecordPart(ctx context.Context, whole string, idx, parts int, data []byte) error
	Parts(ctx context.Context, whole string) ([]queue.PartRecord, error)
	ClaimFinal(ctx context.Context, whole string, part int) (bool, error)
}

var _ PartQueue = (*queue.Queue)(nil)

// wholeKey names the comparison a bench job and its parts make, in the
// parts' records: its review and its reply's kind (ReplyKind, the same
// for the whole and each part).
func wholeKey(a *queue.Args) string { return a.Review.String() + " " + ReplyKind(a) }

// A splitRecord is what a split comparison's parts share.
type splitRecord struct {
	Packages  []string            `json:"packages"` // the parts' directories, in order
	Selection *benchrun.Selection `json:"selection,omitempty"`
	// Base and Head are the commits compared, for a reply posted
	// without a checkout (a part that failed before it had one).
	Base string `json:"base"`
	Head string `json:"head"`
}

// A partRecord is what one part left: its result, or why it has none.
type partRecord struct {
	Bench  *benchrun.Result `json:"bench,omitempty"`
	Failed string           `json:"failed,omitempty"` // the failure, in a line, as a reviewer may read it
}

// split splits the bench job j into one job a package when its
// comparison has several (job.Split): it records what they share, posts
// on GitHub the comment each part will edit, queues the parts, and
// returns true. With one package or none it returns false, and req is
// set to run that package without selecting again.
func (w *Worker) split(ctx context.Context, j *queue.Job, req *job.Request, env *job.Env) (bool, error) {
	a := &j.Args
	plan, err := job.Split(ctx, req, w.Config, *env)
	if _, ok := errors.AsType[*benchrun.NoBenchmarksError](err); ok {
		return false, nil // job.Run says so in the reply
	}
	if err != nil {
		return false, err
	}
	parts := plan.Run.Parts
	switch {
	case len(parts) == 0:
		return false, nil
	case len(parts) == 1:
		req.Bench.Packages, req.Bench.Bench = []string{parts[0].Dir}, parts[0].Bench
		env.Selected = plan.Run.Selection
		return false, nil
	case len(parts) > queue.MaxParts:
		return false, nil // one job runs them all
	}
	rec := splitRecord{Selection: plan.Run.Selection, Base: req.Base, Head: req.Head}
	for _, p := range parts {
		rec.Packages = append(rec.Packages, p.Dir)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	whole := wholeKey(a)
	if err := w.Parts.RecordSplit(ctx, whole, len(parts), data); err != nil {
		return false, err
	}
	if a.Review.GitHub != nil {
		// The comment the parts edit, made before any part can run, so
		// that two parts finishing at once edit one comment rather
		// than each create one.
		if err := w.postStarted(ctx, a, req, rec.Packages); err != nil {
			return false, err
		}
	}
	for i, p := range parts {
		part := *a
		part.Part = &queue.Part{Index: i, Of: len(parts), Package: p.Dir, Bench: p.Bench}
		part.Delivery = ""
		if _, err := w.Parts.Insert(ctx, &part); err != nil {
			return false, err
		}
	}
	w.record(j, &Output{Split: rec.Packages})
	return true, nil
}

// postStarted posts the whole's reply before its parts ran: which
// packages, one job each. A whole run again after a part recorded its
// result posts the parts' reply instead, so that this never replaces one.
func (w *Worker) postStarted(ctx context.Context, a *queue.Args, req *job.Request, pkgs []string) error {
	recs, err := w.Parts.Parts(ctx, wholeKey(a))
	if err != nil {
		return err
	}
	if len(recs) > 1 {
		return nil
	}
	p := job.Request{Steps: []string{job.StepPost}, GitHub: req.GitHub, DryRun: req.DryRun}
	p.Post = job.PostSettings{Kind: ReplyKind(a), Text: startedText(asked(a), pkgs)}
	_, err = job.Post(ctx, &p, w.Config, w.jobEnv())
	return err
}

// startedText is the reply of a whole before its parts finish.
func startedText(asked *job.Asked, pkgs []string) string {
	var b strings.Builder
	res := &job.Result{Asked: asked}
	b.WriteString(job.Compose(res, benchrun.Markdown))
	fmt.Fprintf(&b, "Benchmarking %d packages, one job each, on as many workers as the server has: ", len(pkgs))
	for i, p := range pkgs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + p + "`") // a package directory: letters, digits, "./-_~+"
	}
	b.WriteString(". This comment is edited as each finishes.\n")
	return b.String()
}

// runPart runs part j of a split comparison: its package's benchmarks
// alone, recorded with the whole's parts, and then the whole's reply, of
// every part recorded so far.
func (w *Worker) runPart(ctx context.Context, j *queue.Job, req job.Request, env job.Env) error {
	a := &j.Args
	p := a.Part
	whole := wholeKey(a)
	split, err := w.readSplit(ctx, whole)
	if err != nil {
		return err
	}
	req.Bench.Packages, req.Bench.Bench = []string{p.Package}, p.Bench
	env.Selected = split.Selection
	bench := req
	bench.Steps = []string{job.StepBench}
	res, err := job.Run(ctx, &bench, w.Config, env)
	if err != nil {
		if res != nil && res.Bench != nil {
			w.record(j, &Output{Bench: res.Bench})
		}
		return err
	}
	if err := w.recordPart(ctx, j, partRecord{Bench: res.Bench}); err != nil {
		return err
	}
	url, err := w.postParts(ctx, j, req, env)
	w.record(j, &Output{URL: url, Bench: res.Bench})
	return err
}

// partFailed records that part j failed for good, with failed in a line,
// and posts the whole's reply, which says so of its package.
func (w *Worker) partFailed(ctx context.Context, j *queue.Job, failed error) (string, error) {
	root := ""
	if w.Areas != nil {
		root = w.Areas.Root
	}
	if err := w.recordPart(ctx, j, partRecord{Failed: failureLine(failed, w.secrets(), root)}); err != nil {
		return "", err
	}
	req := j.Args.Request
	asReply(&j.Args, &req)
	return w.postParts(ctx, j, req, w.jobEnv())
}

// recordPart records what part j left, without each run's value when the
// whole would be over the queue's bound.
func (w *Worker) recordPart(ctx context.Context, j *queue.Job, r partRecord) error {
	data, err := json.Marshal(r)
	if err == nil && len(data) > queue.MaxOutput && r.Bench != nil {
		r.Bench = withoutValues(r.Bench)
		data, err = json.Marshal(r)
	}
	if err != nil {
		return err
	}
	return w.Parts.RecordPart(ctx, wholeKey(&j.Args), j.Args.Part.Index, j.Args.Part.Of, data)
}

func (w *Worker) readSplit(ctx context.Context, whole string) (*splitRecord, error) {
	recs, err := w.Parts.Parts(ctx, whole)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || recs[0].Index != -1 {
		return nil, queue.Permanent(fmt.Errorf("work: the split of %s is not recorded: its parts cannot be told apart", whole))
	}
	var s splitRecord
	if err := json.Unmarshal(recs[0].Data, &s); err != nil {
		return nil, queue.Permanent(fmt.Errorf("work: the split of %s: %v", whole, err))
	}
	return &s, nil
}

// postParts posts the whole's reply of the parts recorded so far: on
// GitHub, the one comment, edited, saying how many of the packages it
// holds until it holds them all; on Gerrit, where a message is not
// edited, one message once every part is recorded, from the part that
// claims it. After posting it reads the parts again and posts again if
// more were recorded meanwhile, so that the last reply holds every part
// recorded before it, whichever part finished last.
func (w *Worker) postParts(ctx context.Context, j *queue.Job, req job.Request, env job.Env) (string, error) {
	a := &j.Args
	whole := wholeKey(a)
	url, posted := "", -1
	for range queue.MaxParts + 1 {
		recs, err := w.Parts.Parts(ctx, whole)
		if err != nil {
			return url, err
		}
		if len(recs)-1 == posted {
			return url, nil
		}
		merged, split, done, err := mergeParts(recs)
		if err != nil {
			return url, queue.Permanent(err)
		}
		if a.Review.Gerrit != nil {
			if done < a.Part.Of {
				return "", nil // the last part posts
			}
			// The part that claims it posts; a part run again after
			// claiming (its post failed) claims again.
			mine, err := w.Parts.ClaimFinal(ctx, whole, a.Part.Index)
			if err != nil {
				return "", err
			}
			if !mine {
				return "", nil
			}
		}
		post := req
		post.Base, post.Head = split.Base, split.Head
		if post.Repo == "" {
			// A part that failed before its checkout: the result is
			// measured (Env.Measured), and the bench step reads no
			// repository; the request still names one.
			post.Repo = w.Areas.Root
		}
		e := env
		e.Measured = merged
		e.Note = progressNote(env.Note, done, a.Part.Of)
		res, err := job.Run(ctx, &post, w.Config, e)
		if err != nil {
			return url, waitForLimit(err)
		}
		if res.Post != nil {
			url = replyURL(res.Post.Posts)
		}
		posted = len(recs) - 1
		if a.Review.Gerrit != nil {
			return url, nil
		}
	}
	return url, nil
}

// mergeParts merges the parts' results recorded in recs (the split's
// first), a failed part's package named in a warning, and returns them
// with the split's record and how many of the parts are recorded.
func mergeParts(recs []queue.PartRecord) (*benchrun.Result, *splitRecord, int, error) {
	var split splitRecord
	if err := json.Unmarshal(recs[0].Data, &split); err != nil {
		return nil, nil, 0, fmt.Errorf("the split's record: %v", err)
	}
	var results []*benchrun.Result
	var failed []string
	for _, r := range recs[1:] {
		var p partRecord
		if err := json.Unmarshal(r.Data, &p); err != nil {
			return nil, nil, 0, fmt.Errorf("part %d's record: %v", r.Index, err)
		}
		pkg := fmt.Sprintf("part %d", r.Index+1)
		if r.Index < len(split.Packages) {
			pkg = split.Packages[r.Index]
		}
		if p.Bench == nil {
			failed = append(failed, fmt.Sprintf("%s: not measured: %s", pkg, p.Failed))
			continue
		}
		results = append(results, p.Bench)
	}
	if len(results) == 0 {
		// Every part recorded failed: a result of no rows, of the
		// commits compared, to say so.
		r := &benchrun.Result{Tables: []*benchrun.Table{}, Warnings: failed, Run: &benchrun.RunInfo{Selection: split.Selection}}
		r.Base.Commit, r.Head.Commit = split.Base, split.Head
		return r, &split, len(recs) - 1, nil
	}
	merged, err := benchrun.Merge(results)
	if err != nil {
		return nil, nil, 0, err
	}
	if merged.Run != nil {
		merged.Run.Selection = split.Selection
	}
	merged.Warnings = append(merged.Warnings, failed...)
	return merged, &split, len(recs) - 1, nil
}

// progressNote is the whole's reply's first line while parts are
// missing, after the binding's note.
func progressNote(note func(context.Context) (string, error), done, of int) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		line := ""
		if note != nil {
			var err error
			if line, err = note(ctx); err != nil {
				return "", err
			}
		}
		if done < of {
			line = strings.TrimSpace(line + fmt.Sprintf(" %d of %d packages measured so far; this comment is edited as the others finish.", done, of))
		}
		return line, nil
	}
}
