package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// fakeToken is the fake's token of patchbot's user, reviewtest.Bot.
const fakeToken = reviewtest.Token

// newFakeGitHub starts a fake GitHub of repo (under /api/v3, as GitHub
// Enterprise serves the API), with an open pull request of testPR's
// number, and returns the credentials that reach it.
func newFakeGitHub(t *testing.T, repo string) (*reviewtest.GitHub, *GitHubAuth) {
	f := reviewtest.NewGitHub(repo)
	f.SetHead(testPR.Number, testHead)
	t.Cleanup(func() {
		f.Close()
		if s := f.Stray(); len(s) > 0 {
			t.Errorf("requests outside the API prefix: %v", s)
		}
	})
	return f, &GitHubAuth{Token: fakeToken, APIURL: f.URL}
}

// newTestGitHub returns a client of auth's server with fast retries, as
// patchbot's account reviewtest.Bot unless o names another (the tests of
// GitHub.Self make their own clients).
func newTestGitHub(t *testing.T, auth *GitHubAuth, o Options) *GitHub {
	t.Helper()
	if o.Policy.Attempts == 0 {
		o.Policy = fastPolicy
	}
	if o.GitHubLogin == "" {
		o.GitHubLogin = reviewtest.Bot
	}
	g, err := NewGitHub(auth, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var testPR = PullRequest{"gopher", "codec", 7}

// testHead is testPR's head commit.
const testHead = "0b5e1c0d7a3f2e4b6c8d9e0f1a2b3c4d5e6f7a8b"

func TestGitHubCreateThenUpdate(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	// Others' comments, one quoting ours, come first.
	f.SetComments([]reviewtest.Comment{
		{ID: 1, Body: "LGTM", User: "alice"},
		{ID: 2, Body: "> " + Marker("bench") + "\n> old numbers", User: "bob"},
		{ID: 3, Body: "what about ReadInts?", User: "alice"},
	})
	summary := filepath.Join(t.TempDir(), "summary.md")
	g := newTestGitHub(t, auth, Options{})
	g.StepSummary = summary
	ctx := context.Background()

	steps := []struct {
		text string
		want Action
	}{
		{"WriteInts 1.51x", Created},
		{"WriteInts 1.51x", Unchanged},
		{"WriteInts 1.52x", Updated},
	}
	var url string
	for _, st := range steps {
		res, err := g.Post(ctx, testPR, Message{Kind: "bench", Text: st.text})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != st.want || res.Change != "gopher/codec#7" || res.URL == "" {
			t.Errorf("post %q = %+v, want %s", st.text, res, st.want)
		}
		if url == "" {
			url = res.URL
		} else if res.URL != url {
			t.Errorf("comment URL changed from %s to %s", url, res.URL)
		}
	}
	if cs := f.Comments(); len(cs) != 4 || cs[3].Body != Marker("bench")+"\nWriteInts 1.52x\n" || cs[3].User != reviewtest.Bot {
		t.Errorf("comments = %+v, want the 3 others and one bench comment by %s, updated", cs, reviewtest.Bot)
	}
	// Another kind is another comment.
	if res, err := g.Post(ctx, testPR, Message{Kind: "freeze", Text: "open"}); err != nil || res.Action != Created {
		t.Errorf("freeze post = %+v, %v", res, err)
	}
	for _, a := range f.Auth() {
		if a != "Bearer "+fakeToken {
			t.Errorf("request sent Authorization %q", a)
		}
	}
	data, _ := os.ReadFile(summary)
	if want := "WriteInts 1.51x\n\nWriteInts 1.51x\n\nWriteInts 1.52x\n\nopen\n\n"; string(data) != want {
		t.Errorf("step summary = %q, want %q", data, want)
	}
}

func TestGitHubDryRun(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	auth.Token = ""
	var log bytes.Buffer
	g := newTestGitHub(t, auth, Options{DryRun: true, Log: &log})
	g.StepSummary = filepath.Join(t.TempDir(), "summary.md")
	res, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "x"})
	if err != nil || res.Action != WouldCreate {
		t.Fatalf("dry run = %+v, %v", res, err)
	}
	if n := len(f.Requests()) - f.Count("GET "); n != 0 {
		t.Errorf("dry run made %d writes: %v", n, f.Requests())
	}
	if _, err := os.Stat(g.StepSummary); err == nil {
		t.Error("dry run wrote the step summary")
	}
	if !strings.Contains(log.String(), "would create a bench comment on gopher/codec#7") {
		t.Errorf("dry-run log:\n%s", log.String())
	}
}

// fault answers the first n requests matching method with status and
// headers, then lets the fake answer.
func fault(method string, n, status int, header map[string]string, body string) func(http.ResponseWriter, *http.Request) bool {
	var mu sync.Mutex
	seen := 0
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != method {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if seen >= n {
			return false
		}
		seen++
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
		return true
	}
}

func TestGitHubRetries(t *testing.T) {
	tests := []struct {
		name    string
		fault   func(http.ResponseWriter, *http.Request) bool
		gets    int    // GET requests expected
		posts   int    // POST requests expected
		logWant string // in the retry log
	}{
		{
			name:    "429 with Retry-After",
			fault:   fault("GET", 1, http.StatusTooManyRequests, map[string]string{"Retry-After": "1"}, `{"message":"slow down"}`),
			gets:    2,
			posts:   1,
			logWant: "429 too many requests; retrying in 1s",
		},
		{
			name: "secondary rate limit",
			fault: fault("POST", 1, http.StatusForbidden, map[string]string{"Retry-After": "0"},
				`{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`),
			gets:    2, // the retry of a create looks first
			posts:   2,
			logWant: "403 forbidden; retrying",
		},
		{
			name:    "502",
			fault:   fault("GET", 2, http.StatusBadGateway, nil, `<html>bad gateway</html>`),
			gets:    3,
			posts:   1,
			logWant: "502 bad gateway; retrying",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, auth := newFakeGitHub(t, "gopher/codec")
			f.SetFault(tt.fault)
			var log bytes.Buffer
			g := newTestGitHub(t, auth, Options{Log: &log})
			res, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "table"})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(f.Comments()); res.Action != Created || n != 1 {
				t.Errorf("post = %+v with %d comments, want one created", res, n)
			}
			if g, p := f.Count("GET "), f.Count("POST "); g != tt.gets || p != tt.posts {
				t.Errorf("%d GETs and %d POSTs, want %d and %d: %v", g, p, tt.gets, tt.posts, f.Requests())
			}
			if !strings.Contains(log.String(), tt.logWant) {
				t.Errorf("log does not say %q:\n%s", tt.logWant, log.String())
			}
		})
	}
}

func TestGitHubLostResponse(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	var posts atomic.Int32
	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != "POST" || posts.Add(1) > 1 {
			return false
		}
		f.Serve(httptest.NewRecorder(), r)                     // GitHub stores the comment
		conn, _, err := http.NewResponseController(w).Hijack() // and the answer is lost
		if err == nil {
			conn.Close()
		}
		return true
	})
	g := newTestGitHub(t, auth, Options{})
	res, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "table"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Comments()); res.Action != Created || res.Attempts != 2 || n != 1 {
		t.Errorf("post = %+v with %d comments, want one comment created in 2 attempts", res, n)
	}
}

func TestGitHubPermanentErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		hint   string
	}{
		{"403", http.StatusForbidden, `{"message":"Resource not accessible by integration"}`, "check its scopes"},
		{"401", http.StatusUnauthorized, `{"message":"Bad credentials"}`, "check GITHUB_TOKEN"},
		{"404", http.StatusNotFound, `{"message":"Not Found"}`, "check OWNER/REPO#N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, auth := newFakeGitHub(t, "gopher/codec")
			f.SetFault(fault("GET", 100, tt.status, nil, tt.body))
			g := newTestGitHub(t, auth, Options{})
			_, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "table"})
			e, ok := errors.AsType[*Error](err)
			if !ok || e.Status != tt.status || !e.Permanent() || e.Attempts != 1 {
				t.Fatalf("error = %#v, want a permanent %d after 1 attempt", err, tt.status)
			}
			if rs := f.Requests(); len(rs) != 1 {
				t.Errorf("%d requests, want 1: %v", len(rs), rs)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, "GitHub "+f.URL+"/") ||
				!strings.Contains(msg, "pull request gopher/codec#7") || !strings.Contains(msg, tt.hint) {
				t.Errorf("error is not one line naming server, pull request and what to do:\n%s", msg)
			}
			if strings.Contains(msg, fakeToken) {
				t.Errorf("error shows the token: %s", msg)
			}
		})
	}
}

// TestGitHubNoSuchTarget posts to a repository the fake does not serve and
// to a pull request it does not have: each a permanent 404 at once,
// naming the target, and nothing stored.
func TestGitHubNoSuchTarget(t *testing.T) {
	for _, tt := range []struct {
		pr       PullRequest
		requests []string
	}{
		{PullRequest{"gopher", "other", 7}, []string{"GET /api/v3/repos/gopher/other/issues/7/comments"}},
		{PullRequest{"gopher", "codec", 8}, []string{"GET /api/v3/repos/gopher/codec/issues/8/comments", "POST /api/v3/repos/gopher/codec/issues/8/comments"}},
	} {
		f, auth := newFakeGitHub(t, "gopher/codec")
		g := newTestGitHub(t, auth, Options{})
		_, err := g.Post(context.Background(), tt.pr, Message{Kind: "bench", Text: "table"})
		if e, ok := errors.AsType[*Error](err); !ok || e.Status != http.StatusNotFound || !e.Permanent() || !strings.Contains(err.Error(), "pull request "+tt.pr.String()+": ") {
			t.Errorf("%s: error %v, want a permanent 404 naming it", tt.pr, err)
		}
		if got := f.Requests(); !slices.Equal(got, tt.requests) {
			t.Errorf("%s: requests %q, want %q", tt.pr, got, tt.requests)
		}
		if cs := f.Comments(); len(cs) != 0 {
			t.Errorf("%s: comments %+v", tt.pr, cs)
		}
	}
}

func TestGitHubTooLong(t *testing.T) {
	body := commentBody(Message{Kind: "bench", Text: strings.Repeat("x", 70000)})
	if len(body) > maxComment || !strings.HasPrefix(body, Marker("bench")+"\n") || !strings.Contains(body, "cut by patchbot to fit") {
		t.Errorf("long body: %d bytes, starts %q", len(body), body[:40])
	}
}

func TestParsePullRequest(t *testing.T) {
	for _, s := range []string{"gopher/codec#7", "go-gopher/x.y_z#12", "gopher/codec#2147483647"} {
		pr, err := ParsePullRequest(s)
		if err != nil || pr.String() != s {
			t.Errorf("ParsePullRequest(%q) = %v, %v", s, pr, err)
		}
	}
	for _, s := range []string{"gopher/codec", "codec#7", "gopher/codec#0", "https://github.com/gopher/codec/pull/7",
		"gopher/codec#2147483648", "gopher/codec#99999999999999999999", "evil/..#1", "evil/.#1", "../..#1"} {
		if _, err := ParsePullRequest(s); err == nil {
			t.Errorf("ParsePullRequest(%q) succeeded", s)
		}
	}
}

// TestGitHubPrimaryRateLimit checks that an exhausted hourly rate limit,
// whose reset is past the policy's wait, fails at once and says until when.
func TestGitHubPrimaryRateLimit(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	reset := time.Now().Add(time.Hour).Unix()
	f.SetFault(fault("GET", 100, http.StatusForbidden,
		map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": strconv.FormatInt(reset, 10)},
		`{"message":"API rate limit exceeded"}`))
	g := newTestGitHub(t, auth, Options{})
	_, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "table"})
	if err == nil || !strings.Contains(err.Error(), "rate limit exceeded until ") || !strings.Contains(err.Error(), "more than the") {
		t.Fatalf("error = %v, want one saying until when the rate limit holds", err)
	}
	// A 403 that is a rate limit passes: a queue may try again later.
	if e, ok := errors.AsType[*Error](err); !ok || e.Status != http.StatusForbidden || !e.Transient || e.Permanent() {
		t.Errorf("error %#v: want a 403 that is transient, not permanent", err)
	}
	if testing.Verbose() {
		t.Log(err)
	}
	if n := len(f.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestGitHubCreateRaced: the first create fails (502) while another run
// of patchbot, signed in as the same user, creates the comment of the kind
// with other text. The retry looks first, finds that comment and edits it,
// as its author may: still one comment of the kind.
func TestGitHubCreateRaced(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	var posts atomic.Int32
	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != "POST" || posts.Add(1) > 1 {
			return false
		}
		f.SetComments([]reviewtest.Comment{{ID: 50, Body: Marker("bench") + "\nother run's table\n", User: reviewtest.Bot, Issue: testPR.Number}})
		http.Error(w, `{"message":"bad gateway"}`, http.StatusBadGateway)
		return true
	})
	g := newTestGitHub(t, auth, Options{})
	res, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "table"})
	if err != nil {
		t.Fatal(err)
	}
	cs := f.Comments()
	if len(cs) != 1 || cs[0].ID != 50 || cs[0].Body != Marker("bench")+"\ntable\n" || cs[0].User != reviewtest.Bot {
		t.Errorf("comments = %+v, want the other run's comment, edited to say table", cs)
	}
	if res.Action != Updated || res.Attempts != 2 || f.Count("POST ") != 1 || f.Count("PATCH ") != 1 {
		t.Errorf("post = %+v after %v; want updated in 2 attempts, one POST and one PATCH", res, f.Requests())
	}
}

// TestCommitPullRequests finds a commit's pull requests by their head or
// merge commit, the merged one first, across pages; a commit of none has
// none.
func TestCommitPullRequests(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	const sha = "5a295b08a2c0c1f0cbd6ef2e8b2f1a1be3f0c1d2"
	f.SetPullRequest(8, reviewtest.PullRequest{Head: "1111111111111111111111111111111111111111", MergeCommit: sha, State: "closed", Merged: true})
	f.SetPullRequest(9, reviewtest.PullRequest{Head: sha})
	f.SetPullRequest(10, reviewtest.PullRequest{Head: sha, State: "closed"})
	g := newTestGitHub(t, auth, Options{})
	got, err := g.CommitPullRequests(context.Background(), "gopher", "codec", sha)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{8, 9, 10}; !slices.Equal(got, want) {
		t.Errorf("pull requests of %s: %v, want %v", sha, got, want)
	}
	got, err = g.CommitPullRequests(context.Background(), "gopher", "codec", strings.Repeat("0", 40))
	if err != nil || len(got) != 0 {
		t.Errorf("pull requests of a commit of none: %v, %v; want none", got, err)
	}
}
