package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review"
)

// FreezeTask acts on the freeze computed once for the sweep: while the
// tree is frozen, every open change of the branch not tagged wait-release
// gets one message saying why and the tag; once it has reopened, every
// open change tagged wait-release gets one message and the tag swapped
// for ex-wait-release. On GitHub (Options.GitHub and Repo) the same with
// labels on the open pull requests. Each change is acted on by
// freeze.Apply (freeze.ApplyGitHub), which reads its tags first, so a
// second sweep changes nothing. A change that fails is named and the
// others are still acted on.
func FreezeTask(ctx context.Context, s *Sweep) (*TaskResult, error) {
	tr := &TaskResult{}
	if s.Freeze.ReleaseBranch {
		tr.Summary = s.Freeze.Branch + " is a release branch: the freeze does not apply"
		return tr, nil
	}
	if s.Freeze.NoPolicy {
		tr.Summary = "no freeze policy governs " + s.Freeze.Branch + ": nothing to tag"
		return tr, nil
	}
	if s.Gerrit == nil && s.GitHub == nil {
		tr.Summary = "no Gerrit server or GitHub repository to sweep"
		return tr, nil
	}
	var errs []error
	looked := 0
	if s.Gerrit != nil {
		n, err := s.freezeGerrit(ctx, tr)
		looked += n
		errs = append(errs, err)
	}
	if s.GitHub != nil {
		n, err := s.freezeGitHub(ctx, tr)
		looked += n
		errs = append(errs, err)
	}
	err := errors.Join(errs...)
	if err != nil && looked == 0 {
		return tr, err // the summary is the failure's
	}
	acted := 0
	for _, a := range tr.Actions {
		if a.Error == "" && a.Freeze != nil && a.Freeze.Message != "" {
			acted++
		}
	}
	if s.Freeze.Frozen {
		tr.Summary = fmt.Sprintf("frozen: %d open %s without %s, %d %s", looked, plural(looked, "change", "changes"),
			freeze.WaitRelease, acted, s.would("to tag", "tagged")+" "+freeze.WaitRelease)
	} else {
		tr.Summary = fmt.Sprintf("open: %d open %s tagged %s, %d %s", looked, plural(looked, "change", "changes"),
			freeze.WaitRelease, acted, s.would("to swap", "swapped")+" for "+freeze.ExWaitRelease)
	}
	return tr, err
}

// freezeGerrit acts on the Gerrit changes and returns how many it looked
// at. The query finds the candidates; Apply decides on what it reads of
// each change itself, so a stale index costs a read, not a wrong tag.
func (s *Sweep) freezeGerrit(ctx context.Context, tr *TaskResult) (int, error) {
	q := s.query("-hashtag:" + freeze.WaitRelease)
	if !s.Freeze.Frozen {
		q = s.query("hashtag:" + freeze.WaitRelease)
	}
	cs, err := s.Gerrit.QueryChanges(ctx, q, s.limit())
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, c := range cs {
		id := strconv.Itoa(c.Number)
		ar, err := freeze.Apply(ctx, s.Gerrit, id, s.Freeze)
		errs = append(errs, s.record(tr, id, c.URL, ar, err))
	}
	return len(cs), errors.Join(errs...)
}

// freezeGitHub acts on the open pull requests of Options.Repo: all of
// them while frozen (those already labelled wait-release are left out),
// those labelled wait-release once open. GitHub's list of issues does not
// say a pull request's base branch, so every open pull request counts.
func (s *Sweep) freezeGitHub(ctx context.Context, tr *TaskResult) (int, error) {
	r, err := review.ParseRepository(s.Repo)
	if err != nil {
		return 0, fmt.Errorf("sweep: %v", err)
	}
	q := review.IssueQuery{State: "open"}
	if !s.Freeze.Frozen {
		q.Labels = []string{freeze.WaitRelease}
	}
	prs, err := s.GitHub.PullRequests(ctx, r.Owner, r.Repo, q)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for _, p := range prs {
		if s.Freeze.Frozen && slices.Contains(p.Labels, freeze.WaitRelease) {
			continue
		}
		n++
		pr := r.PullRequest(p.Number)
		ar, err := freeze.ApplyGitHub(ctx, s.GitHub, pr, s.Freeze)
		errs = append(errs, s.record(tr, pr.String(), "", ar, err))
	}
	return n, errors.Join(errs...)
}

// record adds what Apply did to one change to tr, and returns its error
// naming the change.
func (s *Sweep) record(tr *TaskResult, id, url string, ar *freeze.ApplyResult, err error) error {
	a := Action{Change: id, URL: url, Freeze: ar}
	if ar != nil && ar.Post != nil && ar.Post.URL != "" && url == "" {
		a.URL = ar.Post.URL
	}
	switch {
	case err != nil:
		a.Error = err.Error()
		a.What = "failed: " + abbrev.FirstLine(a.Error)
		err = fmt.Errorf("change %s: %w", id, err)
	case ar.Message == "":
		a.What = "nothing to do"
	default:
		a.What = s.freezeWhat(ar)
	}
	tr.Actions = append(tr.Actions, a)
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// freezeWhat says what Apply did to a change, or would do: "posted the
// freeze message, removed wait-release, added ex-wait-release".
func (s *Sweep) freezeWhat(ar *freeze.ApplyResult) string {
	parts := []string{s.would("would post", "posted") + " the freeze message"}
	if len(ar.Remove) > 0 {
		parts = append(parts, s.would("remove", "removed")+" "+strings.Join(ar.Remove, ", "))
	}
	if len(ar.Add) > 0 {
		parts = append(parts, s.would("add", "added")+" "+strings.Join(ar.Add, ", "))
	}
	return strings.Join(parts, ", ")
}
