package work

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// fakeToken is the worker's GitHub token in the tests, the fake's token
// of patchbot's user: in its process's environment, and never in a
// benchmark's.
const fakeToken = reviewtest.Token

// module is the test repository: one package, one quick benchmark that
// writes its environment to a file in $WORK_TEST_ENV_OUT.
var module = map[string]string{
	"go.mod": "module example.com/w\n\ngo 1.22\n",
	"w.go":   "package w\n\nfunc F() int { return N }\n",
	"n.go":   "package w\n\nconst N = 1\n",
	"w_test.go": `package w

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkF(b *testing.B) {
	if d := os.Getenv("WORK_TEST_ENV_OUT"); d != "" {
		os.WriteFile(filepath.Join(d, strconv.Itoa(os.Getpid())), []byte(strings.Join(os.Environ(), "\n")), 0o666)
	}
	for b.Loop() {
		F()
	}
}
`,
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// commit writes files and commits them, returning the commit.
func commit(t *testing.T, dir, msg string, files map[string]string, amend bool) string {
	t.Helper()
	write(t, dir, files)
	gittest.Git(t, dir, "add", "-A")
	args := []string{"commit", "-q", "-m", msg}
	if amend {
		args = append(args, "--amend")
	}
	gittest.Git(t, dir, args...)
	return gittest.Git(t, dir, "rev-parse", "HEAD")
}

// benchEnv makes the directory the benchmarks write their environments
// to, and puts the fake token in this process's environment, as a worker
// that posts to GitHub has it.
func benchEnv(t *testing.T) string {
	out := t.TempDir()
	t.Setenv("WORK_TEST_ENV_OUT", out)
	t.Setenv("GITHUB_TOKEN", fakeToken)
	t.Setenv("PATCHBOT_GERRIT_PASSWORD", fakeToken)
	return out
}

// checkNoCredentials checks that the benchmarks ran and that no
// environment they saw held a credential.
func checkNoCredentials(t *testing.T, out string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no benchmark wrote its environment to %s (%v)", out, err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(data); strings.Contains(s, fakeToken) || strings.Contains(s, "GITHUB_TOKEN=") || strings.Contains(s, "PATCHBOT_GERRIT") {
			t.Errorf("a benchmark's environment holds a credential:\n%s", s)
		}
	}
}

func permanent(err error) bool { return queue.IsPermanent(err) }

// checkFailure checks that cs is one serve-bench comment that is a
// failure reply saying want, bounded and without credentials.
func checkFailure(t *testing.T, cs []reviewtest.Comment, want string) {
	t.Helper()
	if len(cs) != 1 {
		t.Fatalf("%d comments, want one failure reply: %+v", len(cs), cs)
	}
	body := cs[0].Body
	if !strings.HasPrefix(body, replyMarker("bench")) || !strings.Contains(body, "patchbot could not finish /patchbot bench") || !strings.Contains(body, want) {
		t.Errorf("the comment is not a serve-bench failure reply saying %q:\n%s", want, body)
	}
	if strings.Contains(body, fakeToken) || len(body) > 2000 || strings.ContainsAny(body, "\x1b\r") {
		t.Errorf("the failure reply holds a credential, is too long (%d bytes) or holds control characters:\n%q", len(body), body)
	}
}

// githubSetup makes a "GitHub" of bare repositories with owner/repo in
// it: master, and pull request 1 one commit on top; and the fake API.
type githubSetup struct {
	fake      *reviewtest.GitHub
	src, bare string
	w         *Worker
	head      string // pull request 1's first head
}

// checkOutput checks what Handle recorded for j: the reply's link, and
// for a bench job the result of benchmark F with each run's value, two
// per side.
func checkOutput(t *testing.T, j *queue.Job, url string, bench bool) {
	t.Helper()
	o, err := ReadOutput(j.Output())
	if err != nil || o == nil {
		t.Fatalf("job %s recorded %s: %v", &j.Args, j.Output(), err)
	}
	if o.URL != url || o.Note != "" {
		t.Errorf("job %s recorded the reply %q (note %q); want %q", &j.Args, o.URL, o.Note, url)
	}
	if !bench {
		if o.Bench != nil {
			t.Errorf("job %s recorded a bench result", &j.Args)
		}
		return
	}
	if o.Bench == nil || len(o.Bench.Tables) == 0 || len(o.Bench.Tables[0].Rows) != 1 {
		t.Fatalf("job %s recorded no result of one benchmark: %s", &j.Args, j.Output())
	}
	r := o.Bench.Tables[0].Rows[0]
	if !strings.HasPrefix(r.Name, "F") || r.Old == nil || r.New == nil || len(r.Old.Values) != 2 || len(r.New.Values) != 2 {
		t.Errorf("job %s recorded %+v; want F with two runs a side", &j.Args, r)
	}
}

func newGitHub(t *testing.T) *githubSetup {
	root := t.TempDir()
	s := &githubSetup{fake: reviewtest.NewGitHub("owner/repo"), src: filepath.Join(root, "src"), bare: filepath.Join(root, "gh", "owner", "repo")}
	t.Cleanup(s.fake.Close)
	for _, d := range []string{s.src, s.bare} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, s.bare, "init", "-q", "--bare")
	gittest.Git(t, s.src, "init", "-q", "-b", "master")
	commit(t, s.src, "base", module, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/heads/master")
	// A commit on master after the pull request's start: the base is the
	// merge base, not master's tip.
	gittest.Git(t, s.src, "checkout", "-q", "-b", "pr")
	s.head = commit(t, s.src, "pr: F returns 2", map[string]string{"n.go": "package w\n\nconst N = 2\n"}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/pull/1/head")
	gittest.Git(t, s.src, "checkout", "-q", "master")
	commit(t, s.src, "master moves on", map[string]string{"README": "x\n"}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/heads/master")
	gittest.Git(t, s.src, "checkout", "-q", "pr")
	s.fake.SetHead(1, s.head)
	s.fake.SetCloneURL(s.bare)

	env := map[string]string{"GITHUB_TOKEN": fakeToken, "GITHUB_API_URL": s.fake.URL}
	s.w = &Worker{
		Areas: &Areas{Root: filepath.Join(root, "areas")},
		Env:   job.Env{Getenv: func(k string) string { return env[k] }},
	}
	return s
}

// benchJob is the job the webhook queues for /patchbot bench on pull
// request n at head, with what it read of the pull request.
func (s *githubSetup) benchJob(n int, head string) *queue.Job {
	pr := review.PullRequest{Owner: "owner", Repo: "repo", Number: n}
	return &queue.Job{ID: 1, Attempt: 1, MaxAttempts: 5, Args: queue.Args{
		Review: review.GitHubTarget(pr), Revision: review.Revision{Commit: head}, Command: "bench", Who: "gopher", Delivery: "d1",
		Request: job.Request{
			Steps:  []string{job.StepBench, job.StepPost},
			Branch: "master", // the base, as the webhook read it
			Bench:  job.BenchSettings{Count: 2, Benchtime: "1x"},
			GitHub: &job.GitHub{PullRequest: pr, HeadSHA: head, CloneURL: s.bare},
		},
	}}
}

func TestGitHub(t *testing.T) {
	out := benchEnv(t)
	s := newGitHub(t)
	ctx := context.Background()
	j := s.benchJob(1, s.head)
	if err := s.w.Handle(ctx, j); err != nil {
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, replyMarker("bench")) || !strings.Contains(cs[0].Body, "old ns/op") || !strings.Contains(cs[0].Body, "F") {
		t.Fatalf("want one serve-bench comment with the table, got %+v", cs)
	}
	if strings.Contains(cs[0].Body, "Measured") {
		t.Errorf("a note without a newer head:\n%s", cs[0].Body)
	}
	checkNoCredentials(t, out)
	if j.Args.Request.Repo != "" {
		t.Errorf("Handle changed the queued request: %+v", j.Args.Request)
	}
	checkOutput(t, j, cs[0].HTMLURL, true)
	// The base branch came with the job, as the webhook read it: the
	// pull request was read once, for the note on a newer head.
	if n := s.fake.Count("GET /api/v3/repos/owner/repo/pulls/1"); n != 1 {
		t.Errorf("the pull request was read %d times, want once: %q", n, s.fake.Requests())
	}

	// A redelivery after a crash: the same comment, never a second.
	if err := s.w.Handle(ctx, j); err != nil {
		t.Fatal(err)
	}
	if n := len(s.fake.Comments()); n != 1 {
		t.Fatalf("after the job ran again, %d comments, want 1", n)
	}
	if n := s.fake.Count("POST "); n != 1 {
		t.Errorf("%d comments created, want 1", n)
	}

	// The head moves: the job stays bound to its commit, and says so.
	newHead := commit(t, s.src, "pr: F returns 3", map[string]string{"n.go": "package w\n\nconst N = 3\n"}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/pull/1/head")
	s.fake.SetHead(1, newHead)
	if err := s.w.Handle(ctx, j); err != nil {
		t.Fatal(err)
	}
	cs = s.fake.Comments()
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
	if want := "Measured " + s.head + ", the head when this was asked; the pull request's head is now " + newHead; !strings.Contains(cs[0].Body, want) {
		t.Errorf("the comment does not say which head was measured (%q):\n%s", want, cs[0].Body)
	}

	// The area is clean after each job: only .git, and no job refs.
	dir := s.w.Areas.dir(s.bare)
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != ".git" {
		t.Errorf("the work area holds %v after the job", ents)
	}
	if refs := gittest.Git(t, dir, "for-each-ref", "refs/patchbot"); refs != "" {
		t.Errorf("job refs left: %s", refs)
	}
}

// TestGitHubReadsBase: a job queued without the base branch and the clone
// URL (by an older serve) reads them from the pull request, and runs as
// the others do.
func TestGitHubReadsBase(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	j := s.benchJob(1, s.head)
	j.Args.Request.Branch, j.Args.Request.GitHub.CloneURL = "", ""
	if err := s.w.Handle(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if cs := s.fake.Comments(); len(cs) != 1 || !strings.Contains(cs[0].Body, "old ns/op") {
		t.Fatalf("want one comment with the table, got %+v", cs)
	}
	// Once for the base, once for the note on a newer head.
	if n := s.fake.Count("GET /api/v3/repos/owner/repo/pulls/1"); n != 2 {
		t.Errorf("the pull request was read %d times, want twice: %q", n, s.fake.Requests())
	}
}

func TestGitHubBinding(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	ctx := context.Background()
	// Pull request 2's ref holds a commit, but the job is bound to one
	// that is not on it (a force-push replaced it, say).
	other := commit(t, s.src, "elsewhere", map[string]string{"n.go": "package w\n\nconst N = 4\n"}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, s.head+":refs/pull/2/head")
	s.fake.SetHead(2, s.head)
	j := s.benchJob(2, other)
	for range 2 { // the second run is a rescue: still one reply
		err := s.w.Handle(ctx, j)
		if _, ok := errors.AsType[*BindingError](err); !ok || !permanent(err) {
			t.Fatalf("a commit not on the pull request: err = %v (%T), want a permanent *BindingError", err, err)
		}
		checkFailure(t, s.fake.Comments(), "it is not measured")
		checkOutput(t, j, s.fake.Comments()[0].HTMLURL, false)
	}
	if body := s.fake.Comments()[0].Body; !strings.Contains(body, "Not retried") {
		t.Errorf("the reply does not say the job is not retried:\n%s", body)
	}
	if n := s.fake.Count("POST "); n != 1 {
		t.Errorf("%d comments created, want 1", n)
	}

	// The commit is pushed after all, and the command is given again:
	// the failure reply becomes the result.
	gittest.Git(t, s.src, "push", "-q", "-f", s.bare, other+":refs/pull/2/head")
	s.fake.SetHead(2, other)
	if err := s.w.Handle(ctx, j); err != nil {
		t.Fatal(err)
	}
	if cs := s.fake.Comments(); len(cs) != 1 || !strings.Contains(cs[0].Body, "old ns/op") || strings.Contains(cs[0].Body, "could not") {
		t.Fatalf("want the failure reply edited into the result, got %+v", cs)
	}

	// A request that names its own repository is refused, permanently.
	j = s.benchJob(1, s.head)
	j.Args.Request.Repo = "/etc"
	if err := s.w.Handle(ctx, j); !permanent(err) {
		t.Errorf("a request with a repository: err = %v, want permanent", err)
	}
}

// TestGitHubOwnReplies: three bench commands on one head — one, another
// reviewer's with other options, and a typo that fails at once — each get
// a comment of their own, naming the command they answer; no job's result
// or failure replaces another's. Run again, a job edits its own comment
// and adds none.
func TestGitHubOwnReplies(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	ctx := context.Background()
	first := s.benchJob(1, s.head)
	other := s.benchJob(1, s.head)
	other.ID, other.Args.Who, other.Args.Options, other.Args.Request.Bench.Count = 2, "alice", "-count 3", 3
	typo := s.benchJob(1, s.head)
	typo.ID, typo.Args.Who, typo.Args.Options, typo.Args.Request.Bench.Packages = 3, "bob", "./nosuch/...", []string{"./nosuch/..."}
	for _, j := range []*queue.Job{first, other} {
		if err := s.w.Handle(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.w.Handle(ctx, typo); !permanent(err) {
		t.Fatalf("the typo's job: %v, want a permanent error", err)
	}
	if err := s.w.Handle(ctx, first); err != nil { // again: edits its own
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	if len(cs) != 3 {
		t.Fatalf("%d comments, want 3, one a job:\n%+v", len(cs), cs)
	}
	kinds := map[string]bool{}
	for i, want := range []string{
		"Answering /patchbot bench, asked by gopher.\n",
		"Answering /patchbot bench -count 3, asked by alice.\n",
		"patchbot could not finish /patchbot bench ./nosuch/..., asked by bob, on ",
	} {
		body := cs[i].Body
		kind, _, _ := strings.Cut(body, "\n")
		kinds[kind] = true
		if !strings.HasPrefix(body, replyMarker("bench")) || !strings.Contains(body, want) {
			t.Errorf("comment %d does not answer %q:\n%s", i, want, body)
		}
		if i < 2 && !strings.Contains(body, "old ns/op") {
			t.Errorf("comment %d has no table:\n%s", i, body)
		}
	}
	if len(kinds) != 3 {
		t.Errorf("the comments' markers %v: want one a job", kinds)
	}
}

// TestGitHubRateLimitedReply: the reply's POST refused for GitHub's rate
// limit (its reset three minutes away, past the client's own wait) is not
// an error that uses up the job's attempts: the job waits until the reset
// (queue.Snooze), keeping its result; the attempt after the wait posts
// that result, without running the benchmarks again, once.
func TestGitHubRateLimitedReply(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	ctx := context.Background()
	reset := time.Now().Add(3 * time.Minute)
	s.fake.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/comments") {
			reviewtest.RateLimited(w, reset)
			return true
		}
		return false
	})
	j := s.benchJob(1, s.head)
	err := s.w.Handle(ctx, j)
	if !queue.IsSnooze(err) || permanent(err) {
		t.Fatalf("a rate-limited reply: err = %v; want a wait (queue.Snooze)", err)
	}
	if d := time.Until(reset); !strings.Contains(err.Error(), "waiting") || d < 2*time.Minute {
		t.Errorf("err = %v; want a wait of about %v", err, d.Round(time.Second))
	}
	if cs := s.fake.Comments(); len(cs) != 0 {
		t.Fatalf("posted %+v through a rate limit", cs)
	}
	kept, err := ReadOutput(j.Output())
	if err != nil || kept == nil || kept.Bench == nil {
		t.Fatalf("the waiting job kept %+v (%v); want its bench result", kept, err)
	}

	// After the wait, in a worker of its own (as a restarted server's):
	// the limit has reset.
	s.fake.SetFault(nil)
	w2 := &Worker{Areas: s.w.Areas, Env: s.w.Env}
	again := s.benchJob(1, s.head)
	again.Previous = j.Output()
	if err := w2.Handle(ctx, again); err != nil {
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "old ns/op") {
		t.Fatalf("after the wait: %+v; want one reply with the table", cs)
	}
	posted, err := ReadOutput(again.Output())
	if err != nil || posted == nil || posted.URL == "" {
		t.Fatalf("the reply's output %+v (%v); want its URL", posted, err)
	}
	want, _ := json.Marshal(kept.Bench)
	got, _ := json.Marshal(posted.Bench)
	if string(got) != string(want) {
		t.Errorf("the result posted is not the one kept: the benchmarks ran again")
	}
}

// TestGitHubJobTimeout: a benchmark that hangs runs the job past its
// time limit. The job is not retried (a retry would hang the same way,
// holding a worker each time): it is answered once, the reply naming the
// limit and the benchmark that was running.
func TestGitHubJobTimeout(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	gittest.Git(t, s.src, "checkout", "-q", "-b", "pr-hang")
	head := commit(t, s.src, "pr: a benchmark that hangs", map[string]string{"hang_test.go": `package w

import (
	"testing"
	"time"
)

func BenchmarkHang(b *testing.B) {
	for {
		time.Sleep(10 * time.Millisecond)
	}
}
`}, false)
	gittest.Git(t, s.src, "push", "-q", "-f", s.bare, "HEAD:refs/pull/2/head")
	s.fake.SetHead(2, head)
	j := s.benchJob(2, head)
	j.Args.Request.Bench.Bench = "Hang"
	j.Timeout = 10 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), j.Timeout)
	defer cancel()
	err := s.w.Handle(ctx, j)
	if !permanent(err) {
		t.Fatalf("a job past its time: err = %v; want a permanent error, not retried", err)
	}
	cs := s.fake.Comments()
	if len(cs) != 1 {
		t.Fatalf("%d comments, want one failure reply: %+v", len(cs), cs)
	}
	for _, want := range []string{"ran past the server's limit of 10s for a job", "while running BenchmarkHang of ., ", "Not retried"} {
		if !strings.Contains(cs[0].Body, want) {
			t.Errorf("the reply lacks %q:\n%s", want, cs[0].Body)
		}
	}
}

// TestGitHubUnverifiedNote: a job whose head no pull_request event
// recorded says in its reply which commit it measured, read when patchbot
// decided on the command (at arrival, or up to an hour later for a
// deferred one), and that it may be newer than the command.
func TestGitHubUnverifiedNote(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	j := s.benchJob(1, s.head)
	j.Args.Request.GitHub.Unverified = true
	if err := s.w.Handle(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	want := "Measured " + s.head + ", the pull request's head when patchbot read it for this command; patchbot has no record of when it was pushed, so it may be newer than the command."
	if len(cs) != 1 || !strings.Contains(cs[0].Body, want) {
		t.Errorf("want one reply saying %q, got %+v", want, cs)
	}
}

// TestGitHubHopeless runs jobs that no retry can mend, on their first
// attempt: each is cancelled at once (a permanent error) with exactly one
// failure reply, which says what is wrong, that it is not retried, and
// names no path of the server's; and a rescue of the job posts nothing
// more.
func TestGitHubHopeless(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(r *job.Request)
		want []string // in the reply
	}{
		{"no such package", func(r *job.Request) { r.Bench.Packages = []string{"./nosuchpkg"} },
			[]string{"package ./nosuchpkg does not exist at ", "the module has no directory ./nosuchpkg", "must name packages of the module"}},
		{"no such tree", func(r *job.Request) { r.Bench.Packages = []string{".", "./nosuch/..."} },
			[]string{"package ./nosuch/... does not exist at ", "the module has no directory ./nosuch;"}},
		{"no such base branch", func(r *job.Request) { r.Branch = "nosuch" },
			[]string{`base branch "nosuch" does not exist in the repository`, "Base the change on a branch that exists"}},
		{"a base branch that is not a branch name", func(r *job.Request) { r.Branch = "main..x" },
			[]string{`base branch "main..x" is not a valid branch name`}},
		{"a -bench that matches nothing", func(r *job.Request) { r.Bench.Bench = "Nosuch" },
			[]string{`no benchmark matched -bench REGEXP "Nosuch" in example.com/w`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			benchEnv(t)
			s := newGitHub(t)
			j := s.benchJob(1, s.head)
			tt.set(&j.Args.Request)
			for range 2 { // the second run is a rescue: still one reply
				err := s.w.Handle(context.Background(), j)
				if !permanent(err) {
					t.Fatalf("attempt %d of %d: err = %v, want a permanent error", j.Attempt, j.MaxAttempts, err)
				}
				checkFailure(t, s.fake.Comments(), tt.want[0])
			}
			body := s.fake.Comments()[0].Body
			t.Logf("the reply:\n%s", body)
			for _, w := range append(tt.want[1:], "Not retried") {
				if !strings.Contains(body, w) {
					t.Errorf("the reply lacks %q:\n%s", w, body)
				}
			}
			for _, p := range []string{s.w.Areas.Root, os.TempDir(), s.bare, "patchbot-bench-"} {
				if strings.Contains(body, p) {
					t.Errorf("the reply names the server's path %s:\n%s", p, body)
				}
			}
			if n := s.fake.Count("POST "); n != 1 {
				t.Errorf("%d comments created, want 1", n)
			}
		})
	}
}

// TestGitHubBenchFails runs a job whose benchmark fails on every run, and
// prints much, on its first and last attempts.
func TestGitHubBenchFails(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	ctx := context.Background()
	// The benchmark fails on both sides: master breaks it, and the pull
	// request is rebased onto master.
	gittest.Git(t, s.src, "checkout", "-q", "master")
	commit(t, s.src, "the benchmark fails", map[string]string{"w_test.go": `package w

import (
	"strings"
	"testing"
)

func BenchmarkF(b *testing.B) {
	for i := range 50 {
		b.Log("noise", i, "@someone ` + "```" + ` \x1b[31m", strings.Repeat("x", 100))
	}
	b.Fatal("the benchmark broke")
}
`}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/heads/master")
	gittest.Git(t, s.src, "checkout", "-q", "-b", "pr3")
	bad := commit(t, s.src, "pr: F returns 2", map[string]string{"n.go": "package w\n\nconst N = 2\n"}, false)
	gittest.Git(t, s.src, "push", "-q", "-f", s.bare, "HEAD:refs/pull/1/head")
	s.fake.SetHead(1, bad)

	// Not the last attempt: retried, and nothing said yet.
	j := s.benchJob(1, bad)
	err := s.w.Handle(ctx, j)
	if err == nil || permanent(err) {
		t.Fatalf("a failing benchmark: err = %v, want a transient error", err)
	}
	if n := len(s.fake.Comments()); n != 0 {
		t.Fatalf("%d comments before the last attempt, want none", n)
	}

	j.Attempt = j.MaxAttempts
	for range 2 {
		if err := s.w.Handle(ctx, j); err == nil || permanent(err) {
			t.Fatalf("the last attempt: err = %v, want the job's transient error", err)
		}
		checkFailure(t, s.fake.Comments(), "no benchmark results")
	}
	body := s.fake.Comments()[0].Body
	if !strings.Contains(body, "Tried 5 times") || !strings.Contains(body, "[...]") || !strings.Contains(body, "````text\n") {
		t.Errorf("the reply does not say the tries, cut the output, or fence it longer than its backticks:\n%s", body)
	}
	if n := s.fake.Count("POST "); n != 1 {
		t.Errorf("%d comments created, want 1", n)
	}
}

// TestFailureReplyFails checks that a failure reply that cannot be posted
// is an error the queue retries, even when the job's own is permanent.
func TestFailureReplyFails(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	cfg := config.Default()
	cfg.Review.Attempts = 1
	s.w.Config = cfg
	s.fake.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost {
			http.Error(w, `{"message":"down"}`, http.StatusBadGateway)
			return true
		}
		return false
	})
	other := commit(t, s.src, "elsewhere", map[string]string{"n.go": "package w\n\nconst N = 4\n"}, false)
	err := s.w.Handle(context.Background(), s.benchJob(1, other))
	if err == nil || permanent(err) || !strings.Contains(err.Error(), "posting the failure reply") {
		t.Fatalf("err = %v, want a transient error posting the failure reply", err)
	}
}

// TestFailureReplyBeforeRescue checks that a failure reply to a server
// that does not answer gives up before the queue may rescue the job
// (queue.Job.RescueAt), which would run it again beside the reply.
//
// It asserts on what the deadline causes, not on the clock: with one
// attempt and an hour per request, only the reply's deadline can end its
// POST, so the server sees the client hang up. The reply's own limit
// (failPostTimeout) is two minutes; the rescue's, 3s away, is the one
// that must win, and a minute without an answer is a hang.
func TestFailureReplyBeforeRescue(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	cfg := config.Default()
	cfg.Review.Attempts = 1
	cfg.Review.Timeout = time.Hour
	s.w.Config = cfg
	ended := make(chan string, 10)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) }) // before s.fake.Close, which waits for the handler
	s.fake.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost {
			// No answer, as long as the client waits (with the body
			// read, the server sees the client hang up).
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
				ended <- "the client hung up"
			case <-stop:
			}
			return true
		}
		return false
	})
	other := commit(t, s.src, "elsewhere", map[string]string{"n.go": "package w\n\nconst N = 4\n"}, false)
	j := s.benchJob(1, other) // not the pull request's: a permanent failure, replied to at once
	j.RescueAt = time.Now().Add(rescueSlack + 3*time.Second)
	start := time.Now()
	errc := make(chan error, 1)
	go func() { errc <- s.w.Handle(context.Background(), j) }()
	var err error
	select {
	case err = <-errc:
	case <-time.After(time.Minute):
		t.Fatalf("Handle hung: the failure reply did not give up on the silent server within a minute, though its deadline was 3s away, %v before the rescue", rescueSlack)
	}
	t.Logf("the failure reply gave up after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if err == nil || permanent(err) || !strings.Contains(err.Error(), "posting the failure reply") {
		t.Fatalf("err = %v, want a transient error posting the failure reply", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap context.DeadlineExceeded: the reply's deadline", err)
	}
	// The server sees the hang-up a moment after the client returns.
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Errorf("the fake server never saw the client hang up")
	}
	if n := s.fake.Count("POST "); n != 1 {
		t.Errorf("%d POSTs, want 1: %q", n, s.fake.Requests())
	}
}

// TestFailureReplyRescueDue checks, without a clock, that the failure
// reply's deadline is the rescue's: with the rescue already due, the
// reply gives up before it sends anything, where its own limit
// (failPostTimeout) would have let it post.
func TestFailureReplyRescueDue(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	other := commit(t, s.src, "elsewhere", map[string]string{"n.go": "package w\n\nconst N = 4\n"}, false)
	j := s.benchJob(1, other) // not the pull request's: a permanent failure, replied to at once
	j.RescueAt = time.Now()
	err := s.w.Handle(context.Background(), j)
	if err == nil || permanent(err) || !strings.Contains(err.Error(), "posting the failure reply") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a transient error posting the failure reply, out of time", err)
	}
	if n := s.fake.Count("POST "); n != 0 {
		t.Errorf("%d POSTs, want none: %q", n, s.fake.Requests())
	}
}

func TestPostOnly(t *testing.T) {
	s := newGitHub(t)
	j := &queue.Job{Args: queue.Args{Review: mustTarget(t, "github:owner/repo#1"), Reply: queue.MessageKey("7"), Command: "help",
		Request: job.Request{Steps: []string{job.StepPost}, Post: job.PostSettings{Kind: "help-7", Text: "the help"},
			GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("owner/repo#1")}}}}
	for range 2 {
		if err := s.w.Handle(context.Background(), j); err != nil {
			t.Fatal(err)
		}
	}
	cs := s.fake.Comments()
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "the help") {
		t.Fatalf("want one help comment, got %+v", cs)
	}
	checkOutput(t, j, cs[0].HTMLURL, false)
}

func TestAreaDir(t *testing.T) {
	a := &Areas{Root: "/r"}
	for _, u := range []string{"https://github.com/../../etc", "https://github.com/a/b", "../x"} {
		d := a.dir(u)
		if filepath.Dir(d) != "/r" || strings.Contains(filepath.Base(d), ".") {
			t.Errorf("area of %q is %s, want a hash under /r", u, d)
		}
	}
	_, err := a.Checkout(context.Background(), Source{URL: "x", Ref: "refs/heads/../../x", Commit: strings.Repeat("a", 40)})
	if err == nil {
		t.Error("a ref that is not a pull request's or a change's was fetched")
	}
}

// TestGerrit runs a job bound to patch set 1 of a change that has a
// patch set 2, against the real test Gerrit.
func TestGerrit(t *testing.T) {
	gs := gerrittest.Get(t)
	out := benchEnv(t)
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	b := make([]byte, 4)
	rand.Read(b)
	branch := "work-test-" + hex.EncodeToString(b)
	auth := gs.GitAuth()
	remote := gs.URL + "/a/" + gs.Project

	src := t.TempDir()
	gittest.Git(t, src, "init", "-q", "-b", "master")
	commit(t, src, "base", module, false)
	gittest.Git(t, src, "-c", auth, "push", "-q", remote, "HEAD:refs/heads/"+branch)
	changeID := "I" + hex.EncodeToString(append(b, make([]byte, 16)...))
	ps1 := commit(t, src, "w: F returns 2\n\nChange-Id: "+changeID, map[string]string{"n.go": "package w\n\nconst N = 2\n"}, false)
	gittest.Git(t, src, "-c", auth, "push", "-q", remote, "HEAD:refs/for/"+branch)
	ps2 := commit(t, src, "w: F returns 3\n\nChange-Id: "+changeID, map[string]string{"n.go": "package w\n\nconst N = 3\n"}, true)
	gittest.Git(t, src, "-c", auth, "push", "-q", remote, "HEAD:refs/for/"+branch)
	cs := gs.Changes(t, "branch:"+branch)
	if len(cs) != 1 || cs[0].CurrentRevision != ps2 {
		t.Fatalf("want one change at %s, got %+v", ps2, cs)
	}
	change := strconv.Itoa(cs[0].Number)

	// The project's own policy, for its own repository: the worker
	// knows the project by the server's URL for it.
	u, _ := url.Parse(gs.URL)
	cfg, err := config.Parse("work.yaml", []byte(fmt.Sprintf("freeze:\n  branches: [master, %s]\n  projects: [%s/%s]\n  calendar:\n    go1.4: {freeze: 2014-09-01, reopen: 2014-12-10, release: 2014-12-10}\n", branch, u.Hostname(), gs.Project)))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATCHBOT_GERRIT_USER": gs.User, "PATCHBOT_GERRIT_PASSWORD": gs.Password}
	w := &Worker{Areas: &Areas{Root: t.TempDir()}, Config: cfg, Env: job.Env{Getenv: func(k string) string { return env[k] }}}
	j := &queue.Job{Args: queue.Args{
		Review: mustTarget(t, "gerrit:"+u.Host+":"+change), Revision: review.Revision{PatchSet: 1, Commit: ps1}, Command: "bench",
		Request: job.Request{
			Steps:  []string{job.StepBench, job.StepPost},
			Branch: branch,
			Bench:  job.BenchSettings{Count: 2, Benchtime: "1x"},
			Gerrit: &job.Gerrit{Server: gs.URL, Change: change, Revision: ps1},
		},
	}}
	for range 2 { // the second run is a redelivery: nothing more is posted
		if err := w.Handle(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, m := range gs.Messages(t, change) {
		if replyTag(m.Tag, "bench", false) {
			got = append(got, m.Message)
		}
	}
	if len(got) != 1 {
		t.Fatalf("change %s has %d serve-bench messages, want 1:\n%s", change, len(got), strings.Join(got, "\n---\n"))
	}
	want := fmt.Sprintf("Measured patch set 1 (%s); patch set 2 is newer", ps1[:12])
	if !strings.HasPrefix(got[0], "Patch Set 1:") || !strings.Contains(got[0], want) || !strings.Contains(got[0], "old ns/op") {
		t.Errorf("the message is not on patch set 1 with the note %q and the table:\n%s", want, got[0])
	}
	checkNoCredentials(t, out)
	at := func(ps int) string { return fmt.Sprintf("%s/c/%s/+/%s/%d", gs.URL, gs.Project, change, ps) }
	checkOutput(t, j, at(1), true)

	// /patchbot freeze while the tree is frozen (Go 1.4's freeze): one
	// reply saying so, and the change is not tagged wait-release, nor
	// given freeze's own message.
	fj := &queue.Job{Args: queue.Args{
		Review: j.Args.Review, Revision: review.Revision{PatchSet: 2, Commit: ps2}, Command: "freeze",
		Request: job.Request{
			Steps:  []string{job.StepFreeze, job.StepPost},
			At:     time.Date(2014, 10, 1, 12, 0, 0, 0, time.UTC),
			Gerrit: &job.Gerrit{Server: gs.URL, Change: change, Revision: ps2},
		},
	}}
	for range 2 {
		if err := w.Handle(ctx, fj); err != nil {
			t.Fatal(err)
		}
	}
	var freezes []string
	for _, m := range gs.Messages(t, change) {
		if replyTag(m.Tag, "freeze", false) || m.Tag == review.Tag("freeze") {
			freezes = append(freezes, m.Tag+": "+m.Message)
		}
	}
	if len(freezes) != 1 || !strings.HasPrefix(freezes[0], review.Tag(ReplyPrefix("freeze"))) || !strings.Contains(freezes[0], ": Patch Set 2:") || !strings.Contains(freezes[0], "frozen for Go 1.4") {
		t.Errorf("want one serve-freeze reply on patch set 2 saying the tree is frozen for Go 1.4, got:\n%s", strings.Join(freezes, "\n---\n"))
	}
	if cs := gs.Changes(t, "change:"+change); len(cs) != 1 || len(cs[0].Hashtags) != 0 {
		t.Errorf("the change's hashtags after /patchbot freeze: %+v, want none", cs)
	}

	// A package that does not exist: cancelled on the first attempt, with
	// one failure message on patch set 1, beside its result.
	nopkg := *j
	nopkg.Args.Request.Bench.Packages = []string{"./nosuchpkg"}
	for range 2 { // and a rescue: still one failure reply
		if err := w.Handle(ctx, &nopkg); !permanent(err) {
			t.Errorf("a package that does not exist: err = %v, want permanent", err)
		}
	}
	var failed []string
	for _, m := range gs.Messages(t, change) {
		if replyTag(m.Tag, "bench", true) {
			failed = append(failed, m.Message)
		}
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "Patch Set 1:") || !strings.Contains(failed[0], "package ./nosuchpkg does not exist") ||
		!strings.Contains(failed[0], "Not retried") || strings.Contains(failed[0], w.Areas.Root) || strings.Contains(failed[0], os.TempDir()) {
		t.Errorf("want one failure reply on patch set 1 saying ./nosuchpkg does not exist, with no server path, got:\n%s", strings.Join(failed, "\n---\n"))
	}

	// A job whose commit is not patch set 1's is refused, and posts nothing.
	bad := *j
	bad.Args.Revision = review.Revision{PatchSet: 1, Commit: ps2}
	bad.Args.Request.Gerrit = &job.Gerrit{Server: gs.URL, Change: change, Revision: ps2}
	for range 2 { // and a rescue: still one failure reply
		if err := w.Handle(ctx, &bad); !permanent(err) {
			t.Errorf("a revision that is not the patch set's: err = %v, want permanent", err)
		}
		checkOutput(t, &bad, at(2), false)
	}
	got, failed = nil, nil
	for _, m := range gs.Messages(t, change) {
		switch {
		case replyTag(m.Tag, "bench", false):
			got = append(got, m.Message)
		case replyTag(m.Tag, "bench", true) && !strings.HasPrefix(m.Message, "Patch Set 1:"):
			failed = append(failed, m.Message)
		}
	}
	if len(got) != 1 || len(failed) != 1 || !strings.HasPrefix(failed[0], "Patch Set 2:") || !strings.Contains(failed[0], "is not measured") {
		t.Errorf("want the result and one failure reply on patch set 2, got %d and:\n%s", len(got), strings.Join(failed, "\n---\n"))
	}
}

// TestRecordBound: an output over the queue's bound loses each run's
// value first, and its bench result next, and says so; the result given
// is not changed.
func TestRecordBound(t *testing.T) {
	r, err := benchrun.CompareFiles("../../step/benchrun/testdata/codec-old.txt", "../../step/benchrun/testdata/codec-new.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	table := r.String(benchrun.Benchcmp)
	w := &Worker{}
	const link = "https://github.example/owner/repo/pull/1#issuecomment-1"

	j := (&githubSetup{}).benchJob(1, strings.Repeat("a", 40))
	w.record(j, &Output{URL: link, Bench: r})
	if o, _ := ReadOutput(j.Output()); o == nil || o.Note != "" || o.Bench == nil || o.Bench.String(benchrun.Benchcmp) != table {
		t.Fatalf("a small result is not recorded whole: %s", j.Output())
	}

	// Many runs: the values go, the tables stay.
	values := make([]float64, queue.MaxOutput/8)
	for i := range values {
		values[i] = 1e9 + float64(i)
	}
	r.Tables[0].Rows[0].Old.Values = values
	w.record(j, &Output{URL: link, Bench: r})
	o, err := ReadOutput(j.Output())
	if err != nil || o == nil || o.URL != link || o.Note != noteNoValues || o.Bench == nil || len(j.Output()) > queue.MaxOutput {
		t.Fatalf("a result with %d values recorded %d bytes: %+v, %v", len(values), len(j.Output()), o, err)
	}
	for _, tb := range o.Bench.Tables {
		for _, row := range tb.Rows {
			if row.Old.Values != nil || row.New.Values != nil {
				t.Errorf("%s: values kept", row.Name)
			}
		}
	}
	if got := o.Bench.String(benchrun.Benchcmp); got != table {
		t.Errorf("the table without the values:\n%s\nwant\n%s", got, table)
	}
	if len(r.Tables[0].Rows[0].Old.Values) != len(values) {
		t.Error("record changed the result it was given")
	}

	// Too much besides: the result goes, the link stays.
	r.Warnings = []string{strings.Repeat("w", queue.MaxOutput)}
	w.record(j, &Output{URL: link, Bench: r})
	if o, err := ReadOutput(j.Output()); err != nil || o == nil || o.URL != link || o.Note != noteNoBench || o.Bench != nil {
		t.Fatalf("a result with a large warning recorded %+v, %v", o, err)
	}
}

// mustTarget parses a review target a test names.
func mustTarget(t *testing.T, s string) review.Target {
	t.Helper()
	tg, err := review.ParseTarget(s)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestGitHubFreezeFetchesNothing: a /patchbot freeze job answers from the
// branch, and fetches no code: its repository's URL leads nowhere, and it
// replies all the same, leaving no work area.
func TestGitHubFreezeFetchesNothing(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	j := s.benchJob(1, s.head)
	j.Args.Command = "freeze"
	j.Args.Request.Steps = []string{job.StepFreeze, job.StepPost}
	j.Args.Request.Bench = job.BenchSettings{}
	j.Args.Request.GitHub.CloneURL = filepath.Join(t.TempDir(), "no-such-repository")
	if err := s.w.Handle(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if cs := s.fake.Comments(); len(cs) != 1 || !strings.HasPrefix(cs[0].Body, replyMarker("freeze")) || !strings.Contains(cs[0].Body, "Freeze:") {
		t.Fatalf("want one serve-freeze reply, got %+v", cs)
	}
	if ents, _ := os.ReadDir(s.w.Areas.Root); len(ents) != 0 {
		t.Errorf("the freeze job made work areas: %v", ents)
	}
}

// TestGitHubAA: "/patchbot bench -aa", as the webhook queues it, runs the
// head against itself, one binary on both sides, and the reply says so,
// with the count of rows flagged, each a false alarm.
func TestGitHubAA(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	j := s.benchJob(1, s.head)
	c, err := command.Parse("/patchbot bench -aa -count 4")
	if err != nil || c == nil {
		t.Fatalf("Parse: %v, %v", c, err)
	}
	c.Apply(&j.Args.Request)
	if b := j.Args.Request.Bench; !b.AA || b.Count != 4 || b.Benchtime != "1x" {
		t.Fatalf("the request's bench settings: %+v", b)
	}
	if err := s.w.Handle(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
	body := cs[0].Body
	t.Logf("the reply:\n%s", body)
	for _, want := range []string{replyMarker("bench"), "old ns/op",
		"Benchmarks of `example.com/w` at `" + s.head[:12] + "` against itself (A/A: one test binary on both sides), 4 runs each, interleaved.",
		"- A/A: one binary on both sides, so every change flagged is a false alarm: ", " of 1 time row flagged ("} {
		if !strings.Contains(body, want) {
			t.Errorf("the reply lacks %q:\n%s", want, body)
		}
	}
}

// replyMarker is how the GitHub comment of a reply to command begins,
// whatever its job (ReplyKind).
func replyMarker(command string) string { return "<!-- patchbot:" + ReplyPrefix(command) }

// replyTag reports whether a Gerrit message's tag is a reply to command:
// its result, or with failed its failure.
func replyTag(tag, command string, failed bool) bool {
	return strings.HasPrefix(tag, review.Tag(ReplyPrefix(command))) && strings.HasSuffix(tag, "-failed") == failed
}
