package review

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestGerritReads reads a branch and a query of the real Gerrit, signed in
// and anonymously, and through a proxy that answers 503 once.
func TestGerritReads(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	tag := "read-" + newChangeID()[1:9]
	r := newTestRepo(t, s)
	r.commit(newChangeID(), tag+"\n", false)
	change, _ := pushChange(t, g, s, r, PushOptions{Hashtags: []string{tag}})

	anon, err := NewGerrit(s.url, nil, Options{Policy: fastPolicy})
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Gerrit{"signed in": g, "anonymous": anon} {
		for branch, want := range map[string]bool{"master": true, "release-branch.none" + tag: false} {
			ok, err := g.BranchExists(ctx, s.project, branch)
			if err != nil || ok != want {
				t.Errorf("%s: BranchExists(%s) = %v, %v; want %v", name, branch, ok, err, want)
			}
		}
	}
	cs, err := g.QueryChanges(ctx, "project:"+s.project+" status:open hashtag:"+tag, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Project != s.project || cs[0].Branch != "master" || !slices.Contains(cs[0].Hashtags, tag) ||
		!strings.HasSuffix(cs[0].URL, "/+/"+change) {
		t.Errorf("query = %+v, want change %s", cs, change)
	}
	if cs, err := g.QueryChanges(ctx, "hashtag:"+tag+" status:merged", 10); err != nil || len(cs) != 0 {
		t.Errorf("query of no change = %+v, %v", cs, err)
	}

	// A bad query is a permanent error, said in one line with a hint.
	_, err = g.QueryChanges(ctx, "project:(", 10)
	if e, ok := errors.AsType[*Error](err); !ok || e.Status != http.StatusBadRequest || e.Attempts != 1 || !strings.Contains(e.Hint, "search syntax") {
		t.Errorf("bad query: %v", err)
	}

	// A 503 is retried.
	proxy := newFaultProxy(t, s.url, once(func(r *http.Request) bool { return r.Method == "GET" }, answer(http.StatusServiceUnavailable, "")))
	behind := newTestGerrit(t, testServer{proxy.URL, s.user, s.password, s.project}, Options{})
	if ok, err := behind.BranchExists(ctx, s.project, "master"); !ok || err != nil {
		t.Errorf("after a 503: BranchExists = %v, %v", ok, err)
	}
	if n := proxy.count("GET "); n != 2 {
		t.Errorf("%d GETs reached the proxy, want 2", n)
	}
}

// TestGitHubReads lists milestones and issues over several pages of the
// fake, anonymously, and checks that only GETs were made.
func TestGitHubReads(t *testing.T) {
	f, auth := newFakeGitHub(t, "golang/go")
	auth.Token = ""
	g := newTestGitHub(t, auth, Options{})
	ctx := context.Background()
	due := time.Date(2027, 2, 17, 0, 0, 0, 0, time.UTC)
	f.AddMilestone("Go1.27", "closed", time.Time{})
	m := f.AddMilestone("Go1.28", "open", due)
	f.AddMilestone("Go1.29", "open", time.Time{})
	f.AddMilestone("Unplanned", "open", time.Time{})
	a := f.AddIssue(m, "open", "release-blocker")
	f.AddIssue(m, "open", "NeedsFix")
	f.AddPullRequest(m, "open", "release-blocker")
	f.AddIssue(m, "closed", "release-blocker")
	b := f.AddIssue(m, "open", "NeedsFix", "release-blocker")
	f.AddIssue(0, "open", "release-blocker")

	ms, err := g.OpenMilestones(ctx, "golang", "go")
	if err != nil {
		t.Fatal(err)
	}
	want := []Milestone{{Number: m, Title: "Go1.28", DueOn: due}, {Number: 3, Title: "Go1.29"}, {Number: 4, Title: "Unplanned"}}
	if !slices.EqualFunc(ms, want, func(x, y Milestone) bool { return x.Number == y.Number && x.Title == y.Title && x.DueOn.Equal(y.DueOn) }) {
		t.Errorf("open milestones = %+v, want %+v", ms, want)
	}
	is, err := g.Issues(ctx, "golang", "go", IssueQuery{Milestone: m, Labels: []string{"release-blocker"}, State: "open"})
	if err != nil {
		t.Fatal(err)
	}
	if len(is) != 2 || is[0].Number != a || is[1].Number != b || !slices.Equal(is[1].Labels, []string{"NeedsFix", "release-blocker"}) {
		t.Errorf("release blockers = %+v, want #%d and #%d", is, a, b)
	}
	for i, r := range f.Requests() {
		if !strings.HasPrefix(r, "GET /api/v3/repos/golang/go/") || f.Auth()[i] != "" {
			t.Errorf("request %s with Authorization %q, want an anonymous GET", r, f.Auth()[i])
		}
	}
	// Two items a page: three open milestones take two pages, and so do
	// the three items the server's filter leaves (one a pull request).
	if n := f.Count("GET "); n != 2+2 {
		t.Errorf("%d requests, want 4: %q", n, f.Requests())
	}
}

// TestGitHubReadErrors checks the errors of reads: a 404 (a repository
// the fake does not serve) names the repository and what to check; a 503
// is retried, then reported.
func TestGitHubReadErrors(t *testing.T) {
	f, auth := newFakeGitHub(t, "golang/go")
	g := newTestGitHub(t, auth, Options{})
	ctx := context.Background()
	_, err := g.OpenMilestones(ctx, "golang", "nope")
	want := "GitHub " + f.URL + "/: repository golang/nope: listing the open milestones: 404 Not Found; check the repository's OWNER/REPO and that the token, if any, can see it"
	if err == nil || err.Error() != want {
		t.Errorf("404: %v\nwant %s", err, want)
	}

	var served atomic.Int32
	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if served.Add(1) > 1 {
			return false
		}
		http.Error(w, `{"message":"busy"}`, http.StatusServiceUnavailable)
		return true
	})
	if _, err := g.Issues(ctx, "golang", "go", IssueQuery{}); err != nil || served.Load() != 2 {
		t.Errorf("after a 503: %v, %d requests", err, served.Load())
	}
	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, `{"message":"busy"}`, http.StatusServiceUnavailable)
		return true
	})
	_, err = g.Issues(ctx, "golang", "go", IssueQuery{})
	if e, ok := errors.AsType[*Error](err); !ok || e.Status != 503 || e.Attempts != fastPolicy.Attempts || e.Permanent() {
		t.Errorf("503 every time: %v", err)
	}
	if strings.Contains(err.Error(), fakeToken) {
		t.Errorf("error shows the token: %v", err)
	}
}
