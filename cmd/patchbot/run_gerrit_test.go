package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/build/gerrit"

	"github.com/patchbot/patchbot/internal/example"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/workflow/review"
	pipeline "github.com/patchbot/patchbot/workflow/run"
)

// TestRunGerrit runs the whole job against the real Gerrit that
// scripts/gerrit-test-server starts: the example's base is pushed to a
// branch of the test project, and 'patchbot run -push' ports the example's
// Mercurial patch onto a clone of it, pushes it for review, benchmarks it
// (briefly) and posts the message, with the freeze forced to frozen by a
// calendar window in a -config file. Then the same command again: the same
// change, no new patch set, no second message.
func TestRunGerrit(t *testing.T) {
	gs := gerrittest.Get(t)
	server, user, password, project := gs.URL, gs.User, gs.Password, gs.Project
	setGerritUser(t, gs)
	ctx := context.Background()

	// The example's base, pushed to a branch of its own, so that the
	// test can run again on the same server: the example's Change-Id is
	// fixed, and Gerrit keys changes by project, branch and Change-Id.
	dir := t.TempDir()
	base, err := example.WriteBase(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	b := make([]byte, 4)
	rand.Read(b)
	branch := "run-test-" + hex.EncodeToString(b)
	git("remote", "add", "origin", server+"/a/"+project)
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	git("-c", "http.extraHeader=Authorization: Basic "+auth, "push", "-q", "origin", "HEAD:refs/heads/"+branch)

	// The freeze, forced by the calendar: a window around -at, and the
	// branch among those the freeze applies to.
	cfg := filepath.Join(t.TempDir(), "frozen.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`freeze:
  branches: [master, %s]
  calendar:
    go1.99: {freeze: 2030-01-01, reopen: 2030-02-01, release: 2030-02-01}
`, branch)), 0o666); err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(t.TempDir(), "codec-unsigned-fastpath.hg.patch")
	if err := os.WriteFile(patch, example.Patch(), 0o666); err != nil {
		t.Fatal(err)
	}
	topic := branch
	args := []string{"run", "-repo", dir, "-push", "-gerrit", server, "-for", branch, "-topic", topic,
		"-config", cfg, "-at", "2030-01-15", "-count", "6", "-benchtime", "100x", "-bench", pipeline.ExampleBench, patch}
	runRun := func(extra ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
		a := append(append([]string{"run"}, extra...), args[1:]...)
		if code := run(e, a); code != 0 {
			t.Fatalf("patchbot %s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(a, " "), code, &out, &errOut)
		}
		if strings.Contains(out.String()+errOut.String(), password) {
			t.Fatalf("patchbot %s printed the password", strings.Join(a, " "))
		}
		return out.String()
	}
	client := gerrit.NewClient(server, gerrit.BasicAuth(user, password))
	changes := func() []*gerrit.ChangeInfo {
		t.Helper()
		cs, err := client.QueryChanges(ctx, "topic:"+topic, gerrit.QueryChangesOpt{Fields: []string{"CURRENT_REVISION", "MESSAGES"}})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	tagged := func(c *gerrit.ChangeInfo, kind string) []string {
		var msgs []string
		for _, m := range c.Messages {
			if m.Tag == review.Tag(kind) {
				msgs = append(msgs, m.Message)
			}
		}
		return msgs
	}

	// A dry run first: the push and the post are shown, nothing is done.
	out := runRun("-n")
	if !strings.Contains(out, "\n== post\ndry run: would push ") ||
		!strings.Contains(out, "\ndry run: nothing was pushed, so there is no change to post to; the message it would post:\n") {
		t.Errorf("dry run: want the push and the message shown, got:\n%s", out)
	}
	if cs := changes(); len(cs) != 0 {
		t.Fatalf("after a dry run, %d changes have the topic, want none", len(cs))
	}

	// The first run: a new change, tagged wait-release, with one message
	// holding the table.
	out = runRun()
	t.Logf("first run:\n%s", out)
	id := regexp.MustCompile(`(?m)^    Change-Id: (I[0-9a-f]{40})$`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no Change-Id in the output:\n%s", out)
	}
	for _, want := range []string{
		"\n== freeze\n" + branch + ": The tree is frozen for Go 1.99 since 2030-01-01 (calendar); it is expected to reopen around 2030-02-01.\n",
		"\n== post\npushed ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("first run: output lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^    http://\S+/c/`+regexp.QuoteMeta(project)+`/\+/\d+ codec: check for unsigned integers in fastSize \[NEW\]$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^gerrit: posted the run message on http://\S+ \(patch set 1\)$`).MatchString(out) ||
		!strings.Contains(out, "set hashtags on "+project+"~"+branch+"~"+id[1]+": add wait-release") {
		t.Errorf("first run: want a new change, the hashtag and the message posted, got:\n%s", out)
	}
	cs := changes()
	if len(cs) != 1 {
		t.Fatalf("after the first run, %d changes have topic %s, want 1", len(cs), topic)
	}
	c := cs[0]
	head := c.CurrentRevision
	if c.ChangeID != id[1] || c.Branch != branch || c.Revisions[head].PatchSetNumber != 1 {
		t.Errorf("change %d: Change-Id %s, branch %s, patch set %d; want %s, %s, 1", c.ChangeNumber, c.ChangeID, c.Branch, c.Revisions[head].PatchSetNumber, id[1], branch)
	}
	if !slices.Contains(c.Hashtags, "wait-release") {
		t.Errorf("change %d has hashtags %q, want wait-release", c.ChangeNumber, c.Hashtags)
	}
	msgs := tagged(c, "run")
	if len(msgs) != 1 || !strings.Contains(msgs[0], "\nFreeze: The tree is frozen for Go 1.99") ||
		!regexp.MustCompile(`(?m)^  WriteInts/impl=codec-\d+ +\S+ ± \d+% +\S+ ± \d+% +`).MatchString(msgs[0]) ||
		!regexp.MustCompile(`(?m)^  ReadInts/impl=codec-\d+ `).MatchString(msgs[0]) {
		t.Errorf("change %d has %d messages tagged %s, want one with the freeze and the table:\n%s", c.ChangeNumber, len(msgs), review.Tag("run"), strings.Join(msgs, "\n---\n"))
	}
	if n := len(tagged(c, "freeze")); n != 1 {
		t.Errorf("change %d has %d freeze messages, want 1", c.ChangeNumber, n)
	}
	if got := git("rev-parse", "HEAD"); got != base {
		t.Errorf("the run moved HEAD to %s", got)
	}

	// The same command again: the same change, no new patch set, and no
	// message posted twice, although the benchmarks' figures differ.
	out = runRun()
	t.Logf("second run:\n%s", out)
	if !strings.Contains(out, "\n== post\nno new changes: Gerrit already has "+head[:12]+"\n") ||
		!regexp.MustCompile(`(?m)^gerrit: the run message is already on http://\S+ \(patch set 1\); not posted again$`).MatchString(out) ||
		strings.Contains(out, "set hashtags") {
		t.Errorf("second run: want no new changes and nothing posted, got:\n%s", out)
	}
	// And as JSON, the record of the four steps says the same.
	var rec struct {
		Port struct {
			UpToDate bool `json:"up_to_date"`
		} `json:"port"`
		Freeze struct{ Frozen bool }  `json:"freeze"`
		Bench  struct{ Tables []any } `json:"bench"`
		Post   struct {
			Push  review.PushResult    `json:"push"`
			Posts []*review.PostResult `json:"posts"`
		} `json:"post"`
		Error any `json:"error"`
	}
	out = runRun("-json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("run -json: %v\n%s", err, out)
	}
	if !rec.Port.UpToDate || !rec.Freeze.Frozen || len(rec.Bench.Tables) == 0 || !rec.Post.Push.NoNewChanges ||
		len(rec.Post.Posts) != 1 || rec.Post.Posts[0].Action != review.AlreadyPosted || rec.Error != nil {
		t.Errorf("run -json again: got %s", out)
	}
	cs = changes()
	if len(cs) != 1 || cs[0].ChangeID != id[1] || cs[0].CurrentRevision != head {
		t.Fatalf("after running again, %d changes have the topic; want 1, still %s at %s", len(cs), id[1], head)
	}
	if n, f := len(tagged(cs[0], "run")), len(tagged(cs[0], "freeze")); n != 1 || f != 1 {
		t.Errorf("after running again, change %d has %d run and %d freeze messages, want 1 and 1", cs[0].ChangeNumber, n, f)
	}
}
