package serve_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/serve"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// trackWork is the tracked module's code: Work adds up N squares, N in
// n.go.
const trackWork = "package w\n\n// Work adds up N squares.\nfunc Work() int {\n\ts := 0\n\tfor i := range N {\n\t\ts += i * i\n\t}\n\treturn s\n}\n"

const trackWorkTest = "package w\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink = Work()\n\t}\n}\n"

// TestServeTrack runs track as a deployment does, every process a real
// one: 'patchbot sweep -only track' queues the track job of a branch
// served over HTTP (12 commits, the seventh doing sixteen times the work, each
// merged by a pull request of the fake GitHub); 'patchbot serve' records
// it and queues the bisection; that serve is killed with SIGKILL as the
// bisection starts; a new serve on the same queue rescues the job once
// its -job-timeout and margin have passed, bisects to the culprit and
// comments once on its pull request. Its /api/series and status page show
// the change point commented. About a minute and a half, mostly waiting
// for the rescue, so -short skips it.
func TestServeTrack(t *testing.T) {
	if testing.Short() {
		t.Skip("waits about a minute for the rescue")
	}
	t.Parallel()
	start := time.Now()
	root := t.TempDir()
	gitRoot, src := filepath.Join(root, "git"), filepath.Join(root, "src")
	bare := filepath.Join(gitRoot, "w.git")
	os.MkdirAll(gitRoot, 0o777)
	gittest.Git(t, root, "init", "-q", "--bare", bare)
	gittest.Git(t, root, "init", "-q", "-b", "main", src)
	var hashes []string
	for i := range 12 {
		files := map[string]string{"README": strings.Repeat("line\n", i+1)}
		msg := fmt.Sprintf("readme: line %d", i+1)
		switch i {
		case 0:
			files = map[string]string{"go.mod": "module example.com/w\n\ngo 1.26\n", "n.go": "package w\n\nconst N = 1000\n", "w.go": trackWork, "w_test.go": trackWorkTest}
			msg = "w: add"
		case 6:
			files, msg = map[string]string{"n.go": "package w\n\nconst N = 16000\n"}, "w: sixteen times the work"
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		gittest.Git(t, src, "add", "-A")
		gittest.Git(t, src, "commit", "-q", "-m", msg)
		hashes = append(hashes, gittest.Git(t, src, "rev-parse", "HEAD"))
	}
	gittest.Git(t, src, "push", "-q", bare, "main")
	gitURL, _ := serveGitHTTP(t, gitRoot)

	fake := reviewtest.NewGitHub("owner/repo")
	defer fake.Close()
	for i, h := range hashes {
		fake.SetPullRequest(10+i, reviewtest.PullRequest{Head: fmt.Sprintf("%040x", 10+i), MergeCommit: h, State: "closed", Merged: true})
	}
	const token = "ghp_serve_track_test_token"
	fake.AddToken(token, reviewtest.Bot)

	tmp := filepath.Join(root, "tmp")
	os.Mkdir(tmp, 0o777)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATCHBOT_") && !strings.HasPrefix(kv, "GITHUB_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+filepath.Join(root, "home"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CACHE_HOME="+testCacheHome,
		"GOTOOLCHAIN=local", "GOPROXY=off",
		"TMPDIR="+tmp,
		serve.EnvWebhookSecret+"=serve-track-test-secret-0123456789",
		review.EnvGitHubToken+"="+token,
		review.EnvGitHubAPIURL+"="+fake.URL,
	)
	cfgFile := filepath.Join(root, "patchbot.yaml")
	cfg := fmt.Sprintf("bench:\n  benchtime: 20ms\n  threshold: 20%%\ntrack:\n  branch: main\n  source: %s/w.git\n  count: 5\n", gitURL)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o666); err != nil {
		t.Fatal(err)
	}
	db := "sqlite:" + filepath.Join(root, "q.db")

	// The sweep queues the track job, as a scheduled one would.
	sweep := exec.Command(patchbotBin, "sweep", "-config", cfgFile, "-only", "track", "-offline", "-at", "2014-11-06", "-db", db, "-github", "owner/repo")
	sweep.Env = env
	out, err := sweep.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "queued track job 1 for 127.0.0.2:") {
		t.Fatalf("patchbot sweep: %v\n%s", err, out)
	}

	args := []string{"-config", cfgFile, "-db", db, "-listen", "127.0.0.1:0", "-workers", "1", "-unsafe-no-sandbox", "-job-timeout", "30s"}
	k1 := startServeProc(t, "serve K1", env, args...)
	k1.waitFor("the bisection job's start", 2*time.Minute, func(log string) bool {
		return strings.Contains(log, `msg="track job started"`) && strings.Contains(log, " bisect ")
	})
	k1.kill()
	killedAt := time.Now()
	if done := k1.lines(`"track job done"`); len(done) != 1 || strings.Contains(done[0], " bisect ") {
		t.Fatalf("K1's track jobs done: %q, want the record job only:\n%s", done, k1.log)
	}
	if n := len(fake.Comments()); n != 0 {
		t.Fatalf("%d comments before the bisection ended", n)
	}

	k2 := startServeProc(t, "serve K2", env, args...)
	bisected := func() bool {
		for _, l := range k2.lines(`"track job done"`) {
			if strings.Contains(l, " bisect ") && strings.Contains(l, "attempt=2") {
				return true
			}
		}
		return false
	}
	k2.waitFor("the rescued bisection done", 3*time.Minute, func(string) bool { return bisected() })
	rescued := time.Since(killedAt)
	// The record job may be rescued too: River stores a job's end in
	// batches, and K1 may have died before storing it. Run again, it
	// records nothing.
	if strings.Count(k2.log.String(), "recorded ") > 0 {
		t.Errorf("K2 recorded commits again:\n%s", k2.log)
	}
	cs := fake.Comments()
	if len(cs) != 1 || cs[0].Issue != 16 || !strings.Contains(cs[0].Body, "w: sixteen times the work") || !strings.Contains(cs[0].Body, "| Work-") {
		t.Fatalf("comments %+v, want one on #16, the culprit's pull request, with its table", cs)
	}

	resp, err := http.Get("http://" + k2.addr + "/api/series")
	if err != nil {
		t.Fatal(err)
	}
	var api struct {
		Tracks []struct {
			Track   string
			Commits []json.RawMessage
			Changes []struct{ State, Culprit, Comment string }
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&api)
	resp.Body.Close()
	if err != nil || len(api.Tracks) != 1 || len(api.Tracks[0].Commits) != 12 || len(api.Tracks[0].Changes) != 1 ||
		api.Tracks[0].Changes[0].State != "commented" || api.Tracks[0].Changes[0].Culprit != hashes[6] || api.Tracks[0].Changes[0].Comment != cs[0].HTMLURL {
		t.Errorf("/api/series: %+v, %v", api, err)
	}
	page, err := http.Get("http://" + k2.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	io.Copy(&b, page.Body)
	page.Body.Close()
	if !strings.Contains(b.String(), "<h2>Tracked branches</h2>") || !strings.Contains(b.String(), `<a href="`+cs[0].HTMLURL+`">`) {
		t.Errorf("the status page lacks the track's plot linked to the comment:\n%s", b.String())
	}
	k2.stop()
	if testing.Verbose() {
		t.Logf("K1's log:\n%s\nK2's log:\n%s", k1.log, k2.log)
	}
	t.Logf("track: %v; the bisection done %v after the kill", time.Since(start).Round(time.Millisecond), rescued.Round(time.Millisecond))
}
