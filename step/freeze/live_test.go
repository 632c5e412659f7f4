package freeze

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/step/freeze/freezetest"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// liveSources returns the built-in sources with live signals on, the
// present fixed at now. Their time limit is a minute, a guard against a
// hang: a source out of time is not consulted, and a test that wants its
// answer would fail for the machine's slowness. Tests of the limit set
// their own.
func liveSources(t *testing.T, now time.Time) *Sources {
	t.Helper()
	s := defaultSources(t)
	s.Offline = false
	s.Timeout = time.Minute
	s.Now = func() time.Time { return now }
	return s
}

func hasFact(st *Status, source, substr string) bool {
	return slices.ContainsFunc(st.Facts, func(f Fact) bool { return f.Source == source && strings.Contains(f.Text, substr) })
}

func hasDisagreement(st *Status, substr string) bool {
	return slices.ContainsFunc(st.Disagreements, func(d string) bool { return strings.Contains(d, substr) })
}

func TestDownloads(t *testing.T) {
	dl := freezetest.NewDownloads("testdata/dl-go1.27.json")
	defer dl.Close()
	tests := []struct {
		file, at string
		frozen   bool
		release  string
		source   string
		fact     string
		disagree string
	}{
		// The list agrees with the rule: frozen for Go 1.28, Go 1.27 out.
		{"testdata/dl-go1.27.json", "2026-11-30", true, "go1.28", "rule", "the latest stable release is go1.27.3", ""},
		// An unstable version first in the list is skipped.
		{"testdata/dl-go1.28rc.json", "2026-12-15", true, "go1.28", "rule", "the latest stable release is go1.27.4", ""},
		// Go 1.28 is out: the tree cannot still be frozen for it, and the
		// live signal wins over the rule.
		{"testdata/dl-go1.28.json", "2026-12-15", false, "go1.29", "go.dev/dl", "the latest stable release is go1.28.0",
			"go.dev/dl says the tree is open (Go 1.28 is out), but the rule says frozen; the live signal wins over the rule"},
		// The calendar is a record: the list only disagrees with it.
		{"testdata/dl-go1.23.json", "2024-06-15", true, "go1.23", "calendar", "go1.23.0",
			"go.dev/dl says the tree is open (Go 1.23 is out), but the calendar says frozen; the calendar wins"},
		// Open for Go 1.28 in August 2026, but Go 1.27 is not out
		// though the calendar expected it on 2026-08-10.
		{"testdata/dl-go1.23.json", "2026-09-01", false, "go1.28", "rule", "go1.23.0",
			"go.dev/dl: Go 1.27 is not out yet, but the calendar expected it on 2026-08-10"},
	}
	for _, tt := range tests {
		dl.Serve(tt.file)
		s := liveSources(t, day(tt.at).Add(10*time.Hour))
		s.Downloads = dl.URL
		st, err := Check(context.Background(), s, "master", day(tt.at).Add(10*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if st.Frozen != tt.frozen || st.Release != tt.release || st.Source != tt.source {
			t.Errorf("%s with %s: frozen=%v release=%s source=%s, want %v %s %s", tt.at, tt.file, st.Frozen, st.Release, st.Source, tt.frozen, tt.release, tt.source)
		}
		if !hasFact(st, "go.dev/dl", tt.fact) {
			t.Errorf("%s with %s: no go.dev/dl fact %q in %+v", tt.at, tt.file, tt.fact, st.Facts)
		}
		if tt.disagree == "" && len(st.Disagreements) > 0 || tt.disagree != "" && !hasDisagreement(st, tt.disagree) {
			t.Errorf("%s with %s: disagreements %q, want %q", tt.at, tt.file, st.Disagreements, tt.disagree)
		}
	}
}

// TestLiveTimeout checks that a source that does not answer is given up
// at the time limit, and that the answer comes from the others. The limit
// shows in what it causes, not in the clock: the source's fact names it.
// The source never answers, so a Check that does not return is a hang.
func TestLiveTimeout(t *testing.T) {
	dl := freezetest.NewDownloads("")
	defer dl.Close()
	s := liveSources(t, day("2026-11-30"))
	s.Downloads = dl.URL
	s.Timeout = 200 * time.Millisecond
	type result struct {
		st  *Status
		err error
	}
	c := make(chan result, 1)
	start := time.Now()
	go func() {
		st, err := Check(context.Background(), s, "master", day("2026-11-30"))
		c <- result{st, err}
	}()
	var r result
	select {
	case r = <-c:
	case <-time.After(time.Minute):
		t.Fatalf("Check hung: it did not give up on the silent source within a minute (limit %v)", s.Timeout)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	st := r.st
	t.Logf("Check returned after %v with a %v limit", time.Since(start).Round(time.Millisecond), s.Timeout)
	if !st.Frozen || st.Source != "rule" || !hasFact(st, "go.dev/dl", "not consulted: ") {
		t.Errorf("with a hung source: %+v", st)
	}
	if !hasFact(st, "go.dev/dl", "limit 200ms") {
		t.Errorf("the silent source's fact does not name its limit (limit 200ms): %+v", st.Facts)
	}
}

// TestLiveNotToday checks that live signals, which tell the present, are
// not read for another day.
func TestLiveNotToday(t *testing.T) {
	dl := freezetest.NewDownloads("testdata/dl-go1.28.json")
	defer dl.Close()
	s := liveSources(t, day("2026-11-30"))
	s.Downloads = dl.URL
	st, err := Check(context.Background(), s, "master", day("2014-11-06"))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Frozen || !hasFact(st, "config", "live signals not consulted: they tell the present, and 2014-11-06 is not today") {
		t.Errorf("for a past day: %+v", st)
	}

	// The day boundary, in UTC: an hour apart, but on another day, either
	// way; the same day, hours apart, is today.
	for _, c := range []struct {
		now, at string
		today   bool
	}{
		{"2026-11-30T00:30:00Z", "2026-11-29T23:30:00Z", false},
		{"2026-11-29T23:30:00Z", "2026-11-30T00:30:00Z", false},
		{"2026-11-30T23:30:00Z", "2026-11-30T00:00:00Z", true},
		{"2026-11-30T02:00:00+03:00", "2026-11-29T20:00:00Z", true}, // 23:00 UTC on the 29th
	} {
		now, _ := time.Parse(time.RFC3339, c.now)
		at, _ := time.Parse(time.RFC3339, c.at)
		s := liveSources(t, now)
		s.Downloads = dl.URL
		st, err := Check(context.Background(), s, "master", at)
		if err != nil {
			t.Fatal(err)
		}
		if skipped := hasFact(st, "config", "live signals not consulted"); skipped == c.today {
			t.Errorf("now %s, at %s: live signals skipped = %v, want %v; facts %+v", c.now, c.at, skipped, !c.today, st.Facts)
		}
	}
}

// newFakeGitHub starts the fake GitHub and returns it with a source of
// its golang/go, signed in with token ("" for anonymous reads).
func newFakeGitHub(t *testing.T, token string, o review.Options) (*reviewtest.GitHub, *GitHubSource) {
	t.Helper()
	gh := reviewtest.NewGitHub("golang/go")
	t.Cleanup(func() {
		gh.Close()
		if s := gh.Stray(); len(s) > 0 {
			t.Errorf("requests outside the API prefix: %v", s)
		}
	})
	if o.Policy.Attempts == 0 {
		o.Policy = fastPolicy
	}
	client, err := review.NewGitHub(&review.GitHubAuth{APIURL: gh.URL, Token: review.Secret(token)}, o)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewGitHubSource("golang/go", client)
	if err != nil {
		t.Fatal(err)
	}
	return gh, src
}

// onlyReads fails t unless every request gh served is a GET of golang/go.
func onlyReads(t *testing.T, gh *reviewtest.GitHub) {
	t.Helper()
	for _, r := range gh.Requests() {
		if !strings.HasPrefix(r, "GET /api/v3/repos/golang/go/") {
			t.Errorf("unexpected request %s", r)
		}
	}
}

func TestGitHub(t *testing.T) {
	gh, src := newFakeGitHub(t, reviewtest.Token, review.Options{})
	gh.AddMilestone("Go1.27", "closed", day("2026-08-10"))
	m28 := gh.AddMilestone("Go1.28", "open", day("2027-02-17"))
	gh.AddMilestone("Go1.29", "open", time.Time{})
	gh.AddMilestone("Unreleased", "open", time.Time{})
	gh.AddMilestone("gopls/v0.30.0", "open", time.Time{})
	b1 := gh.AddIssue(m28, "open", "release-blocker", "NeedsFix")
	b2 := gh.AddIssue(m28, "open", "release-blocker")
	gh.AddIssue(m28, "closed", "release-blocker")
	gh.AddIssue(m28, "open", "NeedsInvestigation")
	gh.AddPullRequest(m28, "open", "release-blocker") // listed among issues, but not one
	b3 := gh.AddIssue(m28, "open", "release-blocker", "okay-after-rc1")

	s := liveSources(t, day("2026-11-30"))
	s.GitHub = src
	st, err := Check(context.Background(), s, "master", day("2026-11-30"))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Frozen || st.Release != "go1.28" || st.Source != "rule" {
		t.Errorf("frozen=%v release=%s source=%s", st.Frozen, st.Release, st.Source)
	}
	if !hasFact(st, "github", "milestone Go1.28 is open, due 2027-02-17") {
		t.Errorf("no milestone fact: %+v", st.Facts)
	}
	want := "3 open release-blocker issues in Go1.28: #" + strconv.Itoa(b1) + ", #" + strconv.Itoa(b2) + ", #" + strconv.Itoa(b3)
	if !hasFact(st, "github", want) {
		t.Errorf("no fact %q: %+v", want, st.Facts)
	}
	// The milestone's due date overrides the rule's release date.
	if date(st.ReleaseDate) != "2027-02-17" || st.ReleaseDateSource != "github" {
		t.Errorf("release date %s from %s, want 2027-02-17 from github", date(st.ReleaseDate), st.ReleaseDateSource)
	}
	if !hasDisagreement(st, "github: Go 1.28 is due 2027-02-17, but the rule says 2027-02-08; the live signal wins") {
		t.Errorf("disagreements: %q", st.Disagreements)
	}
	onlyReads(t, gh)
	for _, a := range gh.Auth() {
		if a != "Bearer "+reviewtest.Token {
			t.Errorf("request with Authorization %q, want the token", a)
		}
	}

	// Go1.28 closed and Go1.29 open: Go 1.28 is out, so the tree is open.
	// Read anonymously, as from a public repository.
	gh2, src2 := newFakeGitHub(t, "", review.Options{})
	gh2.AddMilestone("Go1.28", "closed", time.Time{})
	gh2.AddMilestone("Go1.29", "open", time.Time{})
	s.GitHub = src2
	st, err = Check(context.Background(), s, "master", day("2026-11-30"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Frozen || st.Release != "go1.29" || st.Source != "github" || !hasDisagreement(st, "github says the tree is open") {
		t.Errorf("with Go1.28 closed: %+v", st)
	}
	onlyReads(t, gh2)
	for _, a := range gh2.Auth() {
		if a != "" {
			t.Errorf("anonymous request with Authorization %q", a)
		}
	}
}

// unavailable returns a fault that answers the first n requests (n < 0:
// all of them) with 503, and counts them in served.
func unavailable(n int, served *atomic.Int32) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if k := served.Add(1); n >= 0 && int(k) > n {
			return false
		}
		http.Error(w, `{"message":"down for maintenance"}`, http.StatusServiceUnavailable)
		return true
	}
}

// TestGitHubRetried checks that a GitHub that answers 503 once is retried
// under review's policy, within the source's time limit, and speaks.
func TestGitHubRetried(t *testing.T) {
	gh, src := newFakeGitHub(t, "", review.Options{
		Policy: review.Policy{Attempts: 5, Backoff: 50 * time.Millisecond, MaxWait: time.Minute},
	})
	gh.AddMilestone("Go1.28", "open", day("2027-02-17"))
	var served atomic.Int32
	gh.SetFault(unavailable(1, &served))
	s := liveSources(t, day("2026-11-30"))
	s.GitHub = src
	st, err := Check(context.Background(), s, "master", day("2026-11-30"))
	if err != nil {
		t.Fatal(err)
	}
	if !hasFact(st, "github", "milestone Go1.28 is open, due 2027-02-17") || !hasFact(st, "github", "no open release-blocker issues in Go1.28") {
		t.Errorf("after one 503: facts %+v", st.Facts)
	}
	// One 503, then the milestones, then the issues.
	if n := served.Load(); n != 3 {
		t.Errorf("%d requests, want 3: %q", n, gh.Requests())
	}
	onlyReads(t, gh)
}

// TestGitHubUnavailable checks that a GitHub that answers 503 until the
// source's time limit costs no more than the limit, whatever the policy
// would allow, and becomes a fact that names the failure.
func TestGitHubUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name   string
		policy review.Policy
	}{
		// Backoff longer than the limit: one attempt, then no time left.
		{"long backoff", review.Policy{Attempts: 5, Backoff: time.Second, MaxWait: time.Minute}},
		// Short backoff: attempts until the limit cuts one.
		{"short backoff", review.Policy{Attempts: 1000, Backoff: 5 * time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxWait: time.Minute}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gh, src := newFakeGitHub(t, "", review.Options{Policy: tt.policy})
			var served atomic.Int32
			gh.SetFault(unavailable(-1, &served))
			s := liveSources(t, day("2026-11-30"))
			s.GitHub = src
			s.Timeout = 300 * time.Millisecond
			start := time.Now()
			st, err := Check(context.Background(), s, "master", day("2026-11-30"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Check returned after %v and %d requests with a %v limit", time.Since(start).Round(time.Millisecond), served.Load(), s.Timeout)
			if !st.Frozen || st.Source != "rule" {
				t.Errorf("frozen=%v source=%s, want the rule's answer", st.Frozen, st.Source)
			}
			want := "not consulted: GitHub " + gh.URL + "/: repository golang/go: listing the open milestones: 503 Service Unavailable (down for maintenance; "
			if !hasFact(st, "github", want) || !hasFact(st, "github", "the server is failing; try again later") {
				t.Errorf("no fact %q...: %+v", want, st.Facts)
			}
			// The limit, not the policy, ended the attempts: it says so.
			// The policy alone would make 5 attempts over seconds, or
			// 1000 over at least 5s of waits (5ms each; jitter only adds).
			if !hasFact(st, "github", "too soon to retry") && !hasFact(st, "github", "then the time ran out") {
				t.Errorf("the fact does not say the time limit ended the attempts: %+v", st.Facts)
			}
			if n := served.Load(); n < 1 || tt.name == "long backoff" && n != 1 || n >= int32(tt.policy.Attempts) {
				t.Errorf("%d requests, want 1 with the long backoff, fewer than the policy's %d", n, tt.policy.Attempts)
			}
			onlyReads(t, gh)
		})
	}
}

func TestAddLive(t *testing.T) {
	live := config.Default().Freeze.Live
	env := map[string]string{"GITHUB_API_URL": "http://127.0.0.1:9/api/v3", "GITHUB_TOKEN": "ghp_x", "HOME": t.TempDir()}
	s := defaultSources(t)
	if err := s.AddLive(&live, "", review.NewClients(func(k string) string { return env[k] }, review.Options{})); err != nil {
		t.Fatal(err)
	}
	if s.Gerrit == nil || s.Gerrit.Gerrit.URL() != "https://go-review.googlesource.com" || s.Gerrit.Project != "go" || s.Gerrit.Gerrit.CheckAuth("") == nil {
		t.Errorf("gerrit = %+v, want go-review anonymously", s.Gerrit)
	}
	if s.GitHub == nil || s.GitHub.Owner != "golang" || s.GitHub.Repo != "go" || s.GitHub.GitHub.URL() != env["GITHUB_API_URL"]+"/" ||
		s.GitHub.GitHub.CheckAuth(review.PullRequest{Owner: "golang", Repo: "go", Number: 1}) != nil {
		t.Errorf("github = %+v, want the API URL and token of the environment", s.GitHub)
	}
	if s.Downloads != "https://go.dev/dl/?mode=json" || s.Timeout != 10*time.Second {
		t.Errorf("downloads %q, timeout %v", s.Downloads, s.Timeout)
	}

	// -gerrit replaces the configuration's server, with its credentials.
	env["PATCHBOT_GERRIT_USER"], env["PATCHBOT_GERRIT_PASSWORD"] = "gopher", "pw"
	if err := s.AddLive(&live, "http://127.0.0.1:8080/", review.NewClients(func(k string) string { return env[k] }, review.Options{})); err != nil {
		t.Fatal(err)
	}
	if s.Gerrit.Gerrit.URL() != "http://127.0.0.1:8080" || s.Gerrit.Gerrit.CheckAuth("") != nil {
		t.Errorf("gerrit with -gerrit = %+v", s.Gerrit)
	}

	env["GITHUB_API_URL"] = "https://me:pw@github.example.com/api/v3"
	if err := s.AddLive(&live, "", review.NewClients(func(k string) string { return env[k] }, review.Options{})); err == nil || strings.Contains(err.Error(), "pw@") {
		t.Errorf("GITHUB_API_URL with credentials: err = %v", err)
	}
}
