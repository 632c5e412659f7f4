package sweep

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/patchbot/patchbot/workflow/freeze"
)

// FreezeTask acts on the freeze computed once for the sweep: while the
// tree is frozen, every open change of the branch not tagged wait-release
// gets one message saying why and the tag; once it has reopened, every
// open change tagged wait-release gets one message and the tag swapped
// for ex-wait-release. Each change is acted on by freeze.Apply, which
// reads its hashtags first, so a second sweep changes nothing. A change
// that fails is named and the others are still acted on.
func FreezeTask(ctx context.Context, s *Sweep) (*TaskResult, error) {
	tr := &TaskResult{}
	if s.Freeze.ReleaseBranch {
		tr.Summary = s.Freeze.Branch + " is a release branch: the freeze does not apply"
		return tr, nil
	}
	if s.Gerrit == nil {
		tr.Summary = "no Gerrit server to sweep"
		return tr, nil
	}
	// The query finds the candidates; Apply decides on what it reads
	// of each change itself, so a stale index costs a read, not a
	// wrong tag.
	q := s.query("-hashtag:" + freeze.WaitRelease)
	if !s.Freeze.Frozen {
		q = s.query("hashtag:" + freeze.WaitRelease)
	}
	cs, err := s.Gerrit.QueryChanges(ctx, q, s.limit())
	if err != nil {
		return tr, err
	}
	var errs []error
	acted := 0
	for _, c := range cs {
		id := strconv.Itoa(c.Number)
		a := Action{Change: id, URL: c.URL}
		ar, err := freeze.Apply(ctx, s.Gerrit, id, s.Freeze, s.DryRun)
		a.Freeze = ar
		switch {
		case err != nil:
			a.Error = err.Error()
			a.What = "failed: " + firstLine(a.Error)
			errs = append(errs, fmt.Errorf("change %s: %w", id, err))
		case ar.Message == "":
			a.What = "nothing to do"
		default:
			acted++
			a.What = s.freezeWhat(ar)
		}
		tr.Actions = append(tr.Actions, a)
	}
	if s.Freeze.Frozen {
		tr.Summary = fmt.Sprintf("frozen: %d open %s without %s, %d %s", len(cs), plural(len(cs), "change", "changes"),
			freeze.WaitRelease, acted, s.would("to tag", "tagged")+" "+freeze.WaitRelease)
	} else {
		tr.Summary = fmt.Sprintf("open: %d open %s tagged %s, %d %s", len(cs), plural(len(cs), "change", "changes"),
			freeze.WaitRelease, acted, s.would("to swap", "swapped")+" for "+freeze.ExWaitRelease)
	}
	return tr, errors.Join(errs...)
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
