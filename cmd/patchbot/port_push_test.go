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
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/review"
)

// TestPortPushGerrit ports an 'hg export' patch onto a clone of the test
// Gerrit's project and pushes it for review with 'patchbot port -push',
// against the real Gerrit that scripts/gerrit-test-server starts: one new
// change, with the topic, hashtags and Change-Id of the port; the same
// command again pushes nothing and creates no second change; a push that
// fails keeps the port.
func TestPortPushGerrit(t *testing.T) {
	gs := gerrittest.Get(t)
	server, user, password, project := gs.URL, gs.User, gs.Password, gs.Project
	setGerritUser(t, gs)

	// A clone of the project's master, whose origin names the project.
	dir := t.TempDir()
	git := gittest.Open(t, dir).Git
	git("init", "-q", "-b", "master")
	git("remote", "add", "origin", server+"/a/"+project)
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	git("-c", "http.extraHeader=Authorization: Basic "+auth, "fetch", "-q", "origin", "master")
	git("reset", "-q", "--hard", "FETCH_HEAD")
	base := git("rev-parse", "HEAD")

	// A changeset of its own, so that the test can run again on the same
	// server: the Change-Id derives from the hg node.
	b := make([]byte, 20)
	rand.Read(b)
	node := hex.EncodeToString(b)
	topic := "port-push-" + node[:8]
	patch := filepath.Join(t.TempDir(), "fix.patch")
	text := strings.NewReplacer("NODE", node, "SHORT", node[:12], "FILE", "codec/fast_"+node[:8]+".go").Replace(hgExport)
	if err := os.WriteFile(patch, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	branch := "port/" + node[:12]

	runPort := func(wantCode int, args ...string) (stdout, stderr string) {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
		args = append([]string{"port", "-repo", dir}, append(args, patch)...)
		if code := run(e, args); code != wantCode {
			t.Fatalf("patchbot %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, &out, &errOut)
		}
		if strings.Contains(out.String()+errOut.String(), password) {
			t.Fatalf("patchbot %s printed the password", strings.Join(args, " "))
		}
		return out.String(), errOut.String()
	}
	changes := func() []gerrittest.Change {
		t.Helper()
		return gs.Changes(t, "topic:"+topic)
	}

	// The first push: one new change, its URL printed, with the topic,
	// hashtags and the Change-Id of the port. The project comes from origin.
	out, _ := runPort(0, "-push", "-gerrit", server, "-topic", topic, "-hashtag", "patchbot", "-hashtag", "wait-release")
	t.Logf("first port -push:\n%s", out)
	head := git("rev-parse", branch)
	id := regexp.MustCompile(`(?m)^    Change-Id: (I[0-9a-f]{40})$`).FindStringSubmatch(out)
	if id == nil || !strings.HasSuffix(git("log", "-1", "--format=%B", branch), "Change-Id: "+id[1]) {
		t.Fatalf("no Change-Id in the output, or not the branch's:\n%s", out)
	}
	wantPushed := fmt.Sprintf("\npushed %s (branch %s) to %s/a/%s as refs/for/master%%topic=%s,hashtag=patchbot,hashtag=wait-release:\n",
		head[:12], branch, server, project, topic)
	urls := regexp.MustCompile(`(?m)^    (http://\S+/c/`+regexp.QuoteMeta(project)+`/\+/(\d+)) encoding/binary: add fast path for unsigned integers \[NEW\]$`).FindAllStringSubmatch(out, -1)
	if !strings.Contains(out, wantPushed) || len(urls) != 1 {
		t.Fatalf("first port -push: want %q and one new change's URL, got:\n%s", wantPushed, out)
	}
	cs := changes()
	if len(cs) != 1 {
		t.Fatalf("after the first push, %d changes have topic %s, want 1", len(cs), topic)
	}
	c := cs[0]
	rev := c.Current()
	switch {
	case fmt.Sprint(c.Number) != urls[0][2]:
		t.Errorf("the change with the topic is %d, the printed one %s", c.Number, urls[0][1])
	case c.ChangeID != id[1] || !strings.Contains(rev.Commit.Message, "\nChange-Id: "+id[1]+"\n"):
		t.Errorf("change %d has Change-Id %s and message\n%s\nwant the port's %s", c.Number, c.ChangeID, rev.Commit.Message, id[1])
	case c.CurrentRevision != head || rev.Number != 1:
		t.Errorf("change %d is at patch set %d, %s; want 1, %s", c.Number, rev.Number, c.CurrentRevision, head)
	case c.Topic != topic || !slices.Equal(slices.Sorted(slices.Values(c.Hashtags)), []string{"patchbot", "wait-release"}):
		t.Errorf("change %d has topic %q and hashtags %q; want %q and [patchbot wait-release]", c.Number, c.Topic, c.Hashtags, topic)
	case rev.Commit.Author.Name != "Gopher" || !strings.Contains(rev.Commit.Message, "Fixes #8311.") || strings.Contains(rev.Commit.Message, "R=golang"):
		t.Errorf("change %d does not hold the ported commit: author %q, message\n%s", c.Number, rev.Commit.Author.Name, rev.Commit.Message)
	}

	// The same command again: the port is done, Gerrit has the commit.
	out, _ = runPort(0, "-push", "-gerrit", server, "-topic", topic, "-hashtag", "patchbot", "-hashtag", "wait-release")
	want := fmt.Sprintf("\nno new changes: Gerrit already has %s (branch %s)\n", head[:12], branch)
	if !strings.Contains(out, "branch "+branch+" already holds this port") || !strings.HasSuffix(out, want) || strings.Contains(out, "[NEW]") {
		t.Errorf("second port -push: want the port up to date and %q, got:\n%s", want, out)
	}
	// And with -json and -project, the two results in one object.
	out, _ = runPort(0, "-push", "-json", "-gerrit", server, "-project", project)
	var rep struct {
		Port struct {
			UpToDate bool   `json:"up_to_date"`
			Head     string `json:"head"`
		} `json:"port"`
		Push review.PushResult `json:"push"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("port -push -json: %v\n%s", err, out)
	}
	if !rep.Port.UpToDate || rep.Port.Head != head || !rep.Push.NoNewChanges || rep.Push.Commit != head || len(rep.Push.Changes) != 0 {
		t.Errorf("port -push -json again = %s, want the port up to date and no new changes for %s", out, head)
	}
	if cs := changes(); len(cs) != 1 || cs[0].CurrentRevision != head {
		t.Errorf("after pushing again, %d changes have the topic (want 1, still at %s)", len(cs), head)
	}

	// A push that fails exits 1 with one line that says the port is kept.
	_, stderr := runPort(1, "-push", "-gerrit", server, "-project", "no-such-project-"+node[:8])
	wantErr := "patchbot port: push failed: Gerrit " + server + ": push of " + head[:12] + " to refs/for/master: pushing: 403 Forbidden"
	if !strings.HasPrefix(stderr, wantErr) || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "The port itself succeeded: branch "+branch+" (at "+head[:12]+") is kept, nothing is lost; to retry, run it again") {
		t.Errorf("failed push: want one line starting %q that says the port is kept, got:\n%s", wantErr, stderr)
	}
	if got := git("rev-parse", branch); got != head {
		t.Errorf("after a failed push, branch %s is at %s, want %s", branch, got, head)
	}
	if git("rev-parse", "HEAD") != base {
		t.Errorf("the port moved HEAD")
	}
}

// hgExport is a Mercurial-era changeset, with its NODE (and the SHORT
// one) to fill in. It adds FILE, a file of its own, so it applies on
// whatever the server's master holds.
const hgExport = `# HG changeset patch
# User Gopher <gopher@golang.org>
# Date 1412345678 -19800
#      Fri Oct 03 19:44:38 2014 +0530
# Node ID NODE
# Parent  fedcba9876543210fedcba9876543210fedcba98
encoding/binary: add fast path for unsigned integers

intDataSize missed the unsigned types.

Fixes issue 8311.

LGTM=r
R=golang-codereviews, r
https://codereview.appspot.com/123456

diff -r fedcba987654 -r SHORT FILE
--- /dev/null	Thu Jan 01 00:00:00 1970 +0000
+++ b/FILE	Fri Oct 03 19:44:38 2014 +0530
@@ -0,0 +1,3 @@
+package codec
+
+// intDataSize: case int8, uint8, *int8, *uint8: return 1
`

// setGerritUser makes the test Gerrit's administrator the git identity and
// the Gerrit credentials of everything the test runs, in a home of its own.
func setGerritUser(t *testing.T, gs gerrittest.Server) {
	for k, v := range map[string]string{
		"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "Administrator", "GIT_AUTHOR_EMAIL": "admin@example.com",
		"GIT_COMMITTER_NAME": "Administrator", "GIT_COMMITTER_EMAIL": "admin@example.com",
		"PATCHBOT_GERRIT_USER": gs.User, "PATCHBOT_GERRIT_PASSWORD": gs.Password,
	} {
		t.Setenv(k, v)
	}
}
