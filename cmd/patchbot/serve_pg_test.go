package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	ds := make([]delivery, len(cases))
	want := map[string]loadCase{}
	for i, c := range cases {
		ds[i] = c.d
		if c.job != "" {
			want[c.job] = c
		}
	}

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
		// GitHub's redelivery, once the database is back.
		for try := 0; ; try++ {
			status, text, err := f.post(ds[i])
			if err == nil && status/100 != 5 {
				break
			}
			if try == 50 {
				t.Fatalf("delivery %s: still %d %s (%v) after PostgreSQL came back", ds[i].id, status, text, err)
			}
			time.Sleep(200 * time.Millisecond)
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
