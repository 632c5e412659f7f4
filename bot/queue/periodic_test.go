package queue

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestPeriodic runs a periodic task on two queues sharing one database:
// it runs again and again, never twice at once, each run given the state
// the one before left on either queue, and never shows among the jobs;
// when the queue that ran last stops, the other goes on.
func TestPeriodic(t *testing.T) {
	t.Parallel()
	db := dbURL(t)
	var mu sync.Mutex
	var inFlight, maxInFlight, count int
	runs := [2]atomic.Int32{}
	last := make(chan int, 100)
	mk := func(i int) *Queue {
		return open(t, db, Options{Periodic: []Periodic{{Name: "poll", Every: 300 * time.Millisecond, Run: func(ctx context.Context, state []byte) ([]byte, error) {
			mu.Lock()
			inFlight++
			maxInFlight = max(maxInFlight, inFlight)
			// The state is the count of runs before, on either queue.
			n, _ := strconv.Atoi(string(state))
			if n != count {
				t.Errorf("run %d on queue %d was given the state %q, want %d", count+1, i, state, count)
			}
			count++
			mu.Unlock()
			time.Sleep(100 * time.Millisecond) // longer than River's fetch: an overlap would show
			mu.Lock()
			inFlight--
			mu.Unlock()
			runs[i].Add(1)
			select {
			case last <- i:
			default:
			}
			return []byte(strconv.Itoa(n + 1)), nil
		}}}})
	}
	qs := [2]*Queue{mk(0), mk(1)}
	for _, q := range qs {
		start(t, q)
	}
	waitRuns := func(what string, n int32, total func() int32) {
		t.Helper()
		for deadline := time.Now().Add(waitLimit); total() < n; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: hung: %d runs after %v, want %d", what, total(), waitLimit, n)
			}
		}
	}
	both := func() int32 { return runs[0].Load() + runs[1].Load() }
	waitRuns("both queues", 5, both)
	mu.Lock()
	if maxInFlight != 1 {
		t.Errorf("%d runs at once, want 1", maxInFlight)
	}
	mu.Unlock()
	if js, err := qs[0].Jobs(t.Context(), 100); err != nil || len(js) != 0 {
		t.Errorf("Jobs lists %d periodic runs (%v), want none", len(js), err)
	}

	// Stop the one that ran last (any may run a run; the leader schedules
	// them): the other one goes on.
	i := <-last
	stopped := time.Now()
	if err := qs[i].Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	other := 1 - i
	n := runs[other].Load()
	waitRuns("the queue left", n+3, func() int32 { return runs[other].Load() })
	t.Logf("after the stop, 3 more runs on the other queue in %v", time.Since(stopped).Round(100*time.Millisecond))

	// Of the runs, the database keeps the last finished one (its state)
	// and those waiting or running: not the history.
	res, err := qs[other].client.JobList(t.Context(), river.NewJobListParams().Kinds(PeriodicKind).First(1000))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Jobs); n > 3 {
		t.Errorf("%d periodic runs kept after %d runs, want at most 3", n, count)
	}
}

// TestPeriodicDeadRun: a run that never returns, as one whose process died
// mid-run stays "running" in the database until the rescuer takes it, does
// not stop the ticks after it: the runs go on, on the other queue, and get
// the state the last finished run left.
func TestPeriodicDeadRun(t *testing.T) {
	t.Parallel()
	db := dbURL(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var runs, finished int
	mk := func() *Queue {
		return open(t, db, Options{Periodic: []Periodic{{Name: "poll", Every: 2 * time.Second, Run: func(ctx context.Context, state []byte) ([]byte, error) {
			mu.Lock()
			runs++
			first := runs == 1
			mu.Unlock()
			if first {
				<-release // deaf to ctx, as a dead process is
				return nil, nil
			}
			mu.Lock()
			defer mu.Unlock()
			if n, _ := strconv.Atoi(string(state)); n != finished {
				t.Errorf("run %d was given the state %q, want %d", runs, state, finished)
			}
			finished++
			return []byte(strconv.Itoa(finished)), nil
		}}}})
	}
	qs := [2]*Queue{mk(), mk()}
	t.Cleanup(func() { close(release) }) // before the queues stop
	stuck := time.Now()
	for _, q := range qs {
		start(t, q)
	}
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := finished
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hung: %d runs finished in %v beside the stuck one, want 3: the stuck run blocks the ticks", n, waitLimit)
		}
	}
	t.Logf("3 runs finished beside the stuck one in %v", time.Since(stuck).Round(100*time.Millisecond))
}

func TestPeriodicNames(t *testing.T) {
	run := func(context.Context, []byte) ([]byte, error) { return nil, nil }
	for _, bad := range []Periodic{
		{Name: "gerrit poll", Every: time.Second, Run: run},
		{Name: "", Every: time.Second, Run: run},
		{Name: "x", Every: time.Second, Run: run},
		{Name: "ok-name", Every: 0, Run: run},
		{Name: "ok-name", Every: time.Second},
	} {
		if _, err := Open(t.Context(), "sqlite:"+t.TempDir()+"/q.db", &Options{Periodic: []Periodic{bad}}); err == nil {
			t.Errorf("Open with periodic %+v: no error", bad)
		}
	}
	if _, err := (&Options{Periodic: []Periodic{{Name: "gerrit-poll:go-review.googlesource.com", Every: time.Second, Run: run}}}).withDefaults(); err != nil {
		t.Errorf("a poll's name: %v", err)
	}
}

// TestLeader: of two queues on one database, Leader names one, the same
// from either; when it stops, the other.
func TestLeader(t *testing.T) {
	t.Parallel()
	db := dbURL(t)
	noop := []Periodic{{Name: "noop", Every: time.Minute, Run: func(context.Context, []byte) ([]byte, error) { return nil, nil }}}
	qs := [2]*Queue{open(t, db, Options{Periodic: noop}), open(t, db, Options{Periodic: noop})}
	if qs[0].ID() == qs[1].ID() {
		t.Fatalf("two queues with the ID %s", qs[0].ID())
	}
	if l, ok, err := qs[0].Leader(t.Context()); err != nil || ok {
		t.Fatalf("Leader before any queue started: %+v, %v, %v; want none", l, ok, err)
	}
	// waitLeader waits until q says that one of want leads, and returns
	// which.
	waitLeader := func(q *Queue, want ...*Queue) int {
		t.Helper()
		for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			l, ok, err := q.Leader(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range want {
				if ok && l.ID == w.ID() {
					if !l.ExpiresAt.After(l.ElectedAt) {
						t.Errorf("leader %+v: its lease expires before it was elected", l)
					}
					return i
				}
			}
		}
		t.Fatalf("hung: no leader among %d queues after %v", len(want), waitLimit)
		return 0
	}
	for _, q := range qs {
		start(t, q)
	}
	i := waitLeader(qs[0], qs[0], qs[1])
	if j := waitLeader(qs[1], qs[0], qs[1]); j != i {
		t.Errorf("queue 0 says %s leads, queue 1 says %s", qs[i].ID(), qs[j].ID())
	}
	if err := qs[i].Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitLeader(qs[1-i], qs[1-i])
}

// TestPeriodicOneAtATime: two runs waiting at once, as when the leader
// changes (the last one's tick and the new one's first), are not run at
// once: the later one, finding the earlier running, does nothing.
func TestPeriodicOneAtATime(t *testing.T) {
	t.Parallel()
	db := dbURL(t)
	release := make(chan struct{})
	var calls atomic.Int32
	mk := func() *Queue {
		return open(t, db, Options{Periodic: []Periodic{{Name: "poll", Every: time.Hour, Run: func(ctx context.Context, state []byte) ([]byte, error) {
			calls.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return []byte(`"x"`), nil
		}}}})
	}
	qs := [2]*Queue{mk(), mk()}
	for _, q := range qs {
		start(t, q)
	}
	defer close(release)
	for deadline := time.Now().Add(waitLimit); calls.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("hung: the first run never started within %v", waitLimit)
		}
	}
	// A second run, beside the first: taken by the other queue, whose
	// periodic worker is free.
	res, err := qs[0].client.Insert(t.Context(), periodicArgs{Name: "poll"}, &river.InsertOpts{Queue: PeriodicQueue, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) {
		js, err := qs[0].client.JobList(t.Context(), river.NewJobListParams().Kinds(PeriodicKind).States(rivertype.JobStateCompleted))
		if err != nil {
			t.Fatal(err)
		}
		if len(js.Jobs) == 1 && js.Jobs[0].ID == res.Job.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hung: the second run was never done within %v", waitLimit)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d runs at once, want 1", n)
	}
}
