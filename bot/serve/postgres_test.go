package serve_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/pgtest"
)

// pgCluster starts a PostgreSQL cluster of t's own with
// scripts/postgres-test-server (about a second), for a test that stops it,
// and returns its URL and a function that restarts it after down.
func pgCluster(t *testing.T) (url string, restart func(down time.Duration)) {
	t.Helper()
	pgtest.URL(t) // the suite's cluster is there: so is PostgreSQL
	script, err := filepath.Abs("../../scripts/postgres-test-server")
	if err != nil {
		t.Fatal(err)
	}
	// Not in t.TempDir, which only its owner may enter: as root, the
	// script runs the server as the postgres user.
	parent, err := os.MkdirTemp("", "patchbot-pg-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(parent, 0o755)
	t.Cleanup(func() { os.RemoveAll(parent) })
	dir := filepath.Join(parent, "pg")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(script, args...)
		cmd.Env = append(os.Environ(), "PATCHBOT_POSTGRES_DIR="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("postgres-test-server %s: %v\n%s", strings.Join(args, " "), err, err.(*exec.ExitError).Stderr)
		}
		return string(out)
	}
	env := run("start")
	t.Cleanup(func() { run("stop") })
	url = strings.TrimSpace(strings.TrimPrefix(env, "export PATCHBOT_TEST_POSTGRES_URL="))
	return url, func(down time.Duration) { run("restart", strings.TrimSuffix(down.String(), "s")) }
}

// TestServePostgresRestart restarts PostgreSQL, down for two seconds, while
// 200 deliveries arrive and their jobs are worked: deliveries answered 5xx
// meanwhile are sent again, as GitHub redelivers; in the end every job is
// there once, finished, and replied to once, and serve never stopped.
func TestServePostgresRestart(t *testing.T) {
	db, restart := pgCluster(t)
	const n = 200
	prs := freezePRs(n)
	f := startServeOn(t, db, serveLoadWorkers, prs...)
	cases := serveLoad(n, func(int) string { return f.head })
	f.openPRs(loadPRs(cases)...)
	ds, want := loadDeliveries(cases)

	done := make(chan []loadResult)
	go func() { done <- f.sendLoad(ds, 2, 20*time.Millisecond) }() // 4 s of deliveries
	time.Sleep(time.Second)
	restart(2 * time.Second)
	results := <-done
	failed := 0
	for i, r := range results {
		if r.status/100 != 5 {
			continue
		}
		failed++
		// GitHub's redelivery, once the database is back; a minute of
		// 5xx after that is a hang.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			status, text, err := f.post(ds[i])
			if err == nil && status/100 != 5 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hung: delivery %s still %d %s (%v) a minute after PostgreSQL came back", ds[i].id, status, text, err)
			}
		}
	}
	t.Logf("%d of %d deliveries answered 5xx while PostgreSQL was down, sent again", failed, n)

	jobs := f.waitJobs(len(want), 2*time.Minute)
	for id, c := range want {
		j, ok := jobs[id]
		switch {
		case !ok:
			t.Errorf("no job %s", id)
		case j.State != "completed":
			t.Errorf("job %s: %s on attempt %d, errors %+v", id, j.State, j.Attempt, j.Errors)
		}
		if rs := f.replies(c.pr)[c.kind]; len(rs) != 1 {
			t.Errorf("#%d: %d comments of kind %s, want 1", c.pr, len(rs), c.kind)
		}
	}
	if n := len(f.fake.Comments()); n != len(want) {
		t.Errorf("%d comments, want %d, one per job", n, len(want))
	}
	if resp, err := f.client.Get("http://" + f.addr + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("healthz after the restart: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	f.stop()
}

// waitUntil polls ok until it is true, for at most within, and fails the
// test otherwise, saying what did not happen, with the logs of ps. within
// guards against a hang, not against slowness: give a minute or more.
func waitUntil(t *testing.T, within time.Duration, what string, ok func() bool, ps ...*serveProc) {
	t.Helper()
	for deadline := time.Now().Add(within); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			var logs []string
			for _, p := range ps {
				logs = append(logs, fmt.Sprintf("%s:\n%s", p.name, p.log))
			}
			t.Fatalf("hung: no %s within %v:\n%s", what, within, strings.Join(logs, "\n"))
		}
	}
}

// firstToLog waits until one of ps logs want, and returns which.
func firstToLog(t *testing.T, within time.Duration, want string, ps ...*serveProc) int {
	t.Helper()
	first := -1
	waitUntil(t, within, fmt.Sprintf("process logging %q", want), func() bool {
		first = slices.IndexFunc(ps, func(p *serveProc) bool { return strings.Contains(p.log.String(), want) })
		return first >= 0
	}, ps...)
	return first
}

// slowPR makes pull request pr of f's repository: packages pkgs, each
// with a benchmark that sleeps, 300 ms an op at the base (master) and
// 250 ms at the pull request's head.
func slowPR(t *testing.T, f *serveFixture, pr int, pkgs ...string) {
	t.Helper()
	src := t.TempDir()
	bare := filepath.Join(f.gh, "owner", "repo")
	gittest.Git(t, src, "clone", "-q", bare, ".")
	slow := func(d string) {
		for _, p := range pkgs {
			os.MkdirAll(filepath.Join(src, p), 0o777)
			code := "package " + p + "\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc BenchmarkSlow(b *testing.B) {\n\tfor range b.N {\n\t\ttime.Sleep(" + d + ")\n\t}\n}\n"
			if err := os.WriteFile(filepath.Join(src, p, p+"_test.go"), []byte(code), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		gittest.Git(t, src, "add", "-A")
		gittest.Git(t, src, "commit", "-q", "-m", "slow: "+d)
	}
	slow("300 * time.Millisecond")
	gittest.Git(t, src, "push", "-q", "origin", "HEAD:refs/heads/master")
	slow("250 * time.Millisecond")
	head := gittest.Git(t, src, "rev-parse", "HEAD")
	gittest.Git(t, src, "push", "-q", "-f", "origin", fmt.Sprintf("HEAD:refs/pull/%d/head", pr))
	f.fake.SetHead(pr, head)
}

// TestServeKilledMidJob runs two benchmark machines, real serve processes
// on one PostgreSQL, behind a front that takes the webhook, and kills
// (SIGKILL) the one that starts the job, mid-job: the other takes the job
// for the job of a dead process once its -job-timeout and margin have
// passed, runs it, and it is replied to once.
func TestServeKilledMidJob(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits a minute for the rescue")
	}
	db := pgtest.NewDB(t)
	const pr = 7
	f := startServeOn(t, db, 0, pr)
	// A package whose benchmark takes some time, at the base and, changed,
	// at the pull request's head.
	slowPR(t, f, pr, "slow")

	args := []string{"-config", f.args[2], "-listen", "127.0.0.1:0", "-db", db,
		"-workers", "1", "-reply-workers", "0", "-job-timeout", "15s", "-unsafe-no-sandbox"}
	env := f.env
	ps := []*serveProc{
		startServeProc(t, "serve 1", env, append(args, "-work", t.TempDir())...),
		startServeProc(t, "serve 2", env, append(args, "-work", t.TempDir())...),
	}

	f.deliver(signedDelivery("kill-1", ghComment{pr: pr, id: 7001, login: "gopher", body: "/patchbot bench -count 2 ./slow"}), http.StatusAccepted, "queued")
	victim := firstToLog(t, time.Minute, `msg="job started"`, ps...)
	killed := time.Now()
	ps[victim].kill()
	firstToLog(t, 3*time.Minute, `msg="job done"`, ps[1-victim])
	t.Logf("the job, killed with its process, was done by the other %v later", time.Since(killed).Round(time.Second))

	if rs := f.replies(pr)["serve-bench"]; len(rs) != 1 || !strings.Contains(rs[0].Body, "| Slow-") {
		t.Errorf("want one serve-bench reply with the table, got %+v", rs)
	}
	if n := f.fake.Count("POST /api/v3/repos/owner/repo/issues/7/comments"); n != 1 {
		t.Errorf("%d comments posted, want 1", n)
	}
	jobs := f.waitJobs(1, time.Minute)
	for _, j := range jobs {
		if j.State != "completed" || j.Attempt != 2 {
			t.Errorf("job %s: %s on attempt %d, want completed on the second", j.identity(), j.State, j.Attempt)
		}
	}
}

// TestServeStartTogether: three 'patchbot serve' processes, as the
// replicas of a deployment, started at the same instant on a fresh
// PostgreSQL database, ten times over: all come up, and serve. Their
// migrations wait for each other (queue.lockMigrations); without that, the
// second and third fail on River's schema.
func TestServeStartTogether(t *testing.T) {
	f := startServe(t, 0)
	for round := range 10 {
		db := pgtest.NewDB(t)
		var wg sync.WaitGroup
		start := make(chan struct{})
		procs := make([]*serveProc, 3)
		for i := range procs {
			wg.Go(func() {
				<-start
				procs[i] = startServeProc(t, fmt.Sprintf("round %d serve %d", round, i+1), f.env,
					"-config", f.args[2], "-listen", "127.0.0.1:0", "-db", db, "-workers", "0", "-reply-workers", "1")
			})
		}
		close(start)
		wg.Wait()
		for _, p := range procs {
			if p == nil || p.addr == "" {
				t.Fatalf("round %d: a serve did not come up", round)
			}
			if q := p.queue(); q.Process == "" {
				t.Errorf("round %d: %s: /api/queue says no queue: %+v", round, p.name, q)
			}
			p.stop()
		}
	}
	f.stop()
}

// TestServeParts runs two benchmark machines, real serve processes on one
// PostgreSQL, behind a front that takes the webhook, and one command on
// two packages: its job is split into a job a package, which run on both
// machines, and the one comment ends holding both tables. Then another
// command, with the machine that starts one of its packages killed
// (SIGKILL) mid-job: the other runs that package again once its
// -job-timeout and margin have passed, and the command's one comment ends
// holding both.
func TestServeParts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits a minute for the rescue")
	}
	db := pgtest.NewDB(t)
	const pr = 8
	f := startServeOn(t, db, 0, pr)
	slowPR(t, f, pr, "slowa", "slowb")

	args := []string{"-config", f.args[2], "-listen", "127.0.0.1:0", "-db", db,
		"-workers", "1", "-reply-workers", "0", "-job-timeout", "15s", "-unsafe-no-sandbox"}
	ps := []*serveProc{
		startServeProc(t, "serve 1", f.env, append(args, "-work", t.TempDir())...),
		startServeProc(t, "serve 2", f.env, append(args, "-work", t.TempDir())...),
	}
	const opts1, opts2 = "-count 2 ./slowa ./slowb", "-count 3 ./slowa ./slowb"
	// started counts the part jobs of the command with options opts that
	// process p started.
	started := func(p *serveProc, opts string) int {
		n := 0
		for _, l := range p.lines(`"job started"`) {
			if strings.Contains(l, " part=") && strings.Contains(l, `options="`+opts+`"`) {
				n++
			}
		}
		return n
	}
	// reply returns the comments that answer the command with opts.
	reply := func(opts string) []string {
		var out []string
		for _, c := range f.fake.Comments() {
			if c.Issue == pr && strings.Contains(c.Body, "Answering /patchbot bench "+opts+",") {
				out = append(out, c.Body)
			}
		}
		return out
	}
	whole := func(opts string) bool {
		rs := reply(opts)
		return len(rs) == 1 && strings.Contains(rs[0], "**example.com/w/slowa**") && strings.Contains(rs[0], "**example.com/w/slowb**") && !strings.Contains(rs[0], "so far")
	}

	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range f.fake.Comments() {
				t.Logf("comment %d on #%d:\n%s", c.ID, c.Issue, c.Body)
			}
		}
	})
	// Both packages, on both machines.
	f.deliver(signedDelivery("parts-1", ghComment{pr: pr, id: 8001, login: "gopher", body: "/patchbot bench " + opts1}), http.StatusAccepted, "queued")
	waitUntil(t, 3*time.Minute, "the reply holding both packages", func() bool { return whole(opts1) }, ps...)
	if started(ps[0], opts1) == 0 || started(ps[1], opts1) == 0 {
		t.Errorf("the parts ran on one machine: %d and %d part jobs logged", started(ps[0], opts1), started(ps[1], opts1))
	}
	for _, want := range []string{"example.com/w/slowa", "example.com/w/slowb", "asked by gopher."} {
		if !strings.Contains(reply(opts1)[0], want) {
			t.Errorf("the reply lacks %q:\n%s", want, reply(opts1)[0])
		}
	}

	// Another command, and the machine that starts one of its packages
	// killed.
	f.deliver(signedDelivery("parts-2", ghComment{pr: pr, id: 8002, login: "gopher", body: "/patchbot bench " + opts2}), http.StatusAccepted, "queued")
	victim := -1
	waitUntil(t, time.Minute, "a part started", func() bool {
		victim = slices.IndexFunc(ps, func(p *serveProc) bool { return started(p, opts2) > 0 })
		return victim >= 0
	}, ps...)
	killed := time.Now()
	ps[victim].kill()
	waitUntil(t, 3*time.Minute, "the second reply holding both packages", func() bool { return whole(opts2) }, ps[1-victim])
	t.Logf("with a machine killed, the second command's reply was whole %v later", time.Since(killed).Round(time.Second))
	if rs := reply(opts2); len(rs) != 1 || !strings.Contains(rs[0], "n=3") {
		t.Errorf("the second command's comments: %q, want one with 3 runs a side", rs)
	}
	if got := f.fake.Count(fmt.Sprintf("POST /api/v3/repos/owner/repo/issues/%d/comments", pr)); got != 2 {
		t.Errorf("%d comments posted on #%d, want 2 (one a command)", got, pr)
	}
}
