package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// TestFreezeGitHub sweeps the pull requests of the fake GitHub: one
// labelled wait-release, one not, and an issue labelled wait-release,
// which is not a pull request. Each sweep runs first as a dry run, which
// only reads; then for real, then again, which writes nothing.
func TestFreezeGitHub(t *testing.T) {
	f := reviewtest.NewGitHub("owner/repo")
	defer f.Close()
	plain := f.AddPullRequest(0, "open")
	waiting := f.AddPullRequest(0, "open", freeze.WaitRelease)
	issue := f.AddIssue(0, "open", freeze.WaitRelease)
	f.AddPullRequest(0, "closed", freeze.WaitRelease)
	ctx := context.Background()
	client := func(dryRun bool) *review.GitHub {
		g, err := review.NewGitHub(&review.GitHubAuth{Token: reviewtest.Token, APIURL: f.URL}, review.Options{DryRun: dryRun, Policy: fastPolicy})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	labels := func() string {
		return fmt.Sprint(f.IssueLabels(plain), f.IssueLabels(waiting), f.IssueLabels(issue))
	}
	comments := func() string {
		var out []string
		for _, c := range f.Comments() {
			first, rest, _ := strings.Cut(c.Body, "\n")
			state := "frozen"
			if strings.Contains(rest, "is open") {
				state = "open"
			}
			out = append(out, fmt.Sprintf("#%d %s %s", c.Issue, first, state))
		}
		return strings.Join(out, "; ")
	}
	marker := review.Marker(freeze.MessageKind)
	for _, step := range []struct {
		name     string
		at       string
		dryRun   bool
		acted    int
		labels   string
		comments string
	}{
		{"open, dry run", "2014-12-22", true, 1, "[] [wait-release] [wait-release]", ""},
		{"open", "2014-12-22", false, 1, "[] [ex-wait-release] [wait-release]", fmt.Sprintf("#%d %s open", waiting, marker)},
		{"open again", "2014-12-22", false, 0, "[] [ex-wait-release] [wait-release]", fmt.Sprintf("#%d %s open", waiting, marker)},
		{"frozen, dry run", "2014-11-06", true, 2, "[] [ex-wait-release] [wait-release]", fmt.Sprintf("#%d %s open", waiting, marker)},
		{"frozen", "2014-11-06", false, 2, "[wait-release] [ex-wait-release wait-release] [wait-release]",
			fmt.Sprintf("#%d %s frozen; #%d %s frozen", waiting, marker, plain, marker)},
		{"frozen again", "2014-11-06", false, 0, "[wait-release] [ex-wait-release wait-release] [wait-release]",
			fmt.Sprintf("#%d %s frozen; #%d %s frozen", waiting, marker, plain, marker)},
	} {
		before := f.Count("POST ") + f.Count("PATCH ") + f.Count("DELETE ")
		at := frozenDay
		if step.at == "2014-12-22" {
			at = openDay
		}
		res, err := Run(ctx, &Options{At: at, Offline: true, GitHub: client(step.dryRun), Repo: "owner/repo"}, []string{"freeze"})
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		acted := 0
		for _, a := range res.Tasks[0].Actions {
			if a.Freeze != nil && a.Freeze.Message != "" {
				acted++
			}
		}
		if acted != step.acted {
			t.Errorf("%s: acted on %d, want %d: %+v", step.name, acted, step.acted, res.Tasks[0].Actions)
		}
		if got := labels(); got != step.labels {
			t.Errorf("%s: labels %s, want %s", step.name, got, step.labels)
		}
		if got := comments(); got != step.comments {
			t.Errorf("%s: comments %s, want %s", step.name, got, step.comments)
		}
		writes := f.Count("POST ") + f.Count("PATCH ") + f.Count("DELETE ") - before
		if (step.dryRun || step.acted == 0) && writes != 0 {
			t.Errorf("%s: %d writes, want none", step.name, writes)
		}
	}
}
