package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/serve"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/testenv"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// A syncBuffer is a bytes.Buffer safe for the command's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// serveGitHTTP serves the bare repositories under root over git's smart
// HTTP protocol (git http-backend, as a CGI program) on 127.0.0.2, a
// loopback address that is not the fake GitHub's, and returns its URL and
// the number of requests it has answered.
func serveGitHTTP(t *testing.T, root string) (string, func() int64) {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listening on another loopback address: %v", err)
	}
	backend := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull},
	}
	var n atomic.Int64
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		backend.ServeHTTP(w, r)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, n.Load
}

// TestServeGitHub runs 'patchbot serve' against the fake GitHub, served as
// GitHub Enterprise serves its API (under /api/v3/), with the repository's
// git on another host (the pull request's clone URL: git's HTTP server on
// another loopback address), for a pull request into main, GitHub's default branch, which
// the freeze does not know (a bench asks it nothing): one signed delivery of
// /patchbot bench on a pull request gives one comment with the table; the
// same delivery again, still one; /api/jobs and the status page show the
// comment's link, the table and a plot; SIGTERM stops it, exit 0.
func TestServeGitHub(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	src, gh := filepath.Join(root, "src"), filepath.Join(root, "gh")
	bare := filepath.Join(gh, "owner", "repo")
	for _, d := range []string{src, bare} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"go.mod":    "module example.com/w\n\ngo 1.22\n",
		"w.go":      "package w\n\nfunc F() int { return N }\n",
		"n.go":      "package w\n\nconst N = 1\n",
		"w_test.go": "package w\n\nimport \"testing\"\n\nfunc BenchmarkF(b *testing.B) {\n\tfor b.Loop() {\n\t\tF()\n\t}\n}\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, bare, "init", "-q", "--bare")
	gittest.Git(t, src, "init", "-q", "-b", "main")
	gittest.Git(t, src, "add", "-A")
	gittest.Git(t, src, "commit", "-q", "-m", "base")
	gittest.Git(t, src, "push", "-q", bare, "HEAD:refs/heads/main")
	if err := os.WriteFile(filepath.Join(src, "n.go"), []byte("package w\n\nconst N = 2\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, src, "commit", "-q", "-am", "w: N is 2")
	head := gittest.Git(t, src, "rev-parse", "HEAD")
	gittest.Git(t, src, "push", "-q", bare, "HEAD:refs/pull/1/head")

	fake := reviewtest.NewGitHub("owner/repo")
	t.Cleanup(fake.Close)
	fake.SetPullRequest(1, reviewtest.PullRequest{Head: head, Base: "main"})
	fake.SetPermission("gopher", "write")

	secret := "serve-test-secret-0123456789"
	env := serveEnv(map[string]string{
		"HOME":           filepath.Join(root, "home"),
		"XDG_STATE_HOME": filepath.Join(root, "state"),
		// The sandbox's build cache, shared by the tests as the
		// scripts share it (scriptSetup): filled, it saves a build of
		// the standard library per test.
		"XDG_CACHE_HOME":           testCacheHome,
		serve.EnvWebhookSecret:     secret,
		review.EnvGitHubToken:      reviewtest.Token,
		review.EnvGitHubAPIURL:     fake.URL,
		"PATCHBOT_GERRIT_PASSWORD": "",
	})
	// The repository's git is on another host than the API, as
	// GitHub Enterprise's or a mirror's may be: git's own smart HTTP
	// server (git http-backend) on another loopback address.
	gitURL, gitRequests := serveGitHTTP(t, gh)
	fake.SetCloneURL(gitURL + "/owner/repo")
	cfgFile := filepath.Join(root, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("run:\n  count: 2\n  benchtime: 1x\n"), 0o666); err != nil {
		t.Fatal(err)
	}

	var stderr syncBuffer
	cmd := exec.Command(patchbotBin, "serve", "-unsafe-no-sandbox", "-config", cfgFile, "-listen", "127.0.0.1:0", "-db", "sqlite:"+filepath.Join(root, "q.db"), "-work", filepath.Join(root, "work"))
	cmd.Env = env
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	code := make(chan int, 1)
	go func() {
		cmd.Wait()
		code <- cmd.ProcessState.ExitCode()
	}()
	addrRE := regexp.MustCompile(`msg=serving addr=(\S+)`)
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == ""; {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case c := <-code:
			t.Fatalf("serve exited %d before serving:\n%s", c, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve hung: it did not start serving within a minute:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	now := time.Now().UTC().Format(time.RFC3339)
	user := map[string]any{"login": "gopher", "type": "User"}
	body, _ := json.Marshal(map[string]any{
		"action": "created",
		"issue":  map[string]any{"number": 1, "pull_request": map[string]any{"url": fake.URL + "/repos/owner/repo/pulls/1"}},
		"comment": map[string]any{"id": 4242, "body": "Looks right.\n\n/patchbot bench ./...", "user": user,
			"created_at": now, "updated_at": now},
		"repository": map[string]any{"full_name": "owner/repo", "name": "repo"},
		"sender":     user,
	})
	deliver := func() string {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+"/webhook/github", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "issue_comment")
		req.Header.Set("X-GitHub-Delivery", "delivery-1")
		req.Header.Set("X-Hub-Signature-256", serve.Sign([]byte(secret), body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(text)))
	}
	if got := deliver(); !strings.HasPrefix(got, "202 queued job") {
		t.Fatalf("delivery: %s\n%s", got, stderr.String())
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		// Two minutes, against a hang: with an empty sandbox cache, the
		// first job builds the standard library, on a machine that may
		// be busy.
		for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("hung: %s never came within two minutes\n%s", what, stderr.String())
			}
		}
	}
	waitFor("the job", func() bool { return strings.Contains(stderr.String(), "msg=\"job done\"") })
	if gitRequests() == 0 {
		t.Errorf("the job fetched nothing from the clone URL's host")
	}
	cs := fake.Comments()
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "<!-- patchbot:serve-bench-") || !strings.Contains(cs[0].Body, "ns/op") || !strings.Contains(cs[0].Body, "F") {
		t.Fatalf("want one serve-bench comment with the table, got %+v\n%s", cs, stderr.String())
	}
	// With bubblewrap here (scripts/test installs it), the benchmarks ran
	// in the sandbox, -unsafe-no-sandbox notwithstanding, and the reply
	// says so.
	if _, err := exec.LookPath("bwrap"); testenv.Have(t, testenv.Sandbox, err) && !strings.Contains(cs[0].Body, "sandboxed: bubblewrap") {
		t.Errorf("the reply does not say the benchmarks ran sandboxed:\n%s", cs[0].Body)
	}

	// The status endpoints show what the job left, once the queue has
	// it as completed: the comment's link, the table and a plot.
	getStatus := func(path string) string {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, text)
		}
		return string(text)
	}
	var jobs []serve.APIJob
	waitFor("the job completed", func() bool {
		jobs = nil
		return json.Unmarshal([]byte(getStatus("/api/jobs")), &jobs) == nil && len(jobs) == 1 && jobs[0].State == "completed"
	})
	if jobs[0].ResultURL != cs[0].HTMLURL || cs[0].HTMLURL == "" {
		t.Errorf("/api/jobs: result_url %q; want the comment's %q", jobs[0].ResultURL, cs[0].HTMLURL)
	}
	page := getStatus("/")
	for _, re := range []string{
		`<a href="` + regexp.QuoteMeta(cs[0].HTMLURL) + `">reply</a>`,
		`<pre>[^<]*BenchmarkF(-\d+)?\s`,                    // the benchcmp table
		`<svg [^>]*>.*<text x="0" y="\d+">F(-\d+)?</text>`, // the plot, with the benchmark's name
	} {
		if !regexp.MustCompile(re).MatchString(page) {
			t.Errorf("GET / does not match %s:\n%s", re, page)
		}
	}

	if got := deliver(); !strings.HasPrefix(got, "200 redelivery") {
		t.Errorf("the same delivery again: %s", got)
	}
	if n := len(fake.Comments()); n != 1 {
		t.Errorf("after the redelivery, %d comments, want 1", n)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("serve exited %d, want 0:\n%s", c, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("serve hung: it did not stop within a minute of SIGTERM:\n%s", stderr.String())
	}
	log := stderr.String()
	for _, s := range []string{secret, reviewtest.Token, "Looks right."} {
		if strings.Contains(log, s) {
			t.Errorf("the log holds %q:\n%s", s, log)
		}
	}
	if !strings.Contains(log, "msg=stopped") {
		t.Errorf("no stop line:\n%s", log)
	}
	if testing.Verbose() {
		t.Logf("log:\n%s", log)
	}
}
