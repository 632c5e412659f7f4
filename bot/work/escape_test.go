package work

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/internal/escape/escapetest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// hostileTest is a benchmark whose sub-benchmarks are named to act if
// echoed raw in a reply: a team mention, a link, HTML, an issue reference.
const hostileTest = `package w

import "testing"

func BenchmarkX(b *testing.B) {
	for _, name := range []string{"@org/team", "[x](https://evil.example)", "<img/src=x>", "#123"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				F()
			}
		})
	}
}
`

// checkGolden compares got with testdata/name (go test -update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant (%s):\n%s", got, golden, want)
	}
}

// TestGitHubHostileNames runs /patchbot bench on a pull request whose
// benchmarks are named to act, through the worker to the fake GitHub:
// the reply's lists and tables show the names, and rendered as GitHub
// renders it nothing in the reply mentions, links or shows HTML. The lists
// are compared with testdata/hostile-lists.github.golden; the tables'
// figures vary from run to run.
func TestGitHubHostileNames(t *testing.T) {
	benchEnv(t)
	s := newGitHub(t)
	gittest.Git(t, s.src, "checkout", "-q", "master")
	commit(t, s.src, "hostile benchmark names", map[string]string{"x_test.go": hostileTest}, false)
	gittest.Git(t, s.src, "push", "-q", s.bare, "HEAD:refs/heads/master")
	gittest.Git(t, s.src, "checkout", "-q", "-b", "pr-hostile")
	head := commit(t, s.src, "pr: F returns 2", map[string]string{"n.go": "package w\n\nconst N = 2\n"}, false)
	gittest.Git(t, s.src, "push", "-q", "-f", s.bare, "HEAD:refs/pull/1/head")
	s.fake.SetHead(1, head)

	j := s.benchJob(1, head)
	if err := s.w.Handle(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
	body := cs[0].Body
	if acts := escapetest.MarkdownActs(body); len(acts) > 0 {
		t.Errorf("in the reply, %q act:\n%s", acts, body)
	}
	lists, _, ok := strings.Cut(body, "\nBenchmarks of ")
	if !ok || !strings.Contains(lists, "No significant change:\n") {
		t.Fatalf("the reply has no lists before its tables:\n%s", body)
	}
	// The marker holds the job's identity, which the head's hash makes.
	checkGolden(t, "hostile-lists.github.golden", strings.Replace(lists, review.Marker(ReplyKind(&j.Args)), review.Marker("serve-bench-JOB"), 1))
	for _, name := range []string{"X/@\u2060org/team", "X/\\[x\\](https:\u2060//evil.example)", "X/&lt;img/src=x&gt;", "X/\\#\u2060123"} {
		if !strings.Contains(body, "| "+name) {
			t.Errorf("no table row names %q:\n%s", name, body)
		}
	}
}

// TestGitHubHelpEscapes answers "/patchbot @octocat" as serve does, from
// the decision to the comment on the fake GitHub: the reply quotes the
// reviewer's words without mentioning anyone (testdata/help-octocat.github.golden).
func TestGitHubHelpEscapes(t *testing.T) {
	s := newGitHub(t)
	trust := command.Trust{GitHubTrusted: []string{"alice"}}
	d := trust.GitHub(command.GitHubComment{Action: "created", OnPullRequest: true, Login: "alice", Body: "/patchbot @octocat"})
	pr := review.PullRequest{Owner: "owner", Repo: "repo", Number: 1}
	a, err := queue.NewJob(review.GitHubTarget(pr), review.Revision{}, d, queue.Origin{Who: "alice", Author: "alice", Message: "7", Delivery: "d1"},
		job.Request{GitHub: &job.GitHub{PullRequest: pr}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.w.Handle(context.Background(), &queue.Job{Args: *a}); err != nil {
		t.Fatal(err)
	}
	cs := s.fake.Comments()
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
	if acts := escapetest.MarkdownActs(cs[0].Body); len(acts) > 0 {
		t.Errorf("in the reply, %q act:\n%s", acts, cs[0].Body)
	}
	checkGolden(t, "help-octocat.github.golden", cs[0].Body)
}
