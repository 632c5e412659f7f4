package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/serve"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/pgtest"
	"github.com/patchbot/patchbot/internal/testenv"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// The tests in this file run 'patchbot serve' in-process, as
// TestServeGitHub does (TestServeLoad also as several processes on one
// PostgreSQL, startLoadProcs), and talk to it only as GitHub would: signed
// deliveries over loopback to its HTTP server, a fake GitHub API
// (reviewtest) that its reads and its workers' replies go to, and a
// directory of bare repositories as GitHub's git. They break the fake
// GitHub's answers (faults) and check that in the end every pull request
// has exactly one reply of each kind, the queue exactly the right jobs.

// A serveFixture is a running 'patchbot serve' and the fakes around it.
type serveFixture struct {
	tb     testing.TB
	addr   string // host:port of the command's HTTP server
	fake   *reviewtest.GitHub
	faults *faults
	stderr *syncBuffer
	secret []byte
	db     string   // the queue's -db URL
	args   []string // the command line, but -work
	// env is the command's environment: this process's, with the
	// fixture's home, state, cache and credentials. The test process's
	// own is left alone, so that tests can run in parallel.
	env []string
	// wrap, when set, is the command line the command runs under
	// (bwrap and its options, ending in "--").
	wrap   []string
	gh     string // the directory of bare repositories: GitHub's git (the fake's clone URLs)
	head   string // every pull request's head commit in the bare repository
	client *http.Client
	code   chan int
	cancel func() // SIGTERM
	pid    int    // the command's process
	done   bool
}

// serveSecret and serveToken are the fixture's credentials: the log must
// hold neither. The token is the fake GitHub's, of patchbot's user.
const (
	serveSecret = "serve-fault-secret-0123456789"
	serveToken  = reviewtest.Token
)

// serveTestConfig keeps the review client's retries short, so that a fault
// that outlasts them is left to the queue's retry (River's first is about
// a second later) and the tests stay fast: two attempts, 10 ms apart, and
// no wait for a server that asks for more than 200 ms.
const serveTestConfig = `review:
  attempts: 2
  backoff: 10ms
  max_wait: 200ms
  timeout: 5s
`

// serveEnv returns this process's environment with vars set in it (an
// empty value set empty), for a command the test starts.
func serveEnv(vars map[string]string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := vars[k]
		return ok
	})
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// startServe starts 'patchbot serve' with the given number of workers on
// a free loopback port, with a temporary queue and work directory, the fake
// GitHub of owner/repo (gopher may write; anyone else may not; patchbot
// signs in as reviewtest.Bot) and a bare repository owner/repo whose pull
// requests prs, open on the fake, are at one commit. It stops when the
// test ends, if stop was not called.
func startServe(tb testing.TB, workers int, prs ...int) *serveFixture {
	tb.Helper()
	return startServeOn(tb, "", workers, prs...)
}

// startServeOn is startServe with the queue at the -db URL db; "" is a
// temporary SQLite file.
func startServeOn(tb testing.TB, db string, workers int, prs ...int) *serveFixture {
	tb.Helper()
	root := tb.TempDir()
	if db == "" {
		db = "sqlite:" + filepath.Join(root, "q.db")
	}
	src, gh := filepath.Join(root, "src"), filepath.Join(root, "gh")
	bare := filepath.Join(gh, "owner", "repo")
	for _, d := range []string{src, bare} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			tb.Fatal(err)
		}
	}
	git := func(dir string, args ...string) string {
		tb.Helper()
		return gittest.Git(tb, dir, args...)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.com/w\n\ngo 1.22\n"), 0o666); err != nil {
		tb.Fatal(err)
	}
	git(bare, "init", "-q", "--bare")
	git(src, "init", "-q", "-b", "master")
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "base")
	git(src, "push", "-q", bare, "HEAD:refs/heads/master")
	if err := os.WriteFile(filepath.Join(src, "w.go"), []byte("package w\n"), 0o666); err != nil {
		tb.Fatal(err)
	}
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "w: a package")
	head := git(src, "rev-parse", "HEAD")
	refs := []string{"-q", bare}
	for _, n := range prs {
		refs = append(refs, fmt.Sprintf("HEAD:refs/pull/%d/head", n))
	}
	if len(prs) > 0 {
		git(src, append([]string{"push"}, refs...)...)
	}

	f := &serveFixture{tb: tb, fake: reviewtest.NewGitHub("owner/repo"), faults: &faults{}, stderr: &syncBuffer{},
		secret: []byte(serveSecret), db: db, gh: gh, head: head, code: make(chan int, 1),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}} // against a hang
	tb.Cleanup(f.fake.Close)
	f.fake.SetFault(f.faults.serve(f.fake))
	f.fake.SetPermission("gopher", "write")
	f.openPRs(prs...)

	f.env = serveEnv(map[string]string{
		"HOME":           filepath.Join(root, "home"),
		"XDG_STATE_HOME": filepath.Join(root, "state"),
		// The sandbox's build cache, shared by the tests as the
		// scripts share it (scriptSetup).
		"XDG_CACHE_HOME":           testCacheHome,
		serve.EnvWebhookSecret:     serveSecret,
		review.EnvGitHubToken:      serveToken,
		review.EnvGitHubAPIURL:     f.fake.URL,
		"PATCHBOT_GERRIT_PASSWORD": "",
	})
	f.fake.SetCloneURL(bare)
	cfgFile := filepath.Join(root, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte(serveTestConfig), 0o666); err != nil {
		tb.Fatal(err)
	}

	f.args = []string{"serve", "-config", cfgFile, "-listen", "127.0.0.1:0", "-db", f.db,
		"-workers", fmt.Sprint(workers), "-reply-workers", fmt.Sprint(workers)}
	if workers > 0 {
		f.args = append(f.args, "-unsafe-no-sandbox")
	}
	f.start()
	return f
}

// openPRs opens pull requests ns on the fake GitHub, at f.head, without
// pushing them to the bare repository: enough for the jobs that only
// reply, as GitHub takes a comment only on a pull request it has.
func (f *serveFixture) openPRs(ns ...int) {
	for _, n := range ns {
		f.fake.SetHead(n, f.head)
	}
}

// start runs the command with f's arguments and a work directory of its
// own, and waits until it serves.
func (f *serveFixture) start() {
	tb := f.tb
	tb.Helper()
	args := append(slices.Clone(f.wrap), patchbotBin)
	args = append(args, f.args...)
	cmd := exec.Command(args[0], append(args[1:], "-work", tb.TempDir())...)
	cmd.Env = f.env
	cmd.Stderr = f.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	f.cancel = func() { cmd.Process.Signal(syscall.SIGTERM) }
	f.pid = cmd.Process.Pid
	if len(f.wrap) > 0 {
		// bwrap runs the command as its child, and does not pass
		// signals on: the command is the child, signalled itself.
		f.pid = childOf(tb, cmd.Process.Pid)
		f.cancel = func() { syscall.Kill(f.pid, syscall.SIGTERM) }
	}
	go func() {
		cmd.Wait()
		f.code <- cmd.ProcessState.ExitCode()
	}()
	tb.Cleanup(func() {
		if !f.done {
			f.stop()
		}
	})
	addrRE := regexp.MustCompile(`msg=serving addr=(\S+)`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(f.stderr.String()); m != nil {
			f.addr = m[1]
			break
		}
		select {
		case c := <-f.code:
			f.done = true
			tb.Fatalf("serve exited %d before serving:\n%s", c, f.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("serve hung: it did not start serving within a minute:\n%s", f.stderr.String())
		}
	}
}

// stop stops the command with SIGTERM and checks that it exits 0 and
// that its log holds no credential.
func (f *serveFixture) stop() {
	f.tb.Helper()
	f.done = true
	f.cancel()
	f.client.CloseIdleConnections()
	select {
	case c := <-f.code:
		if c != 0 {
			f.tb.Errorf("serve exited %d, want 0:\n%s", c, f.stderr.String())
		}
	case <-time.After(90 * time.Second):
		f.tb.Fatalf("serve hung: it did not stop within 90 s of SIGTERM:\n%s", f.stderr.String())
	}
	wantNoCredentials(f.tb, "serve", f.stderr.String())
	if s := f.fake.Stray(); len(s) > 0 {
		f.tb.Errorf("requests outside the API prefix: %v", s)
	}
}

// wantNoCredentials checks that the log of a serve on a fixture's fake
// GitHub (startServeOn's environment) holds neither the webhook secret nor
// the token, nor a signature.
func wantNoCredentials(tb testing.TB, name, log string) {
	tb.Helper()
	for _, s := range []string{serveSecret, serveToken, "sha256="} {
		if strings.Contains(log, s) {
			tb.Errorf("%s's log holds %q", name, s)
		}
	}
}

// A ghComment is a pull-request comment that a delivery announces.
type ghComment struct {
	pr    int
	id    int64
	login string
	body  string
	at    time.Time // when it was written; zero: now
}

// payload is the issue_comment event of c.
func (c ghComment) payload() []byte {
	if c.at.IsZero() {
		c.at = time.Now()
	}
	now := c.at.UTC().Format(time.RFC3339)
	user := map[string]any{"login": c.login, "type": "User"}
	body, _ := json.Marshal(map[string]any{
		"action": "created",
		"issue":  map[string]any{"number": c.pr, "pull_request": map[string]any{"url": fmt.Sprintf("https://api.github.example/repos/owner/repo/pulls/%d", c.pr)}},
		"comment": map[string]any{"id": c.id, "body": c.body, "user": user,
			"created_at": now, "updated_at": now},
		"repository": map[string]any{"full_name": "owner/repo", "name": "repo"},
		"sender":     user,
	})
	return body
}

// A delivery is one POST to the webhook, kept so that it can be sent again
// (a redelivery keeps its X-GitHub-Delivery and its body).
type delivery struct {
	id, event   string
	body        []byte
	sig         string
	contentType string // "": application/json
}

// signedDelivery is GitHub's delivery of c's event, signed with the secret.
func signedDelivery(id string, c ghComment) delivery {
	body := c.payload()
	return delivery{id: id, event: "issue_comment", body: body, sig: serve.Sign([]byte(serveSecret), body)}
}

// post sends d to the command and returns the status and the one-line
// answer.
func (f *serveFixture) post(d delivery) (int, string, error) {
	return f.postTo(f.addr, d)
}

// postTo is post to the webhook of the serve at addr (host:port), another
// process on f's queue and fake GitHub, with f's client.
func (f *serveFixture) postTo(addr string, d delivery) (int, string, error) {
	req, err := http.NewRequest("POST", "http://"+addr+"/webhook/github", bytes.NewReader(d.body))
	if err != nil {
		return 0, "", err
	}
	ct := d.contentType
	if ct == "" {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-GitHub-Event", d.event)
	req.Header.Set("X-GitHub-Delivery", d.id)
	if d.sig != "" {
		req.Header.Set("X-Hub-Signature-256", d.sig)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text)), err
}

// deliver sends d and fails the test unless the answer has the status and
// starts with prefix; it returns the answer's text.
func (f *serveFixture) deliver(d delivery, status int, prefix string) string {
	f.tb.Helper()
	got, text, err := f.post(d)
	if err != nil {
		f.tb.Fatalf("delivery %s: %v", d.id, err)
	}
	if got != status || !strings.HasPrefix(text, prefix) {
		f.tb.Fatalf("delivery %s: %d %q; want %d %q...\n%s", d.id, got, text, status, prefix, f.stderr.String())
	}
	return text
}

// apiJob is a job as GET /api/jobs shows it.
type apiJob struct {
	queue.JobInfo
	ResultURL string `json:"result_url"`
}

func (j apiJob) identity() string {
	return fmt.Sprintf("%s %s @ %s", j.Command, j.Review, j.Revision)
}

// jobs returns the command's GET /api/jobs?limit=1000, newest first.
func (f *serveFixture) jobs() []apiJob {
	f.tb.Helper()
	resp, err := f.client.Get("http://" + f.addr + "/api/jobs?limit=1000")
	if err != nil {
		f.tb.Fatal(err)
	}
	defer resp.Body.Close()
	var js []apiJob
	if err := json.NewDecoder(resp.Body).Decode(&js); err != nil || resp.StatusCode != http.StatusOK {
		f.tb.Fatalf("GET /api/jobs: %d %v", resp.StatusCode, err)
	}
	return js
}

// finished reports whether River is done with a job.
func finished(state string) bool {
	return state == "completed" || state == "cancelled" || state == "discarded"
}

// waitJobs waits until the queue holds n jobs, every one of them finished,
// and returns them by identity. within guards against a hang: give a
// minute or more, since these machines are noisy.
func (f *serveFixture) waitJobs(n int, within time.Duration) map[string]apiJob {
	f.tb.Helper()
	deadline := time.Now().Add(within)
	for {
		js := f.jobs()
		if len(js) == n && !slices.ContainsFunc(js, func(j apiJob) bool { return !finished(j.State) }) {
			m := map[string]apiJob{}
			for _, j := range js {
				if _, dup := m[j.identity()]; dup {
					f.tb.Errorf("two jobs %s", j.identity())
				}
				m[j.identity()] = j
			}
			return m
		}
		if time.Now().After(deadline) {
			f.tb.Fatalf("hung, or the wrong jobs: after %v, %d jobs, want %d all finished: %+v\n%s", within, len(js), n, js, f.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wantNoJobs checks that the queue is empty.
func (f *serveFixture) wantNoJobs(after string) {
	f.tb.Helper()
	if js := f.jobs(); len(js) != 0 {
		f.tb.Fatalf("after %s, %d jobs queued, want none: %+v", after, len(js), js)
	}
}

// replies returns the fake's comments on pull request n, by the kind their
// marker names, and fails the test on a comment without a marker.
func (f *serveFixture) replies(n int) map[string][]reviewtest.Comment {
	f.tb.Helper()
	m := map[string][]reviewtest.Comment{}
	markerRE := regexp.MustCompile(`^<!-- patchbot:(\S+) -->\n`)
	for _, c := range f.fake.Comments() {
		if c.Issue != n {
			continue
		}
		k := markerRE.FindStringSubmatch(c.Body)
		if k == nil {
			f.tb.Errorf("a comment on #%d without a marker: %q", n, c.Body)
			continue
		}
		kind := k[1]
		if j := jobKind.FindStringSubmatch(kind); j != nil {
			kind = j[1] + j[2]
		}
		m[kind] = append(m[kind], c)
	}
	return m
}

// jobKind matches the kind of a job's reply (work.ReplyKind), which
// replies group by command: serve-bench-3f2a9c01de is serve-bench.
var jobKind = regexp.MustCompile(`^(serve-[a-z]+)-[0-9a-f]{10}(-failed)?$`)

// wantReplies checks that pull request n has exactly one comment of each
// kind (a job's reply by its command, as replies groups them), and no
// other.
func (f *serveFixture) wantReplies(n int, kinds ...string) {
	f.tb.Helper()
	got := f.replies(n)
	for _, k := range kinds {
		if len(got[k]) != 1 {
			f.tb.Errorf("#%d: %d comments of kind %s, want 1: %+v", n, len(got[k]), k, got[k])
		}
		delete(got, k)
	}
	for k, cs := range got {
		f.tb.Errorf("#%d: unexpected comments of kind %s: %+v", n, k, cs)
	}
}

// storedJobs opens the queue's database after the command stopped and
// lists its jobs: what was queued is on disk, not only in /api/jobs.
func (f *serveFixture) storedJobs() []queue.JobInfo {
	f.tb.Helper()
	ctx := context.Background()
	q, err := queue.Open(ctx, f.db, nil)
	if err != nil {
		f.tb.Fatal(err)
	}
	defer q.Stop(ctx)
	js, err := q.Jobs(ctx, 10000)
	if err != nil {
		f.tb.Fatal(err)
	}
	return js
}

// faults breaks some of the fake GitHub's answers, by rule.
type faults struct {
	mu    sync.Mutex
	rules []*fault
}

// A fault breaks the answers to the requests with its method (""; any)
// and path (the fake's, under /api/v3): it lets the first after of them through,
// then breaks the next n of them (-1: every one), or, with a window, every
// one for that long from the first it broke.
type fault struct {
	method, path string
	after, n     int
	window       time.Duration
	how          breakage

	seen, broken int
	since        time.Time
}

// A breakage is how a fault breaks an answer.
type breakage int

const (
	unavailable      breakage = iota // 503 Service Unavailable; nothing done
	lostAnswer                       // done, then the connection closed without an answer
	badGatewayLie                    // done, then 502 Bad Gateway, as a proxy that lost the answer says
	rateLimited                      // 403, the hourly rate limit used up until 3 s from now (past the test's max_wait)
	secondaryLimited                 // 403, a secondary rate limit: retry after a second
)

// add adds a rule and returns it, to count what it broke.
func (fs *faults) add(fl *fault) *fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules = append(fs.rules, fl)
	return fl
}

// clear removes every rule.
func (fs *faults) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules = nil
}

// count returns how many answers fl broke.
func (fs *faults) count(fl *fault) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fl.broken
}

// serve is the fake's fault function.
func (fs *faults) serve(fake *reviewtest.GitHub) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		how, ok := fs.match(r)
		if !ok {
			return false
		}
		switch how {
		case unavailable:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"message":"Service Unavailable (a fault of the test)"}`)
		case lostAnswer:
			fake.Serve(httptest.NewRecorder(), r)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(err)
			}
			conn.Close()
		case rateLimited:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-RateLimit-Limit", "5000")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(3*time.Second).Unix()))
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"message":"API rate limit exceeded for user ID 1."}`)
		case secondaryLimited:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
		case badGatewayLie:
			fake.Serve(httptest.NewRecorder(), r)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		}
		return true
	}
}

func (fs *faults) match(r *http.Request) (breakage, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, fl := range fs.rules {
		if fl.method != "" && fl.method != r.Method || fl.path != r.URL.Path {
			continue
		}
		fl.seen++
		switch {
		case fl.seen <= fl.after:
			continue
		case fl.window > 0:
			if fl.since.IsZero() {
				fl.since = time.Now()
			}
			if time.Since(fl.since) > fl.window {
				continue
			}
		case fl.n >= 0 && fl.broken >= fl.n:
			continue
		}
		fl.broken++
		return fl.how, true
	}
	return 0, false
}

// The fake's paths.
func permissionPath(login string) string {
	return "/api/v3/repos/owner/repo/collaborators/" + login + "/permission"
}
func pullPath(n int) string     { return fmt.Sprintf("/api/v3/repos/owner/repo/pulls/%d", n) }
func commentsPath(n int) string { return fmt.Sprintf("/api/v3/repos/owner/repo/issues/%d/comments", n) }

// TestServeGitHub5xx: GitHub answers 5xx for a while, during a delivery's
// reads and during the workers' replies. A delivery whose reads fail even
// after the review client's retries gets a 502 and queues nothing; its
// redelivery queues the job once, and a redelivery after that is answered
// from memory; a reply that fails past the client's retries is the job's
// error, and the queue's retry posts it. In the end each pull request has
// exactly one reply of each kind, and the queue exactly the three jobs,
// completed.
func TestServeGitHub5xx(t *testing.T) {
	t.Parallel()
	f := startServe(t, 1, 1, 2, 3)
	freezeD := signedDelivery("d-freeze", ghComment{pr: 1, id: 11, login: "gopher", body: "/patchbot freeze"})
	helpD := signedDelivery("d-help", ghComment{pr: 2, id: 21, login: "gopher", body: "/patchbot help"})
	refuseD := signedDelivery("d-refuse", ghComment{pr: 3, id: 31, login: "stranger", body: "/patchbot bench"})

	// GitHub is down for the permission reads: every delivery that needs
	// one is a 502, after the client's two attempts, and nothing is queued.
	perm := f.faults.add(&fault{method: "GET", path: permissionPath("gopher"), n: -1})
	permStranger := f.faults.add(&fault{method: "GET", path: permissionPath("stranger"), n: -1})
	for _, d := range []delivery{freezeD, helpD, refuseD} {
		f.deliver(d, http.StatusBadGateway, "reading the author's permission failed; redeliver")
	}
	if n, m := f.faults.count(perm), f.faults.count(permStranger); n != 4 || m != 2 {
		t.Errorf("%d and %d permission reads broken; want 4 and 2 (two attempts per delivery)", n, m)
	}
	f.wantNoJobs("GitHub failed every permission read")

	// The permission answers, the pull request's head does not: the
	// redelivery of the command fails again, at its second read.
	f.faults.clear()
	head := f.faults.add(&fault{method: "GET", path: pullPath(1), n: -1})
	f.deliver(freezeD, http.StatusBadGateway, "reading the pull request's head failed; redeliver")
	if n := f.faults.count(head); n != 2 {
		t.Errorf("%d head reads broken; want 2", n)
	}
	f.wantNoJobs("GitHub failed the head read")

	// GitHub answers 5xx a while longer: each of the deliveries' reads
	// fails once (the review client's retry mends it within the delivery),
	// and the replies fail past the client's retries once (the job's first
	// attempt fails; the queue's retry posts). The refusal's comments fail
	// for 300 ms from the first request for them, whatever is asked.
	f.faults.clear()
	freezePost := f.faults.add(&fault{method: "POST", path: commentsPath(1), n: 3})
	helpList := f.faults.add(&fault{method: "GET", path: commentsPath(2), n: 3})
	f.faults.add(&fault{path: commentsPath(3), window: 300 * time.Millisecond})
	// gopher's permission, read for the freeze, is not read again for
	// the help: the answer is kept (perms.go).
	for _, d := range []struct {
		delivery
		read string
	}{{freezeD, pullPath(1)}, {helpD, ""}, {refuseD, permissionPath("stranger")}} {
		reads := f.fake.Count("GET " + permissionPath("gopher"))
		var fl *fault
		if d.read != "" {
			fl = f.faults.add(&fault{method: "GET", path: d.read, n: 1})
		}
		f.deliver(d.delivery, http.StatusAccepted, "queued job")
		if fl != nil && f.faults.count(fl) != 1 {
			t.Errorf("delivery %s: %d reads broken, want 1", d.id, f.faults.count(fl))
		}
		if n := f.fake.Count("GET "+permissionPath("gopher")) - reads; d.id == helpD.id && n != 0 {
			t.Errorf("delivery %s read gopher's permission again", d.id)
		}
	}
	// GitHub's redeliveries of handled deliveries: nothing new, and no
	// read of GitHub (the workers never read permissions).
	reads := f.fake.Count("GET " + permissionPath("gopher"))
	for _, d := range []delivery{freezeD, helpD, refuseD} {
		f.deliver(d, http.StatusOK, "redelivery, already handled: queued job")
	}
	if n := f.fake.Count("GET "+permissionPath("gopher")) - reads; n != 0 {
		t.Errorf("redeliveries read GitHub %d times", n)
	}
	// The stranger asks again on the same pull request: one refusal per
	// author and pull request, so the job is a duplicate.
	again := signedDelivery("d-refuse-2", ghComment{pr: 3, id: 32, login: "stranger", body: "/patchbot freeze"})
	strangerReads := f.fake.Count("GET " + permissionPath("stranger"))
	f.deliver(again, http.StatusOK, "duplicate of job")
	if n := f.fake.Count("GET "+permissionPath("stranger")) - strangerReads; n != 0 {
		t.Errorf("the refused stranger's second command read GitHub %d times; want none (the answer is kept)", n)
	}

	jobs := f.waitJobs(3, time.Minute)
	want := map[string]int{ // identity: the attempt it completed on
		"freeze github:owner/repo#1 @ " + f.head:       2,
		"help github:owner/repo#2 @ message:21":        2,
		"refuse github:owner/repo#3 @ author:stranger": 0, // 1 or 2: the window is time
	}
	for id, attempt := range want {
		j, ok := jobs[id]
		switch {
		case !ok:
			t.Errorf("no job %s; have %v", id, keys(jobs))
		case j.State != "completed":
			t.Errorf("job %s: %s, want completed: %+v", id, j.State, j.Errors)
		case attempt != 0 && (j.Attempt != attempt || len(j.Errors) != attempt-1):
			t.Errorf("job %s: completed on attempt %d with errors %+v; want attempt %d", id, j.Attempt, j.Errors, attempt)
		case len(j.Errors) > 0 && !strings.Contains(j.Errors[0].Error, "503"):
			t.Errorf("job %s: first error %q, want GitHub's 503", id, j.Errors[0].Error)
		}
	}
	if n, m := f.faults.count(freezePost), f.faults.count(helpList); n != 3 || m != 3 {
		t.Errorf("%d reply posts and %d comment lists broken; want 3 and 3", n, m)
	}
	f.wantReplies(1, "serve-freeze")
	f.wantReplies(2, "help-21")
	f.wantReplies(3, "refusal-stranger")
	if n := f.fake.Count("PATCH "); n != 0 {
		t.Errorf("%d comments edited; each reply was posted once and never changed", n)
	}

	log := f.stderr.String()
	if n := strings.Count(log, "outcome=\"lookup failed\""); n != 4 {
		t.Errorf("%d deliveries logged as failed lookups, want 4", n)
	}
	f.stop()
	stored := f.storedJobs()
	if len(stored) != 3 {
		t.Errorf("the queue's database holds %d jobs, want 3: %+v", len(stored), stored)
	}
	if testing.Verbose() {
		t.Logf("log:\n%s", f.stderr.String())
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestServeGitHubLostReply: GitHub stores a reply but its answer is lost,
// the connection closed before it (the help on #4), or a proxy's 502 after
// it (the freeze reply on #5, whose next list of comments fails too, so
// that the client gives up and the queue runs the job again). Either way
// the retry finds the comment by its marker and posts no second one.
func TestServeGitHubLostReply(t *testing.T) {
	t.Parallel()
	f := startServe(t, 1, 4, 5)
	lost := f.faults.add(&fault{method: "POST", path: commentsPath(4), n: 1, how: lostAnswer})
	lied := f.faults.add(&fault{method: "POST", path: commentsPath(5), n: 1, how: badGatewayLie})
	// The job's first look (nothing there yet) passes; the client's look
	// before its second attempt fails, twice: the job's first attempt fails.
	f.faults.add(&fault{method: "GET", path: commentsPath(5), after: 1, n: 1})

	f.deliver(signedDelivery("l-help", ghComment{pr: 4, id: 41, login: "gopher", body: "/patchbot help"}), http.StatusAccepted, "queued job")
	f.deliver(signedDelivery("l-freeze", ghComment{pr: 5, id: 51, login: "gopher", body: "/patchbot freeze"}), http.StatusAccepted, "queued job")
	jobs := f.waitJobs(2, time.Minute)

	help := jobs["help github:owner/repo#4 @ message:41"]
	if help.State != "completed" || help.Attempt != 1 {
		t.Errorf("help job: %s on attempt %d (%+v); want completed on attempt 1, by the client's own retry", help.State, help.Attempt, help.Errors)
	}
	freeze := jobs["freeze github:owner/repo#5 @ "+f.head]
	if freeze.State != "completed" || freeze.Attempt != 2 {
		t.Errorf("freeze job: %s on attempt %d (%+v); want completed on attempt 2, by the queue's retry", freeze.State, freeze.Attempt, freeze.Errors)
	}
	if n, m := f.faults.count(lost), f.faults.count(lied); n != 1 || m != 1 {
		t.Errorf("%d and %d answers lost; want 1 and 1", n, m)
	}
	for _, n := range []int{4, 5} {
		if posts := f.fake.Count("POST " + commentsPath(n)); posts != 1 {
			t.Errorf("#%d: %d comments created; want 1, whose answer was lost", n, posts)
		}
	}
	f.wantReplies(4, "help-41")
	f.wantReplies(5, "serve-freeze")
	f.stop()
	if testing.Verbose() {
		t.Logf("log:\n%s", f.stderr.String())
	}
}

// TestServeGitHubRateLimited: GitHub's rate limits are not "no", nor a
// failure: a reply refused by the hourly limit (a freeze's, on #6) or a
// secondary limit (a help's, on #7) for longer than the client waits
// makes the job wait until the limit resets, without using an attempt,
// and it posts then, once, rather than the job being retried into its
// last attempt or cancelled and the reply lost.
func TestServeGitHubRateLimited(t *testing.T) {
	t.Parallel()
	f := startServe(t, 1, 6, 7)
	f.faults.add(&fault{method: "POST", path: commentsPath(6), n: 1, how: rateLimited})
	f.faults.add(&fault{method: "POST", path: commentsPath(7), n: 1, how: secondaryLimited})
	f.deliver(signedDelivery("r-freeze", ghComment{pr: 6, id: 61, login: "gopher", body: "/patchbot freeze"}), http.StatusAccepted, "queued job")
	f.deliver(signedDelivery("r-help", ghComment{pr: 7, id: 71, login: "gopher", body: "/patchbot help"}), http.StatusAccepted, "queued job")
	jobs := f.waitJobs(2, time.Minute)
	for _, id := range []string{"freeze github:owner/repo#6 @ " + f.head, "help github:owner/repo#7 @ message:71"} {
		j := jobs[id]
		if j.State != "completed" || j.Attempt != 1 || len(j.Errors) != 0 {
			t.Errorf("job %s: %s on attempt %d, errors %+v; want completed on attempt 1 after waiting for the limit", id, j.State, j.Attempt, j.Errors)
		}
	}
	f.wantReplies(6, "serve-freeze")
	f.wantReplies(7, "help-71")
	f.stop()
}

// TestServeBadInput: what the handler's tests cannot show, through the
// command's own HTTP server: a body over the 1 MiB cap is answered 413
// (not a broken connection) even while the client is still sending it, a
// form-encoded delivery 415, a GET of the webhook 405; nothing is queued,
// nothing is asked of GitHub, and the server goes on answering.
func TestServeBadInput(t *testing.T) {
	t.Parallel()
	f := startServe(t, 0, 1)
	big := ghComment{pr: 1, id: 1, login: "gopher", body: "/patchbot help\n\n" + strings.Repeat("x", 2<<20)}
	bigD := signedDelivery("b-big", big)
	f.deliver(bigD, http.StatusRequestEntityTooLarge, "body larger than 1048576 bytes")
	form := signedDelivery("b-form", ghComment{pr: 1, id: 2, login: "gopher", body: "/patchbot help"})
	form.contentType = "application/x-www-form-urlencoded"
	f.deliver(form, http.StatusUnsupportedMediaType, "content type")
	unsigned := signedDelivery("b-unsigned", ghComment{pr: 1, id: 3, login: "gopher", body: "/patchbot help"})
	unsigned.sig = ""
	f.deliver(unsigned, http.StatusUnauthorized, "missing X-Hub-Signature-256")
	resp, err := f.client.Get("http://" + f.addr + "/webhook/github")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /webhook/github: %d, want 405", resp.StatusCode)
	}
	f.wantNoJobs("bad deliveries")
	// serve asked, when it started, whose its token is; nothing since.
	if rs := slices.DeleteFunc(f.fake.Requests(), func(r string) bool { return r == "GET /api/v3/user" }); len(rs) != 0 {
		t.Errorf("bad deliveries asked GitHub %q", rs)
	}
	// Still serving: a good delivery is queued.
	f.deliver(signedDelivery("b-good", ghComment{pr: 1, id: 4, login: "gopher", body: "/patchbot help"}), http.StatusAccepted, "queued job")
	f.stop()
}

// A loadCase is one delivery of a load and what it must come to.
type loadCase struct {
	d    delivery
	job  string // the identity of the job it asks for; "" none
	kind string // the kind of the reply that job posts
	pr   int
}

// serveLoad makes n deliveries to the command, on pull requests from 1000:
// per ten, four help commands from a reviewer, one badly signed, one
// stranger's command and a second one of theirs on the same pull request
// (one refusal for both), one comment without a command, one redelivery of
// an earlier delivery, and one stranger's help (a refusal), or, every
// hundredth delivery, a reviewer's freeze, a job that fetches and runs.
// It returns the cases and the pull requests the freezes are on.
func serveLoad(n int, head func(pr int) string) []loadCase {
	var cs []loadCase
	for i := range n {
		pr, id := 1000+i, int64(100000+i)
		did := fmt.Sprintf("load-%04d", i)
		c := ghComment{pr: pr, id: id, login: "gopher", body: "Thanks.\n\n/patchbot help"}
		lc := loadCase{pr: pr, job: fmt.Sprintf("help github:owner/repo#%d @ message:%d", pr, id), kind: fmt.Sprintf("help-%d", id)}
		switch i % 10 {
		case 3: // would be a job, were it GitHub's
			lc.d = signedDelivery(did, c)
			lc.d.sig = serve.Sign([]byte("not the secret"), lc.d.body)
			lc.job, lc.kind = "", ""
			cs = append(cs, lc)
			continue
		case 4:
			c.login, c.body = "stranger", "/patchbot bench -count 5"
			lc.job, lc.kind = fmt.Sprintf("refuse github:owner/repo#%d @ author:stranger", pr), "refusal-stranger"
		case 5: // the stranger again, on the last pull request: no new job
			c.pr, c.login, c.body = pr-1, "stranger", "/patchbot freeze"
			lc.pr, lc.job, lc.kind = pr-1, "", ""
		case 6:
			c.body = "LGTM"
			lc.job, lc.kind = "", ""
		case 7: // GitHub's redelivery of the help five before
			lc = cs[i-5]
			lc.job, lc.kind = "", ""
			cs = append(cs, lc)
			continue
		case 9:
			if i%100 == 9 {
				c.body = "/patchbot freeze"
				lc.job, lc.kind = fmt.Sprintf("freeze github:owner/repo#%d @ %s", pr, head(pr)), "serve-freeze"
			} else {
				c.login = "passer-by"
				lc.job, lc.kind = fmt.Sprintf("refuse github:owner/repo#%d @ author:passer-by", pr), "refusal-passer-by"
			}
		}
		lc.d = signedDelivery(did, c)
		cs = append(cs, lc)
	}
	return cs
}

// loadDeliveries returns the deliveries of cases, in order, and the cases
// that make a job, by the job's identity.
func loadDeliveries(cases []loadCase) ([]delivery, map[string]loadCase) {
	ds := make([]delivery, len(cases))
	want := map[string]loadCase{}
	for i, c := range cases {
		ds[i] = c.d
		if c.job != "" {
			want[c.job] = c
		}
	}
	return ds, want
}

// loadPRs are the pull requests the cases comment on.
func loadPRs(cases []loadCase) []int {
	var prs []int
	for _, c := range cases {
		prs = append(prs, c.pr)
	}
	return prs
}

// freezePRs are the pull requests serveLoad(n) asks a freeze on.
func freezePRs(n int) []int {
	var prs []int
	for i := 9; i < n; i += 100 {
		prs = append(prs, 1000+i)
	}
	return prs
}

// A loadResult is what one delivery got back, and how long it took.
type loadResult struct {
	status  int
	text    string
	latency time.Duration
}

// sendLoad sends the deliveries to the command: with pace 0 from clients
// goroutines, each as soon as its last answer came; with a pace, each in a
// goroutine of its own at that interval (an open loop, as GitHub sends).
// The results are in the deliveries' order.
func (f *serveFixture) sendLoad(ds []delivery, clients int, pace time.Duration) []loadResult {
	return f.sendLoadTo(ds, clients, pace, func(int) string { return f.addr })
}

// sendLoadTo is sendLoad sending delivery i to the serve at the address
// to(i) (postTo).
func (f *serveFixture) sendLoadTo(ds []delivery, clients int, pace time.Duration, to func(i int) string) []loadResult {
	out := make([]loadResult, len(ds))
	do := func(i int) {
		start := time.Now()
		status, text, err := f.postTo(to(i), ds[i])
		if err != nil {
			f.tb.Errorf("delivery %s: %v", ds[i].id, err)
			return
		}
		out[i] = loadResult{status: status, text: text, latency: time.Since(start)}
	}
	var wg sync.WaitGroup
	if pace > 0 {
		tick := time.NewTicker(pace)
		defer tick.Stop()
		for i := range ds {
			if i > 0 {
				<-tick.C
			}
			wg.Go(func() { do(i) })
		}
	} else {
		next := make(chan int)
		for range clients {
			wg.Go(func() {
				for i := range next {
					do(i)
				}
			})
		}
		for i := range ds {
			next <- i
		}
		close(next)
	}
	wg.Wait()
	return out
}

// wantAnswers checks what the deliveries of cases got back: 401 for the
// badly signed, 202 or 200 for the rest, a 200 to a job's delivery only as
// a duplicate or a redelivery, and one 202 for each of the jobs.
func wantAnswers(t *testing.T, cases []loadCase, results []loadResult, jobs int) {
	t.Helper()
	status := map[int]int{}
	bad := 0
	for i, r := range results {
		status[r.status]++
		switch c := cases[i]; {
		case c.d.sig != serve.Sign([]byte(serveSecret), c.d.body):
			bad++
			if r.status != http.StatusUnauthorized {
				t.Errorf("delivery %d, badly signed: %d %s", i, r.status, r.text)
			}
		case r.status != http.StatusAccepted && r.status != http.StatusOK:
			t.Errorf("delivery %d: %d %s", i, r.status, r.text)
		case c.job != "" && r.status == http.StatusOK && !strings.HasPrefix(r.text, "duplicate of job") && !strings.HasPrefix(r.text, "redelivery") && !strings.HasPrefix(r.text, "this comment has job"):
			// A job's first delivery may be a duplicate only of its
			// twin (the stranger's second comment), or be taken for a
			// redelivery of its own redelivery, sent at once by another
			// client and handled first (PostgreSQL takes inserts in
			// parallel, and so makes it likely); the counts below check
			// that each job got one 202.
			t.Errorf("delivery %d, a new job: %d %s", i, r.status, r.text)
		}
	}
	if n := len(results); status[http.StatusUnauthorized] != bad || status[http.StatusAccepted] != jobs || status[http.StatusOK] != n-bad-jobs {
		t.Errorf("answers %v; want %d 401, %d 202 and %d 200", status, bad, jobs, n-bad-jobs)
	}
}

// percentile returns the p'th percentile (0 < p < 100) of the latencies.
func percentile(rs []loadResult, p int) time.Duration {
	ls := make([]time.Duration, len(rs))
	for i, r := range rs {
		ls[i] = r.latency
	}
	slices.Sort(ls)
	return ls[min(len(ls)-1, len(ls)*p/100)]
}

// TestServeLoad delivers 1,000 events (200 with -short) to 'patchbot
// serve' from 8 clients at once, 10% redeliveries and 10% badly signed,
// while its workers reply, and checks that exactly the right jobs are
// queued (in /api/jobs, and on disk after serve stopped), that each is
// done on its first attempt and replied to once, and that the logs have
// one line per delivery.
//
// It runs on SQLite and on PostgreSQL with the command in this process,
// then on PostgreSQL with two and with three serve processes on the one
// database, as machines would run them (startLoadProcs): the deliveries
// are spread over the processes in turn, and each redelivery goes to
// another process than the one that had its first delivery, where that
// process's in-memory redelivery check does not know it and the queue's
// uniqueness must.
func TestServeLoad(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testServeLoad(t, "", 0) })
	t.Run("postgres", func(t *testing.T) { testServeLoad(t, pgtest.NewDB(t), 0) })
	t.Run("postgres-2-processes", func(t *testing.T) { testServeLoad(t, pgtest.NewDB(t), 2) })
	t.Run("postgres-3-processes", func(t *testing.T) { testServeLoad(t, pgtest.NewDB(t), 3) })
}

// testServeLoad is TestServeLoad on the queue at the -db URL db ("": a
// SQLite file): with procs 0, to the fixture's command, which works the
// jobs; otherwise to that many serve processes on the queue, which work
// them, while the fixture's command, with no workers and sent nothing,
// only lists the jobs.
func testServeLoad(t *testing.T, db string, procs int) {
	n := 1000
	if testing.Short() {
		n = 200 // scripts/test's race pass
	}
	prs := freezePRs(n)
	workers := serveLoadWorkers
	if procs > 0 {
		workers = 0
	}
	f := startServeOn(t, db, workers, prs...)
	// Where the deliveries go, and the logs their lines are in.
	addrs, logs, what := []string{f.addr}, []*syncBuffer{f.stderr}, "command"
	ps := startLoadProcs(t, f, procs)
	if procs > 0 {
		addrs, logs, what = nil, nil, "processes"
		for _, p := range ps {
			addrs = append(addrs, p.addr)
			logs = append(logs, p.log)
		}
	}
	first := map[string]int{} // delivery id → the serve its first went to
	cases := serveLoad(n, func(int) string { return f.head })
	f.openPRs(loadPRs(cases)...)
	ds, want := loadDeliveries(cases)

	route := make([]string, len(ds))
	routed := map[string]int{} // address → how many deliveries go there
	for i, d := range ds {
		c, again := first[d.id]
		if !again {
			c = i % len(addrs)
			first[d.id] = c
		} else {
			c = (c + 1) % len(addrs)
		}
		route[i] = addrs[c]
		routed[addrs[c]]++
	}
	start := time.Now()
	results := f.sendLoadTo(ds, 8, 0, func(i int) string { return route[i] })
	sent := time.Since(start)
	wantAnswers(t, cases, results, len(want))

	jobs := f.waitJobs(len(want), 2*time.Minute)
	drained := time.Since(start)
	for id, c := range want {
		j, ok := jobs[id]
		switch {
		case !ok:
			t.Errorf("no job %s", id)
		case j.State != "completed" || j.Attempt != 1:
			t.Errorf("job %s: %s on attempt %d, errors %+v", id, j.State, j.Attempt, j.Errors)
		}
		if rs := f.replies(c.pr)[c.kind]; len(rs) != 1 {
			t.Errorf("#%d: %d comments of kind %s, want 1", c.pr, len(rs), c.kind)
		}
	}
	if n, m := len(f.fake.Comments()), f.fake.Count("POST "); n != len(want) || m != len(want) {
		t.Errorf("%d comments in %d posts; want %d, one per job", n, m, len(want))
	}
	if n := f.fake.Count("PATCH "); n != 0 {
		t.Errorf("%d comments edited, want none", n)
	}
	// One webhook line per delivery, in the log of the serve it went to;
	// one start per job, in the log of whichever serve ran it.
	lines, started, split := 0, 0, []string{}
	for i, l := range logs {
		log := l.String()
		k := strings.Count(log, " msg=webhook ")
		if k != routed[addrs[i]] {
			t.Errorf("%d webhook log lines in the log of the serve at %s, sent %d deliveries", k, addrs[i], routed[addrs[i]])
		}
		lines += k
		k = strings.Count(log, ` msg="job started" `)
		started += k
		split = append(split, fmt.Sprint(k))
	}
	if lines != n {
		t.Errorf("%d webhook log lines for %d deliveries", lines, n)
	}
	if started != len(want) {
		t.Errorf("%d jobs started, by the logs (%s), want %d, each once", started, strings.Join(split, "+"), len(want))
	}
	for _, p := range ps {
		p.stop()
		wantNoCredentials(t, p.name, p.log.String())
	}
	f.stop()
	stored := f.storedJobs()
	if len(stored) != len(want) {
		t.Errorf("the queue's database holds %d jobs, want %d", len(stored), len(want))
	}
	for _, j := range stored {
		if id := fmt.Sprintf("%s %s @ %s", j.Command, j.Review, j.Revision); want[id].job == "" || j.State != "completed" {
			t.Errorf("stored job %d: %s, %s", j.ID, id, j.State)
		}
	}
	t.Logf("%d deliveries to %d %s in %v (%.0f/s, p50 %v, p99 %v); %d jobs (run by each: %s), all replied to, %v after the first delivery",
		n, len(addrs), what, sent.Round(time.Millisecond), float64(n)/sent.Seconds(), percentile(results, 50), percentile(results, 99),
		len(want), strings.Join(split, ", "), drained.Round(time.Millisecond))
}

// startLoadProcs starts n 'patchbot serve' processes (startServeProc) on
// f's queue, fake GitHub and repositories, as n machines would run them:
// each with serveLoadWorkers workers and reply workers, a work directory
// and a port of its own. They take f's environment (the secret, the
// token, the fake's URL, HOME and the XDG directories), and
// the fake GitHub's clone URL of the bare repository.
func startLoadProcs(t *testing.T, f *serveFixture, n int) []*serveProc {
	t.Helper()
	env := f.env
	w := fmt.Sprint(serveLoadWorkers)
	var ps []*serveProc
	for i := range n {
		ps = append(ps, startServeProc(t, fmt.Sprintf("serve %d", i+1), env,
			"-config", f.args[2], "-listen", "127.0.0.1:0", "-db", f.db,
			"-workers", w, "-reply-workers", w, "-unsafe-no-sandbox", "-work", t.TempDir()))
	}
	return ps
}

// serveLoadWorkers is TestServeLoad's -workers. River gives a worker its
// next job at most every 100 ms (its fetch cooldown), so one worker posts
// about 10 replies a second, and the load's 600 would take a minute;
// eight post them in a few seconds, and show that jobs running at once
// do not double a reply.
const serveLoadWorkers = 8

// BenchmarkServeWebhook measures the command's webhook through its own
// HTTP server: deliveries per second, and the 50th and 99th percentiles of
// the time from sending a delivery to its answer (202: the job is in the
// SQLite queue). Each delivery is a new comment on a pull request of its
// own. Client, command and fake GitHub share the machine.
//
//	bench:        a reviewer's /patchbot bench, the most a delivery costs
//	              (the author's permission and the pull request's head read
//	              from the fake GitHub, a job inserted); -workers 0, so the
//	              process only queues
//	help+workers: a reviewer's /patchbot help (one read, a job inserted),
//	              with -workers 1 posting the replies meanwhile (the
//	              queue's own writes beside the webhook's)
//	max:          4 clients, each sending when its last answer came
//	rate=200:     an open loop at 200 deliveries a second, as GitHub sends
func BenchmarkServeWebhook(b *testing.B) {
	for _, bc := range []struct {
		name    string
		body    string
		workers int
		pace    time.Duration
	}{
		{"bench/max", "/patchbot bench -count 10 ./codec", 0, 0},
		{"bench/rate=200", "/patchbot bench -count 10 ./codec", 0, 5 * time.Millisecond},
		{"help+workers/rate=200", "/patchbot help", 1, 5 * time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := startServe(b, bc.workers)
			ds := make([]delivery, b.N)
			for i := range ds {
				pr := 1000 + i
				f.openPRs(pr)
				ds[i] = signedDelivery(fmt.Sprintf("bench-%d", i), ghComment{pr: pr, id: int64(100000 + i), login: "gopher", body: bc.body})
			}
			b.ResetTimer()
			start := time.Now()
			results := f.sendLoad(ds, 4, bc.pace)
			elapsed := time.Since(start)
			b.StopTimer()
			for i, r := range results {
				if r.status != http.StatusAccepted {
					b.Fatalf("delivery %d: %d %s", i, r.status, r.text)
				}
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
			b.ReportMetric(float64(percentile(results, 50).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(results, 99).Microseconds())/1000, "p99-ms")
		})
	}
}

// TestServeMarkerSpoof: a pull request's author writes, before any reply,
// comments that start with patchbot's markers: the freeze reply's, and
// the help reply's for the next comment. patchbot, which may edit anyone's
// comment here (write permission), edits neither and reads neither as its
// reply: each reply is a comment of its own, by its own account, and a
// second run of the job edits that one.
func TestServeMarkerSpoof(t *testing.T) {
	t.Parallel()
	f := startServe(t, 1, 8)
	f.fake.SetPermission(reviewtest.Bot, "write")
	// The freeze job's kind, which anyone can compute from the head.
	freezeKind := work.ReplyKind(&queue.Args{Command: "freeze", Revision: review.Revision{Commit: f.head}})
	spoofs := []reviewtest.Comment{
		{ID: 11, Issue: 8, User: "mallory", Body: review.Marker(freezeKind) + "\nFreeze: open. (patchbot did not write this)\n"},
		{ID: 12, Issue: 8, User: "mallory", Body: review.Marker("help-81") + "\nnothing to see\n"},
	}
	f.fake.SetComments(spoofs)

	f.deliver(signedDelivery("s-freeze", ghComment{pr: 8, id: 80, login: "gopher", body: "/patchbot freeze"}), http.StatusAccepted, "queued job")
	f.deliver(signedDelivery("s-help", ghComment{pr: 8, id: 81, login: "gopher", body: "/patchbot frobnicate"}), http.StatusAccepted, "queued job")
	jobs := f.waitJobs(2, time.Minute)
	for id, j := range jobs {
		if j.State != "completed" {
			t.Errorf("job %s: %s (%+v); want completed", id, j.State, j.Errors)
		}
	}
	cs := f.fake.Comments()
	if len(cs) != 4 {
		t.Fatalf("%d comments, want mallory's 2 and patchbot's 2: %+v", len(cs), cs)
	}
	for i, c := range cs[:2] {
		if c != spoofs[i] {
			t.Errorf("mallory's comment %d changed: %+v", c.ID, c)
		}
	}
	mine := map[string]bool{}
	for _, c := range cs[2:] {
		kind, _, _ := strings.Cut(strings.TrimPrefix(c.Body, "<!-- patchbot:"), " -->")
		if c.User != reviewtest.Bot || mine[kind] {
			t.Errorf("reply %+v; want one by patchbot of each kind", c)
		}
		mine[kind] = true
	}
	if !mine[freezeKind] || !mine["help-81"] {
		t.Errorf("replies of kinds %v; want %s and help-81", mine, freezeKind)
	}
	for _, r := range f.fake.Requests() {
		if strings.HasPrefix(r, "PATCH ") {
			t.Errorf("a comment was edited: %s", r)
		}
	}
	f.stop()
}

// TestServeHeadMoved, through 'patchbot serve': the pull request's head is
// pushed after a reviewer's command was written and before it was
// delivered (GitHub's pull_request event says when). The command is not
// run: one reply, by patchbot, says the head moved and to ask again. A
// command written after the push runs on the new head.
func TestServeHeadMoved(t *testing.T) {
	t.Parallel()
	f := startServe(t, 1, 12)
	pushEvent := func(id, action, sha string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"action": action, "number": 12,
			"pull_request": map[string]any{"number": 12, "head": map[string]any{"sha": sha}},
			"repository":   map[string]any{"full_name": "owner/repo", "name": "repo"}})
		f.deliver(delivery{id: id, event: "pull_request", body: body, sig: serve.Sign([]byte(serveSecret), body)}, http.StatusOK, "recorded the head "+sha)
	}
	pushEvent("h-open", "opened", f.head)
	written := time.Now().Add(-5 * time.Second)
	// The push: a commit on top of the head, in GitHub's git.
	bare := filepath.Join(f.gh, "owner", "repo")
	moved := gittest.Git(t, bare, "commit-tree", "-p", f.head, "-m", "pushed after the command", f.head+"^{tree}")
	gittest.Git(t, bare, "update-ref", "refs/pull/12/head", moved)
	f.fake.SetHead(12, moved)
	pushEvent("h-push", "synchronize", moved)
	f.deliver(signedDelivery("h-old", ghComment{pr: 12, id: 121, login: "gopher", body: "/patchbot freeze", at: written}), http.StatusAccepted, "queued job")
	// GitHub's times are in whole seconds: the next comment is written
	// in a second after the one the push was learned in.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	f.deliver(signedDelivery("h-new", ghComment{pr: 12, id: 122, login: "gopher", body: "/patchbot freeze"}), http.StatusAccepted, "queued job")
	jobs := f.waitJobs(2, time.Minute)
	if j, ok := jobs["help github:owner/repo#12 @ message:121"]; !ok || j.State != "completed" {
		t.Errorf("the command written before the push: %+v; want a completed reply job (jobs %v)", j, keys(jobs))
	}
	if j, ok := jobs["freeze github:owner/repo#12 @ "+moved]; !ok || j.State != "completed" {
		t.Errorf("the command written after the push: %+v; want a completed freeze job on %s (jobs %v)", j, moved, keys(jobs))
	}
	f.wantReplies(12, "help-121", "serve-freeze")
	help := f.replies(12)["help-121"][0]
	if help.User != reviewtest.Bot || !strings.Contains(help.Body, "The pull request's head moved after this command was written: it is now "+moved) {
		t.Errorf("the reply to the command written before the push:\n%s", help.Body)
	}
	f.stop()
}

// TestServeHealthz, through 'patchbot serve': /healthz says whether the
// queue can take a job. The SQLite file deleted under the running process
// makes it 503, saying why (jobs stored there would be lost), at once.
func TestServeHealthz(t *testing.T) {
	t.Parallel()
	f := startServe(t, 0)
	get := func() (int, string) {
		t.Helper()
		resp, err := f.client.Get("http://" + f.addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(); code != http.StatusOK {
		t.Fatalf("healthz: %d %q", code, body)
	}
	path := strings.TrimPrefix(f.db, "sqlite:")
	if err := os.Rename(path, path+".gone"); err != nil {
		t.Fatal(err)
	}
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, "the file is gone") {
		t.Errorf("healthz with the queue's file gone: %d %q", code, body)
	}
	if err := os.Rename(path+".gone", path); err != nil {
		t.Fatal(err)
	}
	if code, body := get(); code != http.StatusOK {
		t.Errorf("healthz with the file back: %d %q", code, body)
	}
	f.stop()
}

// childOf returns the one child process of pid, once it has one.
func childOf(tb testing.TB, pid int) int {
	tb.Helper()
	file := fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatalf("the wrapped command's process: %v", err)
		}
		if fs := strings.Fields(string(b)); len(fs) > 0 {
			child, err := strconv.Atoi(fs[0])
			if err != nil {
				tb.Fatal(err)
			}
			return child
		}
	}
	tb.Fatalf("process %d started no child within a minute", pid)
	return 0
}

// TestServeDiskFull, through 'patchbot serve' with its queue on a small
// file system of its own (a 4 MiB tmpfs, bubblewrap's): filled, /healthz
// is 503 saying the disk is full, and a delivery is a 5xx (GitHub
// redelivers it), not a 202 for a job that was not stored; with the space
// back, both are answered again.
func TestServeDiskFull(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bwrap"); err != nil {
		testenv.Need(t, testenv.Sandbox, err)
	}
	f := startServe(t, 0, 7)
	f.stop()
	dir := filepath.Join(t.TempDir(), "queue")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	db := "sqlite:" + filepath.Join(dir, "q.db")
	f.args[slices.Index(f.args, f.db)] = db
	f.db = db
	f.wrap = []string{"bwrap", "--dev-bind", "/", "/", "--size", strconv.Itoa(4 << 20), "--tmpfs", dir, "--die-with-parent", "--"}
	f.done, f.code, f.stderr = false, make(chan int, 1), &syncBuffer{}
	f.start()
	testenv.Need(t, testenv.Sandbox, nil)

	health := func() (int, string) {
		t.Helper()
		resp, err := f.client.Get("http://" + f.addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(body))
	}
	if code, body := health(); code != http.StatusOK {
		t.Fatalf("healthz: %d %q\n%s", code, body, f.stderr.String())
	}
	f.deliver(signedDelivery("full-1", ghComment{pr: 7, id: 9001, login: "gopher", body: "/patchbot help"}), http.StatusAccepted, "queued")

	// The command's view of the file system: the tmpfs is in its mount
	// namespace only.
	filler := fmt.Sprintf("/proc/%d/root%s/filler", f.pid, dir)
	fill, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := fill.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the queue's file system: %v", err)
			}
			break
		}
	}
	fill.Close()
	if code, body := health(); code != http.StatusServiceUnavailable || !strings.Contains(body, "disk is full") {
		t.Errorf("healthz on a full disk: %d %q; want 503 saying so", code, body)
	}
	if code, text, err := f.post(signedDelivery("full-2", ghComment{pr: 7, id: 9002, login: "gopher", body: "/patchbot help"})); err != nil || code < 500 {
		t.Errorf("a delivery on a full disk: %d %q, %v; want a 5xx, for GitHub to redeliver", code, text, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, body := health(); code != http.StatusOK {
		t.Errorf("healthz with space again: %d %q", code, body)
	}
	f.deliver(signedDelivery("full-2", ghComment{pr: 7, id: 9002, login: "gopher", body: "/patchbot help"}), http.StatusAccepted, "queued")
	f.stop()
}

// TestServeWorkRootTaken: a second 'patchbot serve' with workers on the
// work directory of a running one is refused at start, exit 2, naming
// the first; the first goes on.
func TestServeWorkRootTaken(t *testing.T) {
	t.Parallel()
	f := startServe(t, 0)
	work := t.TempDir()
	args := []string{"-config", f.args[2], "-listen", "127.0.0.1:0", "-db", f.db, "-workers", "1", "-unsafe-no-sandbox", "-work", work}
	first := startServeProc(t, "first", f.env, args...)
	cmd := exec.Command(patchbotBin, append([]string{"serve"}, args...)...)
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "-work: work directory "+work+" is in use by another process (pid "+strconv.Itoa(first.cmd.Process.Pid)) {
		t.Errorf("a second serve on the same work directory: %v\n%s", err, out)
	}
	first.stop()
	f.stop()
}

// TestServeAppToken: with a GitHub App's token, whose account GitHub will
// not name, serve refuses to start until it is told the account: no reply
// could find its own comment otherwise. Told (-github-login), it serves.
func TestServeAppToken(t *testing.T) {
	t.Parallel()
	f := startServe(t, 0)
	f.fake.AddToken("ghs_apptoken0123456789", "patchbot-app[bot]")
	env := append(slices.Clone(f.env), review.EnvGitHubToken+"=ghs_apptoken0123456789")
	args := []string{"serve", "-config", f.args[2], "-listen", "127.0.0.1:0", "-db", f.db, "-workers", "0", "-reply-workers", "0"}
	cmd := exec.Command(patchbotBin, args...)
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "serve.github.login") {
		t.Errorf("serve with an App's token and no login: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
	p := startServeProc(t, "told", env, append(args[1:], "-github-login", "patchbot-app[bot]")...)
	p.stop()
	f.stop()
}
