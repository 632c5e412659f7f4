package review

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/build/gerrit"

	"github.com/patchbot/patchbot/internal/gerrittest"
)

// These tests run against a real Gerrit, started by
// scripts/gerrit-test-server and found by gerrittest.Get. Each
// test pushes a change of its own, so they do not disturb one another and
// can run again on the same server.

type testServer struct {
	url, user, password, project string
}

func gerritServer(t *testing.T) testServer {
	t.Helper()
	s := gerrittest.Get(t)
	return testServer{s.URL, s.User, s.Password, s.Project}
}

// fastPolicy keeps retries short in tests.
var fastPolicy = Policy{Attempts: 4, Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxWait: 5 * time.Second}

func newTestGerrit(t *testing.T, s testServer, o Options) *Gerrit {
	t.Helper()
	if o.Policy.Attempts == 0 {
		o.Policy = fastPolicy
	}
	g, err := NewGerrit(s.url, &GerritAuth{User: s.user, Password: Secret(s.password)}, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A testRepo is a Git repository made with the git command, holding the
// test project's master branch.
type testRepo struct {
	t   *testing.T
	s   gerrittest.Server
	dir string
}

func newTestRepo(t *testing.T, s testServer) *testRepo {
	t.Helper()
	r := &testRepo{t: t, s: gerrittest.Server{URL: s.url, User: s.user, Password: s.password, Project: s.project}, dir: t.TempDir()}
	r.git("init", "-q", "-b", "master")
	r.git("fetch", "-q", s.url+"/a/"+s.project, "master")
	r.git("reset", "-q", "--hard", "FETCH_HEAD")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return r.s.Git(r.t, r.dir, args...)
}

// commit writes a file and commits it with the Change-Id, amending the last
// commit when amend is set (a new patch set of the same change).
func (r *testRepo) commit(changeID, content string, amend bool) string {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, "file.txt"), []byte(content), 0o666); err != nil {
		r.t.Fatal(err)
	}
	r.git("add", "file.txt")
	args := []string{"commit", "-q", "-m", "file: " + r.t.Name() + "\n\nChange-Id: " + changeID}
	if amend {
		args = append(args, "--amend")
	}
	r.git(args...)
	return r.git("rev-parse", "HEAD")
}

func newChangeID() string {
	b := make([]byte, 20)
	rand.Read(b)
	return "I" + hex.EncodeToString(b)
}

// pushChange pushes a new change and returns its number.
func pushChange(t *testing.T, g *Gerrit, s testServer, r *testRepo, o PushOptions) (string, *PushResult) {
	t.Helper()
	o.Dir, o.Project = r.dir, s.project
	res, err := g.Push(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 {
		t.Fatalf("push listed %d changes, want 1: %+v", len(res.Changes), res)
	}
	return res.Changes[0].URL[strings.LastIndex(res.Changes[0].URL, "/")+1:], res
}

// tagged returns the messages of the change with the tag.
func tagged(t *testing.T, g *Gerrit, change, tag string) []gerrit.ChangeMessageInfo {
	t.Helper()
	ci, err := g.client.GetChange(context.Background(), change, gerrit.QueryChangesOpt{Fields: []string{"MESSAGES"}})
	if err != nil {
		t.Fatal(err)
	}
	var out []gerrit.ChangeMessageInfo
	for _, m := range ci.Messages {
		if m.Tag == tag {
			out = append(out, m)
		}
	}
	return out
}

const table = `Benchmarks: old vs new.

  benchmark     old MB/s   new MB/s   speedup
  WriteInts-2   9.56       14.42      1.51x
  ReadInts-2    21.84      21.64      ~
`

func TestGerritPushPostOnce(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	r := newTestRepo(t, s)
	id := newChangeID()
	first := r.commit(id, "one\n", false)
	change, pushed := pushChange(t, g, s, r, PushOptions{Topic: "patchbot-test", Hashtags: []string{"patchbot"}})
	if !pushed.Changes[0].New || pushed.Commit != first || !strings.Contains(pushed.Changes[0].Subject, t.Name()) {
		t.Errorf("push = %+v, want a new change for %s", pushed, first)
	}

	ci, err := g.client.GetChange(ctx, change)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Topic != "patchbot-test" || strings.Join(ci.Hashtags, ",") != "patchbot" {
		t.Errorf("pushed change has topic %q, hashtags %v; want patchbot-test, [patchbot]", ci.Topic, ci.Hashtags)
	}

	// The same commit again is not an error.
	again, err := g.Push(ctx, PushOptions{Dir: r.dir, Project: s.project})
	if err != nil {
		t.Fatalf("pushing the same commit again: %v", err)
	}
	if !again.NoNewChanges {
		t.Errorf("pushing the same commit again = %+v, want NoNewChanges", again)
	}

	m := Message{Kind: "bench", Text: table}
	for i, want := range []Action{Posted, AlreadyPosted} {
		res, err := g.Post(ctx, GerritPost{Change: change, Message: m})
		if err != nil {
			t.Fatalf("post %d: %v", i+1, err)
		}
		if res.Action != want || res.PatchSet != 1 || res.Revision != first {
			t.Errorf("post %d = %+v, want %s on patch set 1 (%s)", i+1, res, want, first)
		}
	}
	if got := tagged(t, g, change, "autogenerated:patchbot:bench"); len(got) != 1 {
		t.Fatalf("after posting twice, %d tagged messages, want 1: %+v", len(got), got)
	}

	// A new patch set gets a message of its own, once.
	second := r.commit(id, "two\n", true)
	if _, res := pushChange(t, g, s, r, PushOptions{}); res.Changes[0].New {
		t.Errorf("second patch set reported as a new change: %+v", res)
	}
	for i, want := range []Action{Posted, AlreadyPosted} {
		res, err := g.Post(ctx, GerritPost{Change: change, Message: m})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != want || res.PatchSet != 2 || res.Revision != second {
			t.Errorf("post %d on the new patch set = %+v, want %s on patch set 2", i+1, res, want)
		}
	}
	got := tagged(t, g, change, "autogenerated:patchbot:bench")
	if len(got) != 2 || got[0].RevisionNumber != 1 || got[1].RevisionNumber != 2 {
		t.Errorf("tagged messages = %+v, want one on patch set 1 and one on 2", got)
	}

	// Naming the old patch set finds the message there.
	res, err := g.Post(ctx, GerritPost{Change: change, Revision: "1", Message: m})
	if err != nil || res.Action != AlreadyPosted {
		t.Errorf("post on -revision 1 = %+v, %v; want already-posted", res, err)
	}
	if _, err := g.Post(ctx, GerritPost{Change: change, Revision: "7", Message: m}); err == nil || !strings.Contains(err.Error(), `no patch set "7" (it has patch sets 1, 2)`) {
		t.Errorf("post on patch set 7: %v", err)
	}
}

func TestGerritLabelsAndDryRun(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	var log bytes.Buffer
	g := newTestGerrit(t, s, Options{})
	dry := newTestGerrit(t, s, Options{DryRun: true, Log: &log})
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "labels\n", false)

	// A dry-run push writes nothing and lists nothing.
	res, err := dry.Push(ctx, PushOptions{Dir: r.dir, Project: s.project})
	if err != nil || !res.DryRun || len(res.Changes) != 0 {
		t.Fatalf("dry-run push = %+v, %v", res, err)
	}
	change, _ := pushChange(t, g, s, r, PushOptions{})

	m := Message{Kind: "freeze", Text: "The tree is open."}
	pr, err := dry.Post(ctx, GerritPost{Change: change, Message: m, Labels: map[string]int{"Code-Review": 1}})
	if err != nil || pr.Action != WouldPost {
		t.Fatalf("dry-run post = %+v, %v", pr, err)
	}
	if n := len(tagged(t, g, change, Tag("freeze"))); n != 0 {
		t.Errorf("dry run posted %d messages", n)
	}
	if !strings.Contains(log.String(), "would post the freeze message on ") {
		t.Errorf("dry-run log:\n%s", log.String())
	}

	if _, err := g.Post(ctx, GerritPost{Change: change, Message: m, Labels: map[string]int{"Code-Review": 1}}); err != nil {
		t.Fatal(err)
	}
	ci, err := g.client.GetChangeDetail(ctx, change)
	if err != nil {
		t.Fatal(err)
	}
	if l := ci.Labels["Code-Review"]; len(l.All) == 0 || l.All[0].Value != 1 {
		t.Errorf("Code-Review after posting with a vote: %+v", l)
	}
	// The vote's "Patch Set 1: Code-Review+1" header does not hide the
	// message from the next run.
	if pr, err := g.Post(ctx, GerritPost{Change: change, Message: m, Labels: map[string]int{"Code-Review": 1}}); err != nil || pr.Action != AlreadyPosted {
		t.Errorf("second post with a vote = %+v, %v; want already-posted", pr, err)
	}
}

func TestGerritHashtags(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "hashtags\n", false)
	change, _ := pushChange(t, g, s, r, PushOptions{Hashtags: []string{"patchbot"}})

	steps := []struct {
		add, remove []string
		want        string
	}{
		{[]string{"wait-release"}, nil, "patchbot wait-release"},
		{[]string{"wait-release"}, nil, "patchbot wait-release"}, // again: nothing to do
		{[]string{"ex-wait-release"}, []string{"wait-release"}, "ex-wait-release patchbot"},
		{nil, []string{"wait-release", "ex-wait-release"}, "patchbot"},
	}
	for _, st := range steps {
		got, err := g.Hashtags(ctx, change, st.add, st.remove)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != st.want {
			t.Errorf("Hashtags(add %v, remove %v) = %v, want %s", st.add, st.remove, got, st.want)
		}
	}
}

// A faultProxy stands in front of Gerrit and lets a test break what it
// wants: for each request it calls fault, which may answer by itself, or
// forward the request to Gerrit (with the writer it chooses) and then
// misbehave. fault returns whether it handled the request.
type faultProxy struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string // "METHOD PATH"
}

type faultFunc func(w http.ResponseWriter, r *http.Request, forward func(http.ResponseWriter)) bool

func newFaultProxy(t *testing.T, target string, fault faultFunc) *faultProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := new(faultProxy)
	rp := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests = append(p.requests, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		forward := func(w http.ResponseWriter) { rp.ServeHTTP(w, r) }
		if fault == nil || !fault(w, r, forward) {
			forward(w)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *faultProxy) count(prefix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// once applies f to the first request for which match is true.
func once(match func(*http.Request) bool, f faultFunc) faultFunc {
	var mu sync.Mutex
	done := false
	return func(w http.ResponseWriter, r *http.Request, forward func(http.ResponseWriter)) bool {
		mu.Lock()
		if done || !match(r) {
			mu.Unlock()
			return false
		}
		done = true
		mu.Unlock()
		return f(w, r, forward)
	}
}

func isReviewPost(r *http.Request) bool {
	return r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/review")
}

func isChangeGet(r *http.Request) bool {
	return r.Method == "GET" && strings.Contains(r.URL.Path, "/changes/")
}

// dropAnswer lets Gerrit do the work and breaks the connection instead of
// answering.
func dropAnswer(w http.ResponseWriter, r *http.Request, forward func(http.ResponseWriter)) bool {
	forward(httptest.NewRecorder())
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
	return true
}

// answer returns a fault that answers with status, not reaching Gerrit.
func answer(status int, retryAfter string) faultFunc {
	return func(w http.ResponseWriter, r *http.Request, forward func(http.ResponseWriter)) bool {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, http.StatusText(status), status)
		return true
	}
}

// slowAnswer lets Gerrit do the work and answers only after the client
// gave up: its timeout, not a race with a sleep, decides.
func slowAnswer(w http.ResponseWriter, r *http.Request, forward func(http.ResponseWriter)) bool {
	forward(httptest.NewRecorder())
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute): // the client hung: the test says so
	}
	return true
}

// TestGerritTransient posts through a proxy that fails once in each way a
// transient failure looks, and checks that the post is retried and that
// the change ends with exactly one message.
func TestGerritTransient(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	direct := newTestGerrit(t, s, Options{})
	tests := []struct {
		name     string
		fault    faultFunc
		attempts int    // of the post
		posts    int    // POSTs through the proxy
		log      string // in the retry log
	}{
		{"lost answer", once(isReviewPost, dropAnswer), 2, 1, "posting the bench message: EOF; retrying"},
		{"timeout after storing", once(isReviewPost, slowAnswer), 2, 1, "Client.Timeout exceeded"},
		{"429 posting", once(isReviewPost, answer(http.StatusTooManyRequests, "0")), 2, 2, "429 too many requests; retrying"},
		{"503 reading", once(isChangeGet, answer(http.StatusServiceUnavailable, "")), 1, 1, "reading the change: 503 service unavailable; retrying"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRepo(t, s)
			r.commit(newChangeID(), tt.name+"\n", false)
			change, _ := pushChange(t, direct, s, r, PushOptions{})
			proxy := newFaultProxy(t, s.url, tt.fault)
			var log bytes.Buffer
			// Each request has 10 s: every answer but slowAnswer's must
			// come within it, or the attempts are not what the test
			// counts, and a loaded machine's Gerrit can take more than
			// the 300 ms this was.
			behind := newTestGerrit(t, testServer{proxy.URL, s.user, s.password, s.project}, Options{Log: &log, Timeout: 10 * time.Second})
			res, err := behind.Post(ctx, GerritPost{Change: change, Message: Message{Kind: "bench", Text: table}})
			if err != nil {
				t.Fatalf("post: %v", err)
			}
			if res.Action != Posted || res.Attempts != tt.attempts {
				t.Errorf("post = %+v, want posted after %d attempts", res, tt.attempts)
			}
			if n := proxy.count("POST "); n != tt.posts {
				t.Errorf("%d POSTs reached the proxy, want %d", n, tt.posts)
			}
			if got := tagged(t, direct, change, Tag("bench")); len(got) != 1 {
				t.Errorf("%d tagged messages, want 1", len(got))
			}
			if !strings.Contains(log.String(), tt.log) {
				t.Errorf("retry log does not say %q:\n%s", tt.log, log.String())
			}
		})
	}
}

func TestGerritTooLong(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "long\n", false)
	change, _ := pushChange(t, g, s, r, PushOptions{})
	m := Message{Kind: "bench", Text: strings.Repeat("BenchmarkWriteInts-2   9.56   14.42   1.51x\n", 1000)}
	for _, want := range []Action{Posted, AlreadyPosted} {
		res, err := g.Post(ctx, GerritPost{Change: change, Message: m})
		if err != nil || res.Action != want {
			t.Fatalf("post of %d bytes = %+v, %v; want %s", len(m.Text), res, err, want)
		}
	}
	got := tagged(t, g, change, Tag("bench"))
	if len(got) != 1 || !strings.Contains(got[0].Message, "cut by patchbot to fit") {
		t.Errorf("long message not cut to fit once: %d messages", len(got))
	}
}

func TestGerritPushWIP(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "wip\n", false)
	change, res := pushChange(t, g, s, r, PushOptions{WIP: true, Hashtags: []string{"wait-release", "codec"}, Topic: "fast-path"})
	if !res.Changes[0].WIP {
		t.Errorf("push answer does not say WIP: %+v", res.Changes[0])
	}
	ci, err := g.client.GetChange(ctx, change)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ci.Hashtags)
	if !ci.WorkInProgress || ci.Topic != "fast-path" || strings.Join(ci.Hashtags, ",") != "codec,wait-release" {
		t.Errorf("change: wip %v, topic %q, hashtags %v", ci.WorkInProgress, ci.Topic, ci.Hashtags)
	}
}

func TestGerritPermanentErrors(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "permanent\n", false)
	change, _ := pushChange(t, newTestGerrit(t, s, Options{}), s, r, PushOptions{})

	const badPassword = "not-the-password-7f3a"
	tests := []struct {
		name     string
		password string
		change   string
		status   int
		hint     string
	}{
		{"bad credentials", badPassword, change, http.StatusUnauthorized, "check the credentials"},
		{"unknown change", s.password, "999999", http.StatusNotFound, "check the change number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxy := newFaultProxy(t, s.url, nil)
			g := newTestGerrit(t, testServer{proxy.URL, s.user, tt.password, s.project}, Options{})
			_, err := g.Post(ctx, GerritPost{Change: tt.change, Message: Message{Kind: "bench", Text: table}})
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Post error = %v (%T), want *Error", err, err)
			}
			if e.Status != tt.status || !e.Permanent() || e.Attempts != 1 {
				t.Errorf("error = %+v, want status %d after 1 attempt", e, tt.status)
			}
			if n := len(proxy.requests); n != 1 {
				t.Errorf("%d requests for a permanent error, want 1: %v", n, proxy.requests)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, "Gerrit "+proxy.URL) || !strings.Contains(msg, "change "+tt.change) || !strings.Contains(msg, tt.hint) {
				t.Errorf("error is not one line naming server, change and what to do:\n%s", msg)
			}
			if strings.Contains(msg, tt.password) || strings.Contains(fmt.Sprintf("%+v %#v", e, e), tt.password) {
				t.Errorf("error shows the password: %s", msg)
			}
		})
	}
}

// TestChangeLines checks the parsing of Gerrit's answer to a push against
// what Gerrit 3.10 prints.
func TestChangeLines(t *testing.T) {
	in := "Processing changes: refs: 1, new: 1\rProcessing changes: refs: 1, new: 1, done\n\nSUCCESS\n\n" +
		"  http://127.0.0.1:8080/c/patchbot-test/+/1 a: add [NEW]\n" +
		"  http://127.0.0.1:8080/c/go/x/+/22 b: fix [WIP] [NEW]\n" +
		"  http://127.0.0.1:8080/c/patchbot-test/+/3 c: update\n\n"
	want := []PushedChange{
		{URL: "http://127.0.0.1:8080/c/patchbot-test/+/1", Subject: "a: add", New: true},
		{URL: "http://127.0.0.1:8080/c/go/x/+/22", Subject: "b: fix", New: true, WIP: true},
		{URL: "http://127.0.0.1:8080/c/patchbot-test/+/3", Subject: "c: update"},
	}
	got := parsePushProgress(in)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parsePushProgress:\n got %+v\nwant %+v", got, want)
	}
}

func TestPushRef(t *testing.T) {
	tests := []struct {
		o    PushOptions
		want string
	}{
		{PushOptions{}, "refs/for/master"},
		{PushOptions{Branch: "release-branch.go1.4"}, "refs/for/release-branch.go1.4"},
		{PushOptions{Topic: "fast-path", Hashtags: []string{"wait-release", "codec"}, Reviewers: []string{"gopher@golang.org"}, WIP: true},
			"refs/for/master%topic=fast-path,hashtag=wait-release,hashtag=codec,r=gopher@golang.org,wip"},
	}
	for _, tt := range tests {
		got, err := tt.o.Ref()
		if err != nil || got != tt.want {
			t.Errorf("Ref(%+v) = %q, %v; want %q", tt.o, got, err, tt.want)
		}
	}
	if _, err := (&PushOptions{Topic: "a,b"}).Ref(); err == nil {
		t.Error("a topic with a comma was accepted")
	}
}

// TestGerritPushErrors checks that a push refused for its credentials or
// its project is one line with what to do, not retried, and shows no
// password.
func TestGerritPushErrors(t *testing.T) {
	s := gerritServer(t)
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "push errors\n", false)
	const badPassword = "wrong-push-password-1234"
	tests := []struct {
		name, password, project string
		status                  int
		hint                    string
	}{
		{"bad credentials", badPassword, s.project, http.StatusUnauthorized, "check the credentials"},
		// Gerrit hides whether a project exists: 403, not 404.
		{"unknown project", s.password, "no-such-project", http.StatusForbidden, "check the project name (no-such-project)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxy := newFaultProxy(t, s.url, nil)
			g := newTestGerrit(t, testServer{proxy.URL, s.user, tt.password, tt.project}, Options{})
			_, err := g.Push(context.Background(), PushOptions{Dir: r.dir, Project: tt.project})
			e, ok := errors.AsType[*Error](err)
			if !ok || e.Status != tt.status || e.Attempts != 1 {
				t.Fatalf("push error = %v, want a %d after 1 attempt", err, tt.status)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, badPassword) || !strings.Contains(msg, tt.hint) {
				t.Errorf("push error is not one clear line without the password:\n%s", msg)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
}

func TestGerritPushRefused(t *testing.T) {
	s := gerritServer(t)
	r := newTestRepo(t, s)
	if err := os.WriteFile(filepath.Join(r.dir, "file.txt"), []byte("no change id\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	r.git("add", "file.txt")
	r.git("commit", "-q", "-m", "file: no Change-Id")
	_, err := newTestGerrit(t, s, Options{}).Push(context.Background(), PushOptions{Dir: r.dir, Project: s.project})
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Attempts != 1 || !strings.Contains(err.Error(), "pushing: Gerrit refused it: commit ") || !strings.HasSuffix(err.Error(), "; fix what Gerrit says and push again") {
		t.Fatalf("push without Change-Id: %v", err)
	}
	if !strings.Contains(err.Error(), "missing Change-Id") {
		t.Errorf("Gerrit's reason is lost: %v", err)
	}
}
