package review

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// TestGitHubPermissionLevel reads permissions from the fake: each level as
// GitHub says it, a login it knows nothing of as none, a 503 retried, a
// 404 (another repository) explained, and arguments that would change the URL's path refused
// before any request.
func TestGitHubPermissionLevel(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	g := newTestGitHub(t, auth, Options{})
	ctx := context.Background()
	f.SetPermission("Alice", "admin")
	f.SetPermission("bob", "write")
	f.SetPermission("carol", "read")
	for login, want := range map[string]string{"alice": "admin", "bob": "write", "carol": "read", "dave": "none", "dependabot[bot]": "none"} {
		got, err := g.PermissionLevel(ctx, "gopher", "codec", login)
		if err != nil || got != want {
			t.Errorf("PermissionLevel(%s) = %q, %v; want %q", login, got, err, want)
		}
	}
	for _, r := range f.Requests() {
		if !strings.HasPrefix(r, "GET /api/v3/repos/gopher/codec/collaborators/") || !strings.HasSuffix(r, "/permission") {
			t.Errorf("request %s", r)
		}
	}

	n := len(f.Requests())
	for _, args := range [][3]string{{"gopher", "codec", "../../user"}, {"gopher", "codec", ""}, {"gopher", "..", "bob"}, {"go/pher", "codec", "bob"}, {"gopher", "codec", "bob?x=1"}} {
		if p, err := g.PermissionLevel(ctx, args[0], args[1], args[2]); err == nil || p != "" {
			t.Errorf("PermissionLevel(%q) = %q, %v; want an error", args, p, err)
		}
	}
	if len(f.Requests()) != n {
		t.Errorf("refused arguments made requests: %q", f.Requests()[n:])
	}

	var served atomic.Int32
	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if served.Add(1) > 1 {
			return false
		}
		http.Error(w, `{"message":"busy"}`, http.StatusServiceUnavailable)
		return true
	})
	if p, err := g.PermissionLevel(ctx, "gopher", "codec", "bob"); p != "write" || err != nil || served.Load() != 2 {
		t.Errorf("after a 503: %q, %v, %d requests", p, err, served.Load())
	}

	// A repository the fake does not serve.
	f.SetFault(nil)
	_, err := g.PermissionLevel(ctx, "gopher", "nope", "bob")
	want := "GitHub " + f.URL + `/: repository gopher/nope: reading the permission of "bob": 404 Not Found; check the repository's OWNER/REPO and the login, and that the token can see the repository`
	if e, ok := errors.AsType[*Error](err); !ok || !e.Permanent() || err.Error() != want {
		t.Errorf("404: %v\nwant %s", err, want)
	}

	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"permission":"superuser"}`))
		return true
	})
	if p, err := g.PermissionLevel(ctx, "gopher", "codec", "bob"); p != "" || err == nil || !strings.Contains(err.Error(), `"superuser"`) {
		t.Errorf("unknown permission: %q, %v", p, err)
	}
}

// TestGerritInGroup makes a group and an account on the real Gerrit, and
// checks membership as the account is added and removed, by the group's
// name and by its UUID, by account id and username; an unknown account is
// not a member, and an unknown group is an error.
func TestGerritInGroup(t *testing.T) {
	s := gerrittest.Get(t)
	g := newTestGerrit(t, testServer{s.URL, s.User, s.Password, s.Project}, Options{})
	ctx := context.Background()
	suffix := newChangeID()[1:9]
	group, user := "reviewers-"+suffix, "reviewer-"+suffix

	var gi struct {
		ID string `json:"id"`
	}
	s.Do(t, "PUT", "/groups/"+group, map[string]any{}, &gi)
	var ai struct {
		ID int `json:"_account_id"`
	}
	s.Do(t, "PUT", "/accounts/"+user, map[string]any{"name": "Reviewer " + suffix}, &ai)
	id := strconv.Itoa(ai.ID)

	check := func(what, grp, account string, want bool) {
		t.Helper()
		got, err := g.InGroup(ctx, grp, account)
		if err != nil || got != want {
			t.Errorf("%s: InGroup(%s, %s) = %v, %v; want %v", what, grp, account, got, err, want)
		}
	}
	check("before", group, user, false)
	s.Do(t, "PUT", "/groups/"+group+"/members/"+user, nil, nil)
	check("added, by name", group, user, true)
	check("added, by UUID and id", gi.ID, id, true)
	check("unknown account", group, "nobody-"+suffix, false)
	s.Do(t, "DELETE", "/groups/"+group+"/members/"+user, nil, nil)
	check("removed", group, user, false)
	check("removed, by UUID and id", gi.ID, id, false)

	_, err := g.InGroup(ctx, "no-such-group-"+suffix, user)
	if e, ok := errors.AsType[*Error](err); !ok || e.Status != http.StatusNotFound || !strings.Contains(err.Error(), "check serve.gerrit.group") {
		t.Errorf("unknown group: %v", err)
	}
	if strings.Contains(err.Error(), s.Password) {
		t.Errorf("error shows the password: %v", err)
	}
	if _, err := g.InGroup(ctx, "", user); err == nil {
		t.Error("no group: no error")
	}

	// A name with a space and a slash reaches the server as one path
	// element.
	odd := "odd group/" + suffix
	s.Do(t, "PUT", "/groups/"+url.PathEscape(odd), map[string]any{}, nil)
	s.Do(t, "PUT", "/groups/"+url.PathEscape(odd)+"/members/"+user, nil, nil)
	check("odd name", odd, user, true)
}

// TestGitHubPullRequestHead reads a pull request's head commit from the
// fake: the one set, a merged one's into a release branch, a pull request
// that is not there explained, a head that is not a commit refused, and
// names that would change the URL's path refused before any request.
func TestGitHubPullRequestHead(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	g := newTestGitHub(t, auth, Options{})
	ctx := context.Background()
	const sha = "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d"
	f.SetHead(7, sha)
	h, err := g.PullRequestHead(ctx, testPR)
	clone := strings.TrimSuffix(f.URL, "/api/v3") + "/gopher/codec.git" // the fake's default
	if err != nil || h != (PullRequestHead{SHA: sha, State: "open", Base: "master", CloneURL: clone}) {
		t.Errorf("PullRequestHead(%v) = %+v, %v; want %s, open, master", testPR, h, err, sha)
	}
	if got, want := f.Requests(), []string{"GET /api/v3/repos/gopher/codec/pulls/7"}; !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}

	f.SetPullRequest(10, reviewtest.PullRequest{Head: sha, Base: "release-branch.go1.28", State: "closed", Merged: true})
	h, err = g.PullRequestHead(ctx, PullRequest{"gopher", "codec", 10})
	if want := (PullRequestHead{SHA: sha, State: "closed", Base: "release-branch.go1.28", CloneURL: clone}); err != nil || h != want {
		t.Errorf("merged pull request: %+v, %v; want %+v", h, err, want)
	}

	_, err = g.PullRequestHead(ctx, PullRequest{"gopher", "codec", 8})
	if e, ok := errors.AsType[*Error](err); !ok || !e.Permanent() || !strings.Contains(err.Error(), "pull request gopher/codec#8: reading the head commit: 404") {
		t.Errorf("missing pull request: %v", err)
	}

	f.SetHead(9, "HEAD")
	if h, err := g.PullRequestHead(ctx, PullRequest{"gopher", "codec", 9}); err == nil || h.SHA != "" || !strings.Contains(err.Error(), `"HEAD"`) {
		t.Errorf("head HEAD: %+v, %v", h, err)
	}

	n := len(f.Requests())
	for _, pr := range []PullRequest{{"gopher", "..", 7}, {"go/pher", "codec", 7}, {"gopher", "codec?x=1", 7}, {"gopher", "codec", 0}, {"gopher", "codec", -1}} {
		if h, err := g.PullRequestHead(ctx, pr); err == nil || h.SHA != "" {
			t.Errorf("PullRequestHead(%+v) = %+v, %v; want an error", pr, h, err)
		}
	}
	if len(f.Requests()) != n {
		t.Errorf("refused arguments made requests: %q", f.Requests()[n:])
	}
}

// TestCheckNames: the names a webhook's payload gives are checked before
// any request, with the same patterns the reads use.
func TestCheckNames(t *testing.T) {
	for _, tc := range []struct {
		owner, repo string
		ok          bool
	}{
		{"gopher", "codec", true},
		{"go-gopher", "x.y_z", true},
		{"Codertocat", "Hello-World", true},
		{"gopher", "..", false},
		{"gopher", ".", false},
		{"..", "codec", false},
		{"evil", "", false},
		{"", "codec", false},
		{"go/pher", "codec", false},
		{"gopher", "codec?x=1", false},
		{"gopher", "codec/../../user", false},
	} {
		if err := CheckRepository(tc.owner, tc.repo); (err == nil) != tc.ok {
			t.Errorf("CheckRepository(%q, %q) = %v; want ok %v", tc.owner, tc.repo, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		login string
		ok    bool
	}{
		{"alice", true},
		{"Codertocat", true},
		{"dependabot[bot]", true},
		{"a-b-c", true},
		{strings.Repeat("a", 39), true},
		{strings.Repeat("a", 40), false},
		{"../../admin", false},
		{"", false},
		{"-alice", false},
		{"alice bob", false},
		{"alice[bot]x", false},
		{"alice\n", false},
	} {
		if err := CheckLogin(tc.login); (err == nil) != tc.ok {
			t.Errorf("CheckLogin(%q) = %v; want ok %v", tc.login, err, tc.ok)
		} else if err != nil && !strings.Contains(err.Error(), "not a GitHub login") {
			t.Errorf("CheckLogin(%q): %v; want it to say what is wrong", tc.login, err)
		}
	}
}
