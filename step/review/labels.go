package review

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/go-github/v66/github"
)

// PullRequests returns the pull requests of owner/repo that match q (its
// Milestone, Labels and State), as Issues does for issues: GitHub lists
// both together, and here the issues are left out.
func (g *GitHub) PullRequests(ctx context.Context, owner, repo string, q IssueQuery) ([]Issue, error) {
	return g.issues(ctx, owner, repo, q, true)
}

// Labels adds and removes labels on a pull request (or an issue) and
// returns its labels after, sorted. It reads them first and writes only
// what differs, so running it twice changes nothing. Removing a label is
// idempotent, and adding one that is there is too, so a lost answer needs
// no look before the next attempt.
func (g *GitHub) Labels(ctx context.Context, pr PullRequest, add, remove []string) ([]string, error) {
	target := "pull request " + pr.String()
	if err := g.CheckAuth(pr); err != nil && !g.opts.DryRun && (len(add) > 0 || len(remove) > 0) {
		return nil, err
	}
	var have []string
	opt := &github.ListOptions{PerPage: 100}
	ls, err := listAll(ctx, g, pr.Owner, pr.Repo, "reading the labels of #"+fmt.Sprint(pr.Number), opt, func(ctx context.Context) ([]*github.Label, *github.Response, error) {
		return g.client().Issues.ListLabelsByIssue(ctx, pr.Owner, pr.Repo, pr.Number, opt)
	})
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		have = append(have, l.GetName())
	}
	var in, out []string
	for _, l := range add {
		if !slices.Contains(have, l) && !slices.Contains(in, l) {
			in = append(in, l)
		}
	}
	for _, l := range remove {
		if slices.Contains(have, l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	after := slices.DeleteFunc(slices.Clone(have), func(l string) bool { return slices.Contains(out, l) })
	after = append(after, in...)
	slices.Sort(after)
	if len(in) == 0 && len(out) == 0 {
		slices.Sort(have)
		return have, nil
	}
	what := fmt.Sprintf("set labels on %s: add %v, remove %v", pr, in, out)
	_, err = g.opts.write(ctx, what, func(ctx context.Context) error {
		_, err := g.retry(ctx, target, "setting labels", func(ctx context.Context) error {
			for _, l := range out {
				resp, err := g.client().Issues.RemoveLabelForIssue(ctx, pr.Owner, pr.Repo, pr.Number, l)
				if err != nil && !(resp != nil && resp.StatusCode == 404) { // gone already: a lost answer
					return err
				}
			}
			if len(in) > 0 {
				_, _, err := g.client().Issues.AddLabelsToIssue(ctx, pr.Owner, pr.Repo, pr.Number, in)
				return err
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if g.opts.DryRun {
		slices.Sort(have)
		return have, nil
	}
	return after, nil
}
