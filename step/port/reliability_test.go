package port

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/remedy"
)

// Issue 10: nothing lost, no silent drops. These tests use real git
// repositories and compare every file under .git before and after.

// shoutPatch is an 'hg export' changing line two of a.txt to text, with the
// node id node (12 hex digits, repeated).
func shoutPatch(node, text string) []byte {
	id := strings.Repeat(node, 4)[:40]
	return fmt.Appendf(nil, "# HG changeset patch\n# User Gopher <gopher@golang.org>\n# Date 1412345678 0\n# Node ID %s\n# Parent  2222222222222222222222222222222222222222\na: %s\n\n"+
		"diff -r 222222222222 -r %s a.txt\n--- a/a.txt\tThu Jan 01 00:00:00 1970 +0000\n+++ b/a.txt\tThu Jan 01 00:00:00 1970 +0000\n@@ -1,2 +1,2 @@\n one\n-two\n+%s\n",
		id, text, id[:12], text)
}

// smallRepo makes a repository whose one commit holds a.txt ("one\ntwo\n").
func smallRepo(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "a.txt"), []byte("one\ntwo\n"), 0o666)
	return gitRepoFrom(t, base)
}

// TestPortRaceLoses: a port whose branch another port creates while it
// runs fails with a *RaceError and writes nothing; the other's commit stays
// on the branch, with its reflog entry.
func TestPortRaceLoses(t *testing.T) {
	repo := smallRepo(t)
	gitDir := filepath.Join(repo, ".git")
	var before map[string]string
	var winner *Result
	first := true
	opts := &Options{Repo: repo, Branch: "b", testHook: func(step string) {
		if step != "write object" || !first {
			return
		}
		first = false
		// The loser has read the branch (absent) and is writing its
		// objects: the winner ports now, all the way.
		var err error
		winner, err = Port(context.Background(), &Options{Repo: repo, Branch: "b"}, []Input{{"win.patch", shoutPatch("aaaaaaaaaaaa", "WIN")}})
		if err != nil {
			t.Fatalf("winner: %v", err)
		}
		before = withoutQuarantine(snapshot(t, gitDir))
	}}
	_, err := Port(context.Background(), opts, []Input{{"lose.patch", shoutPatch("bbbbbbbbbbbb", "LOSE")}})
	if _, ok := errors.AsType[*RaceError](err); !ok || !strings.Contains(err.Error(), "branch b was created by another process while this port ran") {
		t.Fatalf("loser: %v; want a *RaceError", err)
	}
	sameSnapshot(t, before, snapshot(t, gitDir))
	if got := gittest.Git(t, repo, "rev-parse", "b"); got != winner.Head {
		t.Errorf("branch b at %s, want the winner's %s", got, winner.Head)
	}
	if log := gittest.Git(t, repo, "reflog", "show", "--format=%H %gs", "b"); !strings.HasPrefix(log, winner.Head+" patchbot port: a: WIN onto ") {
		t.Errorf("reflog of b:\n%s\nwant the winner's entry", log)
	}
	gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
}

// TestPortRaceSamePort: a port that finds, when it comes to set the
// branch, that another process has just set it to this same port reports
// the branch up to date, and leaves none of its own objects behind.
func TestPortRaceSamePort(t *testing.T) {
	repo := smallRepo(t)
	gitDir := filepath.Join(repo, ".git")
	var before map[string]string
	patch := shoutPatch("aaaaaaaaaaaa", "SAME")
	first := true
	opts := &Options{Repo: repo, testHook: func(step string) {
		if step != "write object" || !first {
			return
		}
		first = false
		if _, err := Port(context.Background(), &Options{Repo: repo}, []Input{{"same.patch", patch}}); err != nil {
			t.Fatalf("other: %v", err)
		}
		before = withoutQuarantine(snapshot(t, gitDir))
	}}
	res, err := Port(context.Background(), opts, []Input{{"same.patch", patch}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.UpToDate {
		t.Errorf("result not up to date: %+v", res)
	}
	sameSnapshot(t, before, snapshot(t, gitDir))
}

// withoutQuarantine returns snapshot without the quarantine of a port
// that is running: a snapshot taken while it runs holds it.
func withoutQuarantine(snapshot map[string]string) map[string]string {
	for p := range snapshot {
		if strings.Contains(p, "tmp_objdir-patchbot-") {
			delete(snapshot, p)
		}
	}
	return snapshot
}

// largePatch is one 'hg export --git' changeset changing n files of the
// repository largeRepo makes, and adding n more.
func largePatch(n int) []byte {
	var b strings.Builder
	b.WriteString("# HG changeset patch\n# User Gopher <gopher@golang.org>\n# Date 1412345678 0\n# Node ID 3333333333333333333333333333333333333333\n# Parent  2222222222222222222222222222222222222222\nall: large\n\n")
	for i := range n {
		name := fmt.Sprintf("d%02d/f%04d.txt", i%20, i)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,1 +1,1 @@\n-file %d\n+FILE %d\n", name, name, name, name, i, i)
		fmt.Fprintf(&b, "diff --git a/new/%s b/new/%s\nnew file mode 100644\n--- /dev/null\n+++ b/new/%s\n@@ -0,0 +1,1 @@\n+new %d\n", name, name, name, i)
	}
	return []byte(b.String())
}

func largeRepo(t *testing.T, n int) string {
	t.Helper()
	base := t.TempDir()
	for i := range n {
		p := filepath.Join(base, fmt.Sprintf("d%02d/f%04d.txt", i%20, i))
		os.MkdirAll(filepath.Dir(p), 0o777)
		os.WriteFile(p, fmt.Appendf(nil, "file %d\n", i), 0o666)
	}
	return gitRepoFrom(t, base)
}

// TestPortInterrupted cancels a large port at several moments: before it
// starts, while it applies, while it writes its objects (first, middle,
// last) and once the branch is locked. Each time the port says that it was
// interrupted and the repository (every file under .git, and the work
// tree) is exactly as it was; a port that is not interrupted then works.
func TestPortInterrupted(t *testing.T) {
	const n = 300
	repo := largeRepo(t, n)
	patch := largePatch(n)
	dry, err := Port(context.Background(), &Options{Repo: repo, DryRun: true}, []Input{{"large.patch", patch}})
	if err != nil {
		t.Fatal(err)
	}
	var objects int
	if _, err := fmt.Sscanf(dry.Actions[0], "would write %d new objects", &objects); err != nil {
		t.Fatalf("dry run: %v: %q", err, dry.Actions)
	}
	tests := []struct {
		step string
		at   int // cancel at the at'th time the port reaches step
	}{
		{"apply", 1},
		{"write object", 1},
		{"write object", objects / 2},
		{"write object", objects},
		{"prepared", 1},
	}
	for _, checkout := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%d/checkout=%v", tt.step, tt.at, checkout), func(t *testing.T) {
				before := snapshot(t, repo)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				seen, cancelled := 0, false
				opts := &Options{Repo: repo, Checkout: checkout, testHook: func(step string) {
					if step == tt.step {
						if seen++; seen == tt.at {
							cancel()
							cancelled = true
						}
					}
				}}
				_, err := Port(ctx, opts, []Input{{"large.patch", patch}})
				if !cancelled {
					t.Fatalf("the port never reached %s %d times (%d); err = %v", tt.step, tt.at, seen, err)
				}
				if _, ok := errors.AsType[*InterruptedError](err); !ok || !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v; want an *InterruptedError", err)
				}
				if want := "interrupted (context canceled): nothing was written, the repository is as it was"; err.Error() != want {
					t.Errorf("err = %q\nwant %q", err, want)
				}
				sameSnapshot(t, before, snapshot(t, repo))
			})
		}
	}
	res, err := Port(context.Background(), &Options{Repo: repo, Checkout: true}, []Input{{"large.patch", patch}})
	if err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, repo, "rev-parse", "HEAD"); got != res.Head {
		t.Errorf("HEAD at %s, want %s", got, res.Head)
	}
	gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
	if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("git status after -checkout:\n%s", st)
	}
}

// TestPortOptionErrors: options git or the port would refuse are
// *remedy.FieldErrors, found before anything is written.
func TestPortOptionErrors(t *testing.T) {
	repo := smallRepo(t)
	plain := []byte("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n")
	export := shoutPatch("aaaaaaaaaaaa", "X")
	tests := []struct {
		opts   Options
		patch  []byte
		option string
		want   string
	}{
		{Options{Branch: "x.lock"}, export, "port.branch", `port.branch "x.lock": not a branch name git accepts: component "x.lock" ends with '.lock'; choose another`},
		{Options{Branch: "foo."}, export, "port.branch", "ends with '.'"},
		{Options{Branch: "a/.b"}, export, "port.branch", "starts with '.'"},
		{Options{Branch: "a@{1}"}, export, "port.branch", "'@{'"},
		{Options{Branch: "HEAD"}, export, "port.branch", "HEAD is not a branch"},
		{Options{Branch: "-x"}, export, "port.branch", "starts with '-'"},
		{Options{Branch: "refs/heads/x"}, export, "port.branch", "does not start with refs/"},
		{Options{Branch: "a..b"}, export, "port.branch", "'..'"},
		{Options{Branch: "a\x01b"}, export, "port.branch", "control character"},
		{Options{Branch: "@"}, export, "port.branch", "means HEAD"},
		{Options{Branch: "a/"}, export, "port.branch", "empty component"},
		{Options{Branch: "a//b"}, export, "port.branch", "empty component"},
		{Options{BranchPrefix: "port.lock/"}, export, "port.branch_prefix", `port.branch_prefix "port.lock/": branches named like port.lock/0123456789ab are refused by git: component "port.lock" ends with '.lock'; change it in the configuration, or give {port.branch}`},
		{Options{BranchPrefix: "a..b/"}, export, "port.branch_prefix", "'..'"},
		{Options{Onto: "nosuchrev"}, export, "onto", `onto "nosuchrev": no such commit in `},
		{Options{Onto: "HEAD~5"}, export, "onto", "no such commit"},
		{Options{Author: "A\nB <a@b.example>"}, plain, "port.author", "one line"},
		{Options{Author: "Nobody"}, plain, "port.author", "want 'Name <email>'"},
		{Options{Author: "Nobody <>"}, plain, "port.author", "want 'Name <email>'"},
		{Options{Repo: "/nonexistent/dir"}, export, "repo", "no such directory"},
		{Options{Repo: os.TempDir()}, export, "repo", "not in a Git repository"},
	}
	for _, tt := range tests {
		t.Run(tt.option+"/"+tt.want, func(t *testing.T) {
			before := snapshot(t, repo)
			opts := tt.opts
			if opts.Repo == "" {
				opts.Repo = repo
			}
			_, err := Port(context.Background(), &opts, []Input{{"x.patch", tt.patch}})
			oe, ok := errors.AsType[*remedy.FieldError](err)
			if !ok || oe.Field != tt.option || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want a *remedy.FieldError for %s containing %q", err, tt.option, tt.want)
			}
			sameSnapshot(t, before, snapshot(t, repo))
		})
	}
}

// TestPortLinkedWorktree ports in a worktree made by 'git worktree add':
// the branch is in the shared refs, the objects in the shared store, and
// -checkout moves this worktree's HEAD, index and files only.
func TestPortLinkedWorktree(t *testing.T) {
	repo := smallRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "side", wt)
	res, err := Port(context.Background(), &Options{Repo: wt}, []Input{{"a.patch", shoutPatch("aaaaaaaaaaaa", "A")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repo != wt {
		t.Errorf("Repo = %s, want %s", res.Repo, wt)
	}
	if got := gittest.Git(t, repo, "rev-parse", res.Branch); got != res.Head {
		t.Errorf("main worktree sees %s at %s, want %s", res.Branch, got, res.Head)
	}
	res, err = Port(context.Background(), &Options{Repo: wt, Checkout: true, Branch: "wtb"}, []Input{{"b.patch", shoutPatch("bbbbbbbbbbbb", "B")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, wt, "symbolic-ref", "HEAD"); got != "refs/heads/wtb" {
		t.Errorf("worktree HEAD = %s, want refs/heads/wtb", got)
	}
	if got := gittest.Git(t, repo, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("main worktree HEAD = %s, want refs/heads/main", got)
	}
	if data, _ := os.ReadFile(filepath.Join(wt, "a.txt")); string(data) != "one\nB\n" {
		t.Errorf("worktree a.txt = %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(data) != "one\ntwo\n" {
		t.Errorf("main a.txt = %q", data)
	}
	if st := gittest.Git(t, wt, "status", "--porcelain"); st != "" {
		t.Errorf("worktree status:\n%s", st)
	}
	gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
}

// TestPortBare ports into a bare repository, which works without
// -checkout and is refused with it; and an empty repository gets a
// sentence saying so.
func TestPortBare(t *testing.T) {
	repo := smallRepo(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	gittest.Git(t, repo, "clone", "-q", "--bare", repo, bare)
	res, err := Port(context.Background(), &Options{Repo: bare}, []Input{{"a.patch", shoutPatch("aaaaaaaaaaaa", "A")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, bare, "rev-parse", res.Branch); got != res.Head {
		t.Errorf("%s at %s, want %s", res.Branch, got, res.Head)
	}
	if log := gittest.Git(t, bare, "reflog", "show", "--format=%gs", res.Branch); !strings.HasPrefix(log, "patchbot port: a: A onto ") {
		t.Errorf("reflog in the bare repository: %q", log)
	}
	gittest.Git(t, bare, "fsck", "--strict", "--no-dangling")

	before := snapshot(t, bare)
	_, err = Port(context.Background(), &Options{Repo: bare, Checkout: true, Branch: "c"}, []Input{{"a.patch", shoutPatch("bbbbbbbbbbbb", "B")}})
	if oe, ok := errors.AsType[*remedy.FieldError](err); !ok || oe.Field != "port.checkout" || !strings.Contains(err.Error(), "is a bare repository") {
		t.Errorf("-checkout in a bare repository: %v", err)
	}
	sameSnapshot(t, before, snapshot(t, bare))

	empty := t.TempDir()
	gittest.Git(t, empty, "init", "-q")
	before = snapshot(t, empty)
	_, err = Port(context.Background(), &Options{Repo: empty}, []Input{{"a.patch", shoutPatch("aaaaaaaaaaaa", "A")}})
	if err == nil || !strings.Contains(err.Error(), "has no commits yet; make a first commit to port onto") {
		t.Errorf("empty repository: %v", err)
	}
	sameSnapshot(t, before, snapshot(t, empty))
}

// TestCheckoutLock: a -checkout port is refused while another holds the
// work tree, before it writes anything.
func TestCheckoutLock(t *testing.T) {
	repo := smallRepo(t)
	var err2 error
	first := true
	opts := &Options{Repo: repo, Checkout: true, Branch: "one", testHook: func(step string) {
		if step == "prepared" && first {
			first = false
			before := snapshot(t, filepath.Join(repo, "a.txt"))
			_, err2 = Port(context.Background(), &Options{Repo: repo, Checkout: true, Branch: "two"}, []Input{{"b.patch", shoutPatch("bbbbbbbbbbbb", "B")}})
			sameSnapshot(t, before, snapshot(t, filepath.Join(repo, "a.txt")))
		}
	}}
	if _, err := Port(context.Background(), opts, []Input{{"a.patch", shoutPatch("aaaaaaaaaaaa", "A")}}); err != nil {
		t.Fatal(err)
	}
	if err2 == nil || !strings.Contains(err2.Error(), "{port.checkout}: another port with {port.checkout} is running in") {
		t.Errorf("second -checkout: %v", err2)
	}
	if out := gittest.Git(t, repo, "branch", "--list", "two"); out != "" {
		t.Errorf("branch two exists: %q", out)
	}
	if got := gittest.Git(t, repo, "symbolic-ref", "HEAD"); got != "refs/heads/one" {
		t.Errorf("HEAD = %s", got)
	}
}
