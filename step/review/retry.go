package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A Policy bounds the retries of a request that failed transiently: in
// count and in total time waited, so a run never hangs on a broken server.
type Policy struct {
	Attempts   int           // requests in all, at least 1
	Backoff    time.Duration // wait before the second attempt; doubled each time after
	MaxBackoff time.Duration // cap on one wait computed by backoff (Retry-After may ask for more); 0: MaxWait
	MaxWait    time.Duration // cap on the total time spent waiting between attempts; 0 allows no wait, so no retry after a nonzero backoff
}

// DefaultPolicy is the policy of 'patchbot post' unless configured.
var DefaultPolicy = Policy{Attempts: 5, Backoff: time.Second, MaxBackoff: 30 * time.Second, MaxWait: 2 * time.Minute}

// A failure is what the retry loop needs to know of an error.
type failure struct {
	transient bool
	after     time.Duration // how long the server asked us to wait (Retry-After)
	status    int           // HTTP status; 0 when there was none
	detail    string        // one line: the server's answer or the transport error

	// interrupted is set when the caller's context ended the run before
	// any failure worth reporting: the caller's doing, not the server's.
	interrupted bool
}

// run calls op until it succeeds, fails permanently, or the policy is
// exhausted, and returns the number of calls. classify says which errors are
// worth another attempt. notify, if not nil, hears of each retry.
func (p Policy) run(ctx context.Context, classify func(error) failure, notify func(f failure, wait time.Duration, attempt int), op func(context.Context) error) (int, failure, error) {
	attempts := max(p.Attempts, 1)
	var waited time.Duration
	var last failure // the last transient failure, for a deadline that ends the run
	for i := 1; ; i++ {
		err := op(ctx)
		if err == nil {
			return i, failure{}, nil
		}
		if ctx.Err() != nil {
			return i, outOfTime(ctx, last), ctx.Err()
		}
		f := classify(err)
		if !f.transient || i >= attempts {
			return i, f, err
		}
		last = f
		wait := p.backoff(i)
		if f.after > wait {
			wait = f.after
		}
		if waited+wait > p.MaxWait {
			if f.after > 0 {
				f.detail = join(f.detail, fmt.Sprintf("the server asked to wait %v, more than the %v left to wait", f.after.Round(time.Second), (p.MaxWait-waited).Round(time.Millisecond)))
			}
			return i, f, err
		}
		// A caller's deadline bounds the retries too: an attempt that
		// would start after it is not made, and the failure is said
		// now rather than as a timeout later.
		if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
			f.detail = join(f.detail, fmt.Sprintf("the deadline is %v away, too soon to retry", time.Until(d).Round(time.Millisecond)))
			return i, f, err
		}
		if notify != nil {
			notify(f, wait, i+1)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return i, outOfTime(ctx, last), ctx.Err()
		case <-t.C:
		}
		waited += wait
	}
}

// outOfTime returns the failure of a run whose context ended. A deadline
// is a budget of time, so when it ran out after a failed attempt, that
// failure is the news (a 503 said three times), not the deadline. Any
// other end of the context (Ctrl-C), or a deadline before any failure, is
// an interruption.
func outOfTime(ctx context.Context, last failure) failure {
	if last.transient && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		last.detail = join(last.detail, "then the time ran out")
		return last
	}
	return failure{detail: ctx.Err().Error(), interrupted: true}
}

// join joins two parts of a failure's detail.
func join(detail, more string) string {
	if detail == "" {
		return more
	}
	return detail + "; " + more
}

// retry runs fn under o's policy, logging each retry as one line that
// names the server, the target and the operation, and turns the final
// error into an *Error whose Hint is hintFor of the last failure. It
// returns the number of calls of fn.
func (o *Options) retry(ctx context.Context, server, target, op string, classify func(error) failure, hintFor func(failure) string, fn func(context.Context) error) (int, error) {
	// Since every write looks before it writes, a second run cannot
	// double what an interrupted one may have sent.
	return o.attempt(ctx, server, target, op, classify, hintFor, "nothing more was sent; run it again to finish: what is already there is not posted twice", fn)
}

// retryRead is retry for a request that changes nothing, such as the
// reads of freeze's live signals: interrupted, it has nothing to advise.
func (o *Options) retryRead(ctx context.Context, server, target, op string, classify func(error) failure, hintFor func(failure) string, fn func(context.Context) error) error {
	_, err := o.attempt(ctx, server, target, op, classify, hintFor, "", fn)
	return err
}

// attempt is retry and retryRead, with the hint of an interrupted request.
func (o *Options) attempt(ctx context.Context, server, target, op string, classify func(error) failure, hintFor func(failure) string, interruptedHint string, fn func(context.Context) error) (int, error) {
	p := o.policy()
	notify := func(f failure, wait time.Duration, attempt int) {
		o.logf("%s: %s: %s: %s; retrying in %v (attempt %d of %d)", server, target, op, describe(f), wait.Round(time.Millisecond), attempt, p.Attempts)
	}
	n, f, err := p.run(ctx, classify, notify, fn)
	if err == nil {
		return n, nil
	}
	if f.interrupted {
		// Interrupted (Ctrl-C), or out of time before any answer: not
		// the server's fault, so no advice about the server.
		detail := "interrupted (" + context.Cause(ctx).Error() + ")"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			detail = "out of time (" + context.Cause(ctx).Error() + ")"
		}
		return n, &Error{Server: server, Target: target, Op: op, Detail: detail, Hint: interruptedHint, Attempts: n, Err: err}
	}
	return n, &Error{Server: server, Target: target, Op: op, Status: f.status, Detail: f.detail, Hint: hintFor(f), Attempts: n, Transient: f.transient, RetryAfter: f.after, Err: err}
}

// backoff returns the wait after the i'th failed attempt: Backoff doubled
// i-1 times, capped at MaxBackoff (or, without one, at MaxWait, past which
// run would not wait anyway), with up to a quarter of jitter so that
// clients that failed together do not retry together.
func (p Policy) backoff(i int) time.Duration {
	limit := p.MaxBackoff
	if limit <= 0 {
		limit = p.MaxWait
	}
	d := p.Backoff
	for ; i > 1 && d < limit; i-- {
		d *= 2
	}
	if limit > 0 && d > limit {
		d = limit
	}
	if d > 0 {
		d += rand.N(d/4 + 1)
	}
	return d
}

// classifyHTTP classifies an HTTP answer: 5xx, 408 and 429 are transient,
// other statuses are not.
func classifyHTTP(status int, h http.Header, body string) failure {
	return failure{
		transient: status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout,
		after:     retryAfter(h, time.Now()),
		status:    status,
		detail:    errorLine(body),
	}
}

// classifyTransport classifies an error that came without an HTTP answer.
// Broken connections and timeouts are transient: the request may or may not
// have reached the server, which is why posters read before they write.
func classifyTransport(err error) failure {
	f := failure{detail: transportDetail(err)}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded):
		f.transient = true
	}
	return f
}

// transportDetail describes a transport error without its URL, which is
// said elsewhere in the message (and could carry a user name).
func transportDetail(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return errorLine(err.Error())
}

// retryAfter returns the wait a Retry-After header asks for, in seconds or
// as an HTTP date; 0 when there is none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// describe says what a failure was, in a few words.
func describe(f failure) string {
	if f.status != 0 {
		return fmt.Sprintf("%d %s", f.status, strings.ToLower(http.StatusText(f.status)))
	}
	return f.detail
}
