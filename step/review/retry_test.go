package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"7", 7 * time.Second},
		{"Mon, 30 Nov 2026 09:00:30 GMT", 30 * time.Second},
		{"Mon, 30 Nov 2026 08:00:00 GMT", 0}, // in the past
		{"soon", 0},
		{"-3", 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.v != "" {
			h.Set("Retry-After", tt.v)
		}
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err       error
		status    int
		transient bool
	}{
		{&url.Error{Op: "Post", URL: "http://x", Err: io.EOF}, 0, true},
		{&url.Error{Op: "Post", URL: "http://x", Err: syscall.ECONNRESET}, 0, true},
		{&url.Error{Op: "Get", URL: "http://x", Err: syscall.ECONNREFUSED}, 0, true},
		{fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), 0, true},
		{errors.New("x509: certificate signed by unknown authority"), 0, false},
	}
	for _, tt := range tests {
		f := classifyTransport(tt.err)
		if f.status != tt.status || f.transient != tt.transient {
			t.Errorf("classifyTransport(%v) = %+v, want transient=%v", tt.err, f, tt.transient)
		}
	}
	for status, transient := range map[int]bool{400: false, 401: false, 403: false, 404: false, 409: false, 422: false,
		408: true, 429: true, 500: true, 502: true, 503: true, 504: true} {
		if f := classifyHTTP(status, http.Header{}, ""); f.transient != transient {
			t.Errorf("classifyHTTP(%d).transient = %v, want %v", status, f.transient, transient)
		}
		e := &Error{Status: status}
		if e.Permanent() == transient {
			t.Errorf("Error{Status: %d}.Permanent() = %v", status, e.Permanent())
		}
		if e := (&Error{Status: status, Transient: true}); e.Permanent() {
			t.Errorf("Error{Status: %d, Transient: true}.Permanent() = true", status)
		}
	}
}

// TestPolicyBounds checks that retries stop at the policy's count and
// total wait, and that a Retry-After beyond the wait left ends them at once.
func TestPolicyBounds(t *testing.T) {
	transient := func(after time.Duration) func(error) failure {
		return func(error) failure { return failure{transient: true, status: 503, after: after} }
	}
	tests := []struct {
		name     string
		p        Policy
		classify func(error) failure
		want     int // calls
	}{
		{"count", Policy{Attempts: 3, Backoff: time.Microsecond, MaxWait: time.Second}, transient(0), 3},
		{"one attempt", Policy{Attempts: 1, Backoff: time.Microsecond, MaxWait: time.Second}, transient(0), 1},
		{"Retry-After past MaxWait", Policy{Attempts: 5, Backoff: time.Microsecond, MaxWait: time.Second}, transient(time.Hour), 1},
		{"MaxWait", Policy{Attempts: 100, Backoff: 2 * time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxWait: 3 * time.Millisecond}, transient(0), 2},
		{"permanent", Policy{Attempts: 5, Backoff: time.Microsecond, MaxWait: time.Second}, func(error) failure { return failure{status: 404} }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			n, _, err := tt.p.run(context.Background(), tt.classify, nil, func(context.Context) error {
				calls++
				return errors.New("fail")
			})
			if err == nil || n != tt.want || calls != tt.want {
				t.Errorf("run = %d calls (reported %d), %v; want %d calls and an error", calls, n, err, tt.want)
			}
		})
	}
}

func TestPolicyCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := Policy{Attempts: 5, Backoff: time.Hour, MaxBackoff: time.Hour, MaxWait: 10 * time.Hour}
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	go func() {
		defer wg.Done()
		_, _, err = p.run(ctx, func(error) failure { return failure{transient: true} }, func(failure, time.Duration, int) { cancel() },
			func(context.Context) error { return errors.New("fail") })
	}()
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("run after cancel = %v, want context.Canceled", err)
	}
}

func TestBackoffGrows(t *testing.T) {
	p := Policy{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for i, lo := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		lo *= time.Millisecond
		if d := p.backoff(i + 1); d < lo || d > lo+lo/4 {
			t.Errorf("backoff(%d) = %v, want %v plus up to a quarter", i+1, d, lo)
		}
	}
}

// TestBackoffWithoutCap: without MaxBackoff the wait still doubles, up to
// MaxWait.
func TestBackoffWithoutCap(t *testing.T) {
	p := Policy{Backoff: 100 * time.Millisecond, MaxWait: time.Second}
	for i, lo := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		lo *= time.Millisecond
		if d := p.backoff(i + 1); d < lo || d > lo+lo/4 {
			t.Errorf("backoff(%d) = %v, want %v plus up to a quarter", i+1, d, lo)
		}
	}
}

// TestRetryInterrupted checks that an interrupted retry says so, with its
// cause, and no advice about the server, which did nothing wrong.
func TestRetryInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	o := &Options{Policy: Policy{Attempts: 5, Backoff: time.Hour, MaxBackoff: time.Hour, MaxWait: 10 * time.Hour}}
	_, err := o.retry(ctx, "Gerrit http://127.0.0.1:1", "change 12", "reading the change", classifyTransport,
		func(failure) string { return "check that the server URL is right and reachable, then try again" },
		func(context.Context) error {
			cancel(errors.New("interrupt signal received"))
			return syscall.ECONNREFUSED
		})
	want := "Gerrit http://127.0.0.1:1: change 12: reading the change: interrupted (interrupt signal received); nothing more was sent; run it again to finish: what is already there is not posted twice"
	if err == nil || err.Error() != want {
		t.Errorf("retry = %v\nwant %s", err, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("retry = %v, want it to wrap context.Canceled", err)
	}
}

// TestRetryDeadline checks that retries stay within the caller's deadline
// and that a run the deadline ends reports what the server said, when it
// said anything.
func TestRetryDeadline(t *testing.T) {
	o := &Options{Policy: Policy{Attempts: 100, Backoff: time.Hour, MaxBackoff: time.Hour, MaxWait: 10 * time.Hour}}
	unavailable := func(error) failure {
		return failure{transient: true, status: http.StatusServiceUnavailable, detail: "down"}
	}
	noHint := func(failure) string { return "" }

	// A backoff past the deadline: no wait, no second attempt. Had it
	// waited, the deadline would have ended the wait, and the error
	// would say the time ran out instead of too soon to retry.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	calls := 0
	err := o.retryRead(ctx, "GitHub http://x/", "repository a/b", "listing", unavailable, noHint, func(context.Context) error {
		calls++
		return errors.New("503")
	})
	if calls != 1 {
		t.Errorf("with a backoff past the deadline: %d calls, want 1", calls)
	}
	if e, ok := errors.AsType[*Error](err); !ok || e.Status != 503 || !strings.Contains(e.Detail, "down; the deadline is ") || !strings.Contains(e.Detail, "too soon to retry") {
		t.Errorf("with a backoff past the deadline: %v", err)
	}

	// The deadline cuts the second attempt: the first one's 503 is the news.
	// The deadline comes when the second attempt says, not on a clock
	// that a slow machine could let pass before the first retry.
	o.Policy = Policy{Attempts: 100, Backoff: time.Millisecond, MaxWait: time.Hour}
	dctx := newDeadlineCtx(time.Hour)
	calls = 0
	err = o.retryRead(dctx, "GitHub http://x/", "repository a/b", "listing", unavailable, noHint, func(ctx context.Context) error {
		if calls++; calls == 1 {
			return errors.New("503")
		}
		dctx.expire()
		return ctx.Err()
	})
	want := "GitHub http://x/: repository a/b: listing: 503 Service Unavailable (down; then the time ran out), after 2 attempts"
	if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cut by the deadline: %v\nwant %s", err, want)
	}

	// No answer at all before the deadline: out of time, and a read has
	// nothing to advise.
	ctx, cancel = context.WithTimeoutCause(context.Background(), 10*time.Millisecond, errors.New("limit 10ms"))
	defer cancel()
	err = o.retryRead(ctx, "GitHub http://x/", "repository a/b", "listing", unavailable, noHint, func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	want = "GitHub http://x/: repository a/b: listing: out of time (limit 10ms)"
	if err == nil || err.Error() != want {
		t.Errorf("no answer: %v\nwant %s", err, want)
	}
}

// A deadlineCtx is a context whose deadline is distant, but which a test
// ends as if it had come, with context.DeadlineExceeded: a deadline at
// the moment the test chooses, whatever the speed of the machine.
type deadlineCtx struct {
	context.Context // for Value: none
	deadline        time.Time
	done            chan struct{}
	once            sync.Once
}

func newDeadlineCtx(d time.Duration) *deadlineCtx {
	return &deadlineCtx{Context: context.Background(), deadline: time.Now().Add(d), done: make(chan struct{})}
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *deadlineCtx) Done() <-chan struct{}       { return c.done }

func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// expire ends c as its deadline would.
func (c *deadlineCtx) expire() { c.once.Do(func() { close(c.done) }) }
