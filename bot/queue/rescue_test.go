package queue

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The dying worker's settings, and the rescuing queue's: a job may run 1 s
// and is taken for dead after 2 s, where the defaults say 30 and 35
// minutes.
var rescueOpts = Options{Timeout: time.Second, RescueAfter: 2 * time.Second}

const dyingEnv = "PATCHBOT_QUEUE_TEST_DYING_DB"

// TestRescueDeadProcess runs a job in a separate process that is killed
// (SIGKILL) while the job runs, the way a machine loses a worker: no
// Stop, no deferred code, the job left "running" in the database. A new
// queue on the same file must take it for dead after the rescue delay and
// run it again, once.
//
// The killed process was River's leader, so the new queue first waits for
// its leadership to lapse (River's leader TTL, about 15 s) before its
// rescuer runs: this test takes some 20 s.
func TestRescueDeadProcess(t *testing.T) {
	if path := os.Getenv(dyingEnv); path != "" {
		dyingWorker(t, path)
		return
	}
	t.Parallel()
	path := dbURL(t)
	q := open(t, path, Options{})
	id := insert(t, q, args("1")).ID
	if err := q.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}

	// The dying worker: this test binary again, in dyingWorker.
	cmd := exec.Command(os.Args[0], "-test.run=^TestRescueDeadProcess$", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), dyingEnv+"="+path)
	cmd.Stderr = t.Output()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "running ") {
				lines <- sc.Text()
			}
		}
		close(lines)
	}()
	// A closed channel (the process ended) gives "".
	if line := recv(t, lines, "word from the dying worker that it runs the job"); line != fmt.Sprintf("running %d 1", id) {
		t.Fatalf("dying worker says %q; want running %d 1", line, id)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	var runs atomic.Int32
	done := make(chan *Job, 10)
	opts := rescueOpts
	opts.Handler = func(ctx context.Context, j *Job) error {
		runs.Add(1)
		done <- j
		return nil
	}
	q = open(t, path, opts)
	if info, _ := jobInfo(t, q, id); info.State != "running" || info.Attempt != 1 {
		t.Fatalf("job after its process died: %+v; want still running, attempt 1", info)
	}
	start(t, q)
	j := recv(t, done, "rescued job")
	if j.ID != id || j.Attempt != 2 {
		t.Errorf("rescued run is job %d attempt %d; want %d attempt 2", j.ID, j.Attempt, id)
	}
	info := waitState(t, q, id, "completed")
	if info.Attempt != 2 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "rescued") {
		t.Errorf("rescued job: %+v; want 2 attempts, the first's error from River's rescuer", info)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the new queue ran the job %d times; want once", n)
	}
}

// dyingWorker is the process TestRescueDeadProcess kills: it works the
// queue at path with a handler that says which job it runs and then never
// returns, not even when the job's context ends.
func dyingWorker(t *testing.T, path string) {
	opts := rescueOpts
	opts.Handler = func(ctx context.Context, j *Job) error {
		fmt.Printf("running %d %d\n", j.ID, j.Attempt)
		select {}
	}
	q, err := Open(context.Background(), path, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {}
}
