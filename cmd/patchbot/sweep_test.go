package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review/reviewtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts in testdata/script/sweep_servers sweep changes of the real
// test Gerrit (they skip without it), each only its own change (-query
// change:N), and pull requests of the fake GitHub, apart from TestScripts
// for the servers' environment and their commands.
func TestSweepServers(t *testing.T) {
	testscript.Run(t, serverScripts("testdata/script/sweep_servers", func(v map[any]any) { v[fakeGitHubKey{}] = new(fakeGitHubHolder) }, map[string]func(*testscript.TestScript, bool, []string){
		"newchange": cmdNewChange,
		"fakeprs":   cmdFakePRs,
	}))
}

// fakeprs starts a fake GitHub of owner/repo for the rest of the script,
// points GITHUB_API_URL and GITHUB_TOKEN at it, and gives it two open pull
// requests, $PLAIN without labels and $WAITING labelled wait-release.
// 'fakeprs N LABELS COMMENTS' checks that pull request N has the labels
// (comma-separated, sorted; - for none) and that the fake holds COMMENTS
// comments in all.
func cmdFakePRs(ts *testscript.TestScript, neg bool, args []string) {
	h := ts.Value(fakeGitHubKey{}).(*fakeGitHubHolder)
	switch {
	case neg:
		ts.Fatalf("unsupported: ! fakeprs")
	case len(args) == 0:
		f := reviewtest.NewGitHub("owner/repo")
		ts.Defer(f.Close)
		ts.Setenv("GITHUB_API_URL", f.URL)
		f.AddToken(scriptToken, reviewtest.Bot)
		ts.Setenv("GITHUB_TOKEN", scriptToken)
		ts.Setenv("PLAIN", strconv.Itoa(f.AddPullRequest(0, "open")))
		ts.Setenv("WAITING", strconv.Itoa(f.AddPullRequest(0, "open", freeze.WaitRelease)))
		h.f = f
	case len(args) == 3 && h.f != nil:
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		got := strings.Join(h.f.IssueLabels(n), ",")
		if got == "" {
			got = "-"
		}
		if got != args[1] {
			ts.Fatalf("pull request %d has labels %s, want %s", n, got, args[1])
		}
		if c := fmt.Sprint(len(h.f.Comments())); c != args[2] {
			ts.Fatalf("fake GitHub has %s comments, want %s", c, args[2])
		}
	default:
		ts.Fatalf("usage: fakeprs [N LABELS COMMENTS]")
	}
}
