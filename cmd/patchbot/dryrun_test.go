package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/example"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// TestDryRunWritesNothing runs every command that writes, with -n, against
// the real Gerrit test server and a fake GitHub, and checks that nothing
// was written: on Gerrit no new change, and on the existing change no new
// message, patch set or hashtag; on GitHub only GETs; in the repository
// the same refs, reflogs and objects. Each command must also have said
// what it would do, so that the test cannot pass by doing nothing at all.
func TestDryRunWritesNothing(t *testing.T) {
	gs := gerrittest.Get(t)
	setGerritUser(t, gs)
	ctx := context.Background()

	// The example's base on a branch of the test project, and a change on
	// it: the example's patch, ported and pushed for real.
	dir := t.TempDir()
	if _, err := example.WriteBase(ctx, dir); err != nil {
		t.Fatal(err)
	}
	git := gittest.Open(t, dir).Git
	b := make([]byte, 4)
	rand.Read(b)
	branch := "dryrun-test-" + hex.EncodeToString(b)
	git("remote", "add", "origin", gs.URL+"/a/"+gs.Project)
	git("-c", gs.GitAuth(), "push", "-q", "origin", "HEAD:refs/heads/"+branch)
	files := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fix := write("fix.patch", string(example.Patch()))
	// A second patch, which applies on top of the first.
	more := write("more.patch", "codec: one more file\n\ndiff --git a/codec/dryrun.go b/codec/dryrun.go\nnew file mode 100644\n--- /dev/null\n+++ b/codec/dryrun.go\n@@ -0,0 +1 @@\n+package codec\n")
	msg := write("msg.txt", "A note.\n")
	frozen := write("frozen.yaml", fmt.Sprintf("freeze:\n  branches: [master, %s]\n  projects: [\"*\"]\n  calendar:\n    go1.99: {freeze: 2030-01-01, reopen: 2030-02-01, release: 2030-02-01}\n", branch))

	patchbot := func(args ...string) (stdout, stderr string) {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
		code := run(e, args)
		if code != 0 && code != exitFrozen {
			t.Fatalf("patchbot %s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, &out, &errOut)
		}
		return out.String(), errOut.String()
	}
	out, _ := patchbot("port", "-repo", dir, "-push", "-gerrit", gs.URL, "-for", branch, "-topic", branch, fix)
	m := regexp.MustCompile(`(?m)^    \S+/c/\S+/\+/(\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no change in the output of the real push:\n%s", out)
	}
	change := m[1]
	portBranch := regexp.MustCompile(`as branch (\S+):`).FindStringSubmatch(out)[1]
	git("checkout", "-q", portBranch) // the second patch applies on top of the first

	gh := reviewtest.NewGitHub("gopher/codec")
	defer gh.Close()
	gh.SetHead(7, fakeHead)
	t.Setenv("GITHUB_API_URL", gh.URL)
	t.Setenv("GITHUB_TOKEN", reviewtest.Token)

	// What must not change.
	type gerritState struct {
		Changes   int
		Messages  int
		PatchSets int
		Hashtags  []string
	}
	state := func() (gerritState, string) {
		t.Helper()
		var cs []map[string]any
		gs.Do(t, "GET", "/changes/?q=branch:"+branch, nil, &cs)
		var info struct {
			Hashtags  []string                  `json:"hashtags"`
			Revisions map[string]map[string]any `json:"revisions"`
		}
		gs.Do(t, "GET", "/changes/"+change+"?o=ALL_REVISIONS", nil, &info)
		slices.Sort(info.Hashtags)
		st := gerritState{Changes: len(cs), Messages: len(gs.Messages(t, change)), PatchSets: len(info.Revisions), Hashtags: info.Hashtags}
		var files []string
		filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, "/index") {
				data, _ := os.ReadFile(p)
				files = append(files, fmt.Sprintf("%s %x", p, data))
			}
			return nil
		})
		return st, strings.Join(files, "\n")
	}
	beforeGerrit, beforeRepo := state()

	const bench = "-bench=" + job.ExampleBench
	db := "sqlite:" + filepath.Join(files, "q.db")
	for _, tt := range []struct {
		args []string
		want string // what it says it would do
	}{
		{[]string{"port", "-n", "-repo", dir, more}, "would port 1 changeset onto "},
		{[]string{"port", "-n", "-repo", dir, "-push", "-gerrit", gs.URL, "-for", branch, more}, "dry run: would push "},
		{[]string{"freeze", "-offline", "-config", frozen, "-branch", branch, "-at", "2030-01-15", "-gerrit", gs.URL, "-change", change, "-apply", "-n"}, "would add [wait-release]"},
		{[]string{"sweep", "-n", "-offline", "-config", frozen, "-for", branch, "-at", "2030-01-15", "-gerrit", gs.URL, "-query", "change:" + change}, "freeze: change " + change + ": would post the freeze message, add wait-release"},
		{[]string{"post", "-n", "-gerrit", gs.URL, "-change", change, msg}, "gerrit: would post the note message on "},
		{[]string{"post", "-n", "-github", "gopher/codec#7", msg}, "github: would create a note comment on gopher/codec#7"},
		{[]string{"run", "-n", "-repo", dir, "-config", frozen, "-for", branch, "-at", "2030-01-15", "-count", "2", "-benchtime", "1x", bench, "-push", "-gerrit", gs.URL, more}, "dry run: would push "},
		{[]string{"run", "-n", "-repo", dir, "-config", frozen, "-for", branch, "-at", "2030-01-15", "-count", "2", "-benchtime", "1x", bench, "-change", change, "-gerrit", gs.URL, more}, "gerrit: would post the run message on "},
		{[]string{"run", "-n", "-repo", dir, "-count", "2", "-benchtime", "1x", bench, "-github", "gopher/codec#7", more}, "github: would create a run comment on gopher/codec#7"},
		{[]string{"track", "-n", "-repo", dir, "-db", db, "-name", "t", "-github", "gopher/codec", "-max", "2"}, "t: would record 2 commits"},
	} {
		out, errOut := patchbot(tt.args...)
		if !strings.Contains(out+errOut, tt.want) {
			t.Errorf("patchbot %s: output lacks %q:\n%s\n%s", strings.Join(tt.args, " "), tt.want, out, errOut)
		}
		g, r := state()
		if fmt.Sprint(g) != fmt.Sprint(beforeGerrit) {
			t.Errorf("patchbot %s changed Gerrit: %+v, was %+v", strings.Join(tt.args, " "), g, beforeGerrit)
		}
		if r != beforeRepo {
			t.Errorf("patchbot %s changed the repository", strings.Join(tt.args, " "))
		}
	}
	if out, _ := patchbot("track", "-show", "-repo", dir, "-db", db, "-name", "t"); out != "t: nothing recorded yet\n" {
		t.Errorf("after track's dry runs, track -show says:\n%s\nwant nothing recorded", out)
	}
	if _, err := os.Stat(filepath.Join(files, "q.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("track's dry runs and -show made the database file (%v)", err)
	}
	for _, r := range gh.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a dry run sent GitHub %s", r)
		}
	}
	if len(gh.Requests()) == 0 {
		t.Errorf("the dry runs asked GitHub nothing: the test checks nothing there")
	}
}
