package review

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Options are what every client of this package shares.
type Options struct {
	// DryRun makes every write print what it would do to Log and do
	// nothing. Reads still happen, so a dry run says whether a message
	// would be posted or is already there.
	DryRun bool

	// Log, if not nil, receives one line per retry and, in a dry run, per
	// write not done. It never receives credentials.
	Log io.Writer

	// Policy bounds retries; the zero Policy means DefaultPolicy.
	Policy Policy

	// Timeout bounds each HTTP request; 0 means 30s.
	Timeout time.Duration

	// GitHubLogin is patchbot's own GitHub account, the one its token
	// writes as; "" asks GitHub (GitHub.Self). Only its comments are
	// patchbot's.
	GitHubLogin string

	// Transport, if not nil, carries the HTTP requests (a proxy, or a
	// fault injector); nil means http.DefaultTransport.
	Transport http.RoundTripper
}

func (o *Options) policy() Policy {
	if o.Policy.Attempts == 0 {
		return DefaultPolicy
	}
	return o.Policy
}

func (o *Options) httpClient() *http.Client {
	return &http.Client{Timeout: o.timeout(), Transport: o.Transport}
}

func (o *Options) timeout() time.Duration {
	if o.Timeout == 0 {
		return 30 * time.Second
	}
	return o.Timeout
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// write is the one way this package changes anything on a server or on
// disk: it runs fn, or in a dry run only says what it would do. It reports
// whether fn ran.
func (o *Options) write(ctx context.Context, what string, fn func(context.Context) error) (bool, error) {
	if o.DryRun {
		o.logf("would %s", what)
		return false, nil
	}
	return true, fn(ctx)
}
