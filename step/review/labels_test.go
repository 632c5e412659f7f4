package review

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGitHubLabels adds and removes labels on a pull request of the fake
// GitHub: only what differs is written, a second call writes nothing, a
// dry run only reads, and PullRequests lists pull requests, not issues.
func TestGitHubLabels(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	ctx := context.Background()
	n := f.AddPullRequest(0, "open", "wait-release", "other")
	f.AddIssue(0, "open", "wait-release")
	pr := PullRequest{"gopher", "codec", n}

	dry := newTestGitHub(t, auth, Options{DryRun: true})
	got, err := dry.Labels(ctx, pr, []string{"ex-wait-release"}, []string{"wait-release"})
	if err != nil || fmt.Sprint(got) != "[other wait-release]" {
		t.Fatalf("dry run: %v, %v", got, err)
	}
	for _, r := range f.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("dry run sent %s", r)
		}
	}

	g := newTestGitHub(t, auth, Options{})
	prs, err := g.PullRequests(ctx, "gopher", "codec", IssueQuery{Labels: []string{"wait-release"}})
	if err != nil || len(prs) != 1 || prs[0].Number != n {
		t.Fatalf("PullRequests: %+v, %v", prs, err)
	}
	for range 2 {
		got, err = g.Labels(ctx, pr, []string{"ex-wait-release"}, []string{"wait-release"})
		if err != nil || fmt.Sprint(got) != "[ex-wait-release other]" {
			t.Fatalf("Labels: %v, %v", got, err)
		}
	}
	if got := f.IssueLabels(n); !slices.Equal(got, []string{"ex-wait-release", "other"}) {
		t.Errorf("stored labels %v", got)
	}
	if w := f.Count("POST ") + f.Count("DELETE "); w != 2 {
		t.Errorf("%d writes, want 2 (one add, one remove): %v", w, f.Requests())
	}
}
