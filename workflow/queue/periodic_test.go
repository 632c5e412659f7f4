package queue

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPeriodic runs a periodic task on two queues sharing one database:
// it runs again and again, never twice at once, and never shows among the
// jobs; when the queue whose process leads stops, the other takes the
// schedule over.
func TestPeriodic(t *testing.T) {
	t.Parallel()
	db := dbURL(t)
	var mu sync.Mutex
	var inFlight, maxInFlight int
	runs := [2]atomic.Int32{}
	last := make(chan int, 100)
	mk := func(i int) *Queue {
		return open(t, db, Options{Periodic: []Periodic{{Name: "poll", Every: 300 * time.Millisecond, Run: func(ctx context.Context) error {
			mu.Lock()
			inFlight++
			maxInFlight = max(maxInFlight, inFlight)
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
			return nil
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
				t.Fatalf("%s: %d runs after %v, want %d", what, total(), waitLimit, n)
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
}
