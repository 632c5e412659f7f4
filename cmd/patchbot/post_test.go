package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// The scripts in testdata/script/post_servers talk to servers: a real
// Gerrit, started by scripts/gerrit-test-server (the scripts that need it
// skip without it), and a fake GitHub the script starts. They run apart
// from TestScripts because they need the server's environment and the
// commands below.
func TestPostServers(t *testing.T) {
	testscript.Run(t, serverScripts("testdata/script/post_servers", func(v map[any]any) { v[fakeGitHubKey{}] = new(fakeGitHubHolder) }, map[string]func(*testscript.TestScript, bool, []string){
		"newchange":  cmdNewChange,
		"fakegithub": cmdFakeGitHub,
	}))
}

// newchange pushes a new change to the test Gerrit, from a repository made
// with git in $WORK/repo, and sets $CHANGE to its number, $CHANGE_URL to
// its URL and $HEAD to the commit. 'newchange -amend' pushes a new patch
// set of the last change instead.
func cmdNewChange(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! newchange")
	}
	amend := len(args) == 1 && args[0] == "-amend"
	server, user, pw, project := ts.Getenv("PATCHBOT_TEST_GERRIT_URL"), ts.Getenv("PATCHBOT_TEST_GERRIT_USER"),
		ts.Getenv("PATCHBOT_TEST_GERRIT_PASSWORD"), ts.Getenv("PATCHBOT_TEST_GERRIT_PROJECT")
	dir := ts.MkAbs("repo")
	identity := []string{"GIT_AUTHOR_NAME=Administrator", "GIT_AUTHOR_EMAIL=admin@example.com",
		"GIT_COMMITTER_NAME=Administrator", "GIT_COMMITTER_EMAIL=admin@example.com"}
	git := func(args ...string) {
		_, err := gittest.Output(dir, identity, args...)
		ts.Check(err)
	}
	if !amend {
		ts.Check(os.MkdirAll(dir, 0o777))
		git("init", "-q", "-b", "master")
		auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + pw))
		git("-c", "http.extraHeader=Authorization: Basic "+auth, "fetch", "-q", server+"/a/"+project, "master")
		git("reset", "-q", "--hard", "FETCH_HEAD")
		b := make([]byte, 20)
		rand.Read(b)
		ts.Setenv("CHANGE_ID", "I"+hex.EncodeToString(b))
	}
	b := make([]byte, 8)
	rand.Read(b)
	ts.Check(os.WriteFile(filepath.Join(dir, "file.txt"), []byte(hex.EncodeToString(b)+"\n"), 0o666))
	git("add", "file.txt")
	commit := []string{"commit", "-q", "-m", "codec: use the fast path for unsigned integers\n\nChange-Id: " + ts.Getenv("CHANGE_ID")}
	if amend {
		commit = append(commit, "--amend")
	}
	git(commit...)

	g, err := review.NewGerrit(server, &review.GerritAuth{User: user, Password: review.Secret(pw)}, review.Options{})
	ts.Check(err)
	res, err := g.Push(context.Background(), review.PushOptions{Dir: dir, Project: project})
	ts.Check(err)
	if len(res.Changes) != 1 {
		ts.Fatalf("push listed %d changes, want 1", len(res.Changes))
	}
	url := res.Changes[0].URL
	n, err := strconv.Atoi(url[strings.LastIndex(url, "/")+1:])
	ts.Check(err)
	ts.Setenv("CHANGE", strconv.Itoa(n))
	ts.Setenv("CHANGE_URL", url)
	ts.Setenv("HEAD", res.Commit)
}

// fakegithub starts a fake GitHub of gopher/codec, with pull request 7
// open, for the rest of the script and points GITHUB_API_URL and
// GITHUB_TOKEN at it. 'fakegithub
// comments N' checks that it holds N comments; 'fakegithub body FILE'
// writes the last one's body to FILE; 'fakegithub merged REV' makes
// each first-parent commit of REV in $WORK's repository the merge of a
// pull request, the i-th (from 0) of #100+i.
func cmdFakeGitHub(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && args[0] == "comments" {
		f := ts.Value(fakeGitHubKey{}).(*fakeGitHubHolder).f
		if f == nil {
			ts.Fatalf("fakegithub comments: no fake GitHub started")
		}
		if got := strconv.Itoa(len(f.Comments())); (got == args[1]) == neg {
			ts.Fatalf("fake GitHub has %s comments, want %s%s", got, map[bool]string{true: "not "}[neg], args[1])
		}
		return
	}
	if len(args) == 2 && args[0] == "body" && !neg {
		// The last comment's body, into a file for grep and cmp.
		f := ts.Value(fakeGitHubKey{}).(*fakeGitHubHolder).f
		cs := f.Comments()
		if len(cs) == 0 {
			ts.Fatalf("fakegithub body: no comment")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(cs[len(cs)-1].Body), 0o666))
		return
	}
	if len(args) == 2 && args[0] == "merged" && !neg {
		// Each first-parent commit of the repository in $WORK came by
		// a merged pull request: the i-th, from 0, by #100+i.
		f := ts.Value(fakeGitHubKey{}).(*fakeGitHubHolder).f
		if f == nil {
			ts.Fatalf("fakegithub merged: no fake GitHub started")
		}
		out, err := gittest.Output(ts.Getenv("WORK"), nil, "rev-list", "--first-parent", "--reverse", args[1])
		ts.Check(err)
		for i, h := range strings.Fields(out) {
			f.SetPullRequest(100+i, reviewtest.PullRequest{Head: fmt.Sprintf("%040x", 100+i), MergeCommit: h, State: "closed", Merged: true})
		}
		return
	}
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakegithub [comments N | body FILE | merged REV]")
	}
	f := reviewtest.NewGitHub("gopher/codec")
	ts.Defer(f.Close)
	f.SetHead(7, fakeHead)
	ts.Setenv("GITHUB_API_URL", f.URL)
	f.AddToken(scriptToken, reviewtest.Bot)
	ts.Setenv("GITHUB_TOKEN", scriptToken)
	ts.Value(fakeGitHubKey{}).(*fakeGitHubHolder).f = f
}

// fakeHead is the head commit of the fake GitHub's pull requests that a
// test only comments on.
const fakeHead = "0b5e1c0d7a3f2e4b6c8d9e0f1a2b3c4d5e6f7a8b"

// scriptToken is the GitHub token of the scripts that start a fake GitHub,
// which signs it in as reviewtest.Bot; a script checks that no output
// shows it.
const scriptToken = "ghp_script_token_8086"

// The fake GitHub a script started is kept in its Values under this key.
type (
	fakeGitHubKey    struct{}
	fakeGitHubHolder struct{ f *reviewtest.GitHub }
)
