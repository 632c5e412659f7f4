package work

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// capturing is the queue of the parts' tests: a real one on SQLite for
// the records, which keeps the parts it is given to run here by hand
// instead of queuing them.
type capturing struct {
	*queue.Queue
	mu       sync.Mutex
	inserted []*queue.Args
}

func (c *capturing) Insert(ctx context.Context, a *queue.Args) (queue.InsertResult, error) {
	if err := a.Validate(); err != nil {
		return queue.InsertResult{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := *a
	c.inserted = append(c.inserted, &cp)
	return queue.InsertResult{ID: int64(100 + len(c.inserted))}, nil
}

// pkgTest is a package of the split's module: one benchmark of F.
func pkgTest(name string) string {
	return "package " + name + "\n\nimport (\n\t\"testing\"\n\n\tw \"example.com/w\"\n)\n\nfunc Benchmark" + strings.ToUpper(name) + "(b *testing.B) {\n\tfor b.Loop() {\n\t\tw.F()\n\t}\n}\n"
}

// TestGitHubParts: a bench job whose change affects two packages of
// three is split into a job for each; the one comment says so, then is
// edited as each part finishes, in whichever order, until it holds both
// tables; a part run again, or one that fails for good, edits it too,
// and no second comment is ever made.
func TestGitHubParts(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	ctx := context.Background()
	// Packages a and b call F, which the pull request changes (N); c
	// does not.
	files := map[string]string{"a/a_test.go": pkgTest("a"), "b/b_test.go": pkgTest("b"), "c/c_test.go": strings.ReplaceAll(strings.ReplaceAll(pkgTest("c"), "w.F()", "_ = 1"), "\n\tw \"example.com/w\"\n", "\n")}
	gittest.Git(t, s.src, "checkout", "-q", "master")
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(s.src, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, s.src, "three packages", files, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/heads/master")
	gittest.Git(t, s.src, "checkout", "-q", "-b", "pr2")
	head := commit(t, s.src, "pr: F returns 5", map[string]string{"n.go": "package w\n\nconst N = 5\n"}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/pull/2/head")
	s.fake.SetHead(2, head)

	q, err := queue.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "q.db"), &queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	parts := &capturing{Queue: q}
	s.w.Parts = parts

	whole := s.benchJob(2, head)
	whole.Args.Request.Bench.Packages = nil // what the change affects
	if err := s.w.Handle(ctx, whole); err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, a := range parts.inserted {
		pkgs = append(pkgs, a.Part.Package)
	}
	if strings.Join(pkgs, " ") != ". ./a ./b" {
		t.Fatalf("the whole queued %v, want parts ., ./a and ./b", parts.inserted)
	}
	body := func() string {
		t.Helper()
		cs := s.fake.Comments()
		if len(cs) != 1 {
			t.Fatalf("%d comments, want 1: %+v", len(cs), cs)
		}
		return cs[0].Body
	}
	if b := body(); !strings.HasPrefix(b, replyMarker("bench")) || !strings.Contains(b, "Benchmarking 3 packages, one job each") || !strings.Contains(b, "`.`, `./a`, `./b`") {
		t.Errorf("the first reply:\n%s", b)
	}
	run := func(a *queue.Args, attempt int) error {
		j := &queue.Job{ID: 7, Attempt: attempt, MaxAttempts: 5, Args: *a}
		return s.w.Handle(ctx, j)
	}
	// The last part first: the comment holds b, and says two are
	// missing; then the first.
	if err := run(parts.inserted[2], 1); err != nil {
		t.Fatal(err)
	}
	if b := body(); !strings.Contains(b, "| B-") || strings.Contains(b, "| A-") || !strings.Contains(b, "1 of 3 packages measured so far") {
		t.Errorf("after part 3 alone:\n%s", b)
	}
	if err := run(parts.inserted[0], 1); err != nil {
		t.Fatal(err)
	}
	if b := body(); !strings.Contains(b, "| F-") || !strings.Contains(b, "2 of 3 packages measured so far") {
		t.Errorf("after parts 3 and 1:\n%s", b)
	}
	if err := run(parts.inserted[1], 1); err != nil {
		t.Fatal(err)
	}
	final := body()
	t.Logf("the reply:\n%s", final)
	for _, want := range []string{"| F-", "| A-", "| B-", "unchanged: identical test binaries: ./c", "Answering /patchbot bench"} {
		if !strings.Contains(final, want) {
			t.Errorf("the final reply lacks %q:\n%s", want, final)
		}
	}
	if strings.Contains(final, "so far") || strings.Contains(final, "Benchmarking 3 packages") {
		t.Errorf("the final reply says it is not final:\n%s", final)
	}
	// A part run again (a redelivery, a rescue): one comment, both.
	if err := run(parts.inserted[0], 2); err != nil {
		t.Fatal(err)
	}
	if b := body(); !strings.Contains(b, "| A-") || !strings.Contains(b, "| B-") {
		t.Errorf("after part 1 ran again:\n%s", b)
	}
	// The whole run again: nothing queued twice matters (the queue's
	// uniqueness), and the comment keeps the results.
	if err := s.w.Handle(ctx, whole); err != nil {
		t.Fatal(err)
	}
	if b := body(); !strings.Contains(b, "| A-") || strings.Contains(b, "Benchmarking 3 packages") {
		t.Errorf("after the whole ran again:\n%s", b)
	}
	// A part that fails for good: the reply says so of its package and
	// keeps the other's table.
	bad := *parts.inserted[2]
	p := *bad.Part
	p.Bench = "^NoSuchBenchmark$"
	bad.Part = &p
	if err := run(&bad, 5); err == nil {
		t.Fatal("a part that matches no benchmark succeeded")
	} else {
		t.Logf("the failed part: %v", err)
	}
	if b := body(); !strings.Contains(b, "./b: not measured: ") || !strings.Contains(b, "| A-") || strings.Contains(b, "| B-") {
		t.Errorf("after part 3 failed:\n%s", b)
	}
	if n := s.fake.Count("POST "); n != 1 {
		t.Errorf("%d comments created, want 1", n)
	}
}

// TestGerritParts: on Gerrit, where a message is not edited, a split
// job's parts post nothing until the last is recorded; then one message
// holds every package's table, and a part run again posts nothing more.
func TestGerritParts(t *testing.T) {
	gs := gerrittest.Get(t)
	benchEnv(t)
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	b := make([]byte, 4)
	rand.Read(b)
	branch := "work-parts-" + hex.EncodeToString(b)
	auth := gs.GitAuth()
	remote := gs.URL + "/a/" + gs.Project

	src := t.TempDir()
	gittest.Git(t, src, "init", "-q", "-b", "master")
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"a/a_test.go": pkgTest("a"), "b/b_test.go": pkgTest("b")}
	for k, v := range module {
		files[k] = v
	}
	commit(t, src, "base", files, false)
	gittest.Git(t, src, "-c", auth, "push", "-q", remote, "HEAD:refs/heads/"+branch)
	changeID := "I" + hex.EncodeToString(append(b, make([]byte, 16)...))
	ps1 := commit(t, src, "w: F returns 2\n\nChange-Id: "+changeID, map[string]string{"n.go": "package w\n\nconst N = 2\n"}, false)
	gittest.Git(t, src, "-c", auth, "push", "-q", remote, "HEAD:refs/for/"+branch)
	cs := gs.Changes(t, "branch:"+branch)
	if len(cs) != 1 {
		t.Fatalf("want one change, got %+v", cs)
	}
	change := strconv.Itoa(cs[0].Number)
	u, _ := url.Parse(gs.URL)

	q, err := queue.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "q.db"), &queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	parts := &capturing{Queue: q}
	env := map[string]string{"PATCHBOT_GERRIT_USER": gs.User, "PATCHBOT_GERRIT_PASSWORD": gs.Password}
	w := &Worker{Areas: &Areas{Root: t.TempDir()}, Env: job.Env{Getenv: func(k string) string { return env[k] }}, Parts: parts}
	whole := &queue.Job{Attempt: 1, MaxAttempts: 5, Args: queue.Args{
		Review: mustTarget(t, "gerrit:"+u.Host+":"+change), Revision: review.Revision{PatchSet: 1, Commit: ps1}, Command: "bench",
		Request: job.Request{
			Steps:  []string{job.StepBench, job.StepPost},
			Branch: branch,
			Bench:  job.BenchSettings{Count: 2, Benchtime: "1x"},
			Gerrit: &job.Gerrit{Server: gs.URL, Change: change, Revision: ps1},
		},
	}}
	if err := w.Handle(ctx, whole); err != nil {
		t.Fatal(err)
	}
	if len(parts.inserted) != 3 {
		t.Fatalf("the whole queued %v, want three parts", parts.inserted)
	}
	replies := func() []string {
		var got []string
		for _, m := range gs.Messages(t, change) {
			if replyTag(m.Tag, "bench", false) || replyTag(m.Tag, "bench", true) {
				got = append(got, m.Message)
			}
		}
		return got
	}
	run := func(i int) {
		t.Helper()
		j := &queue.Job{Attempt: 1, MaxAttempts: 5, Args: *parts.inserted[i]}
		if err := w.Handle(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	run(2)
	run(0)
	if got := replies(); len(got) != 0 {
		t.Fatalf("after two of three parts, %d replies, want none yet:\n%s", len(got), strings.Join(got, "\n---\n"))
	}
	run(1)
	run(0) // a part run again
	got := replies()
	if len(got) != 1 {
		t.Fatalf("%d replies, want one:\n%s", len(got), strings.Join(got, "\n---\n"))
	}
	for _, want := range []string{"Patch Set 1:", "F-2", "A-2", "B-2", "old ns/op"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("the reply lacks %q:\n%s", want, got[0])
		}
	}
	if strings.Contains(got[0], "so far") {
		t.Errorf("the reply says it is not final:\n%s", got[0])
	}
}
