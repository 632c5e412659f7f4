package work

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/sandbox"
)

// TestClassify: an error that is a property of the job (its request, its
// review's answer, the server's configuration) cancels the job, so that
// it fails at once with one reply; one of the moment (a 5xx, a broken
// connection, a rate limit, even one GitHub answers with a 403, a
// timeout, a sandbox that did not start, a process killed, a benchmark
// that failed) leaves it to the queue's retries, so that its reply is
// posted once the moment has passed.
func TestClassify(t *testing.T) {
	// As job.Run returns a step's error: wrapped in the step's.
	step := func(err error) error { return &job.StepError{Step: job.StepBench, Err: err} }
	for _, tt := range []struct {
		name      string
		err       error
		permanent bool
	}{
		// The review's answers.
		{"gone", &review.Error{Status: http.StatusNotFound}, true},
		{"forbidden", &review.Error{Status: http.StatusForbidden}, true},
		{"rate limited", &review.Error{Status: http.StatusForbidden, Transient: true}, false},
		{"rate limited, wrapped", fmt.Errorf("post: %w", &review.Error{Status: http.StatusForbidden, Transient: true}), false},
		{"too many requests", &review.Error{Status: http.StatusTooManyRequests, Transient: true}, false},
		{"unavailable", &review.Error{Status: http.StatusServiceUnavailable, Transient: true}, false},
		{"no answer", &review.Error{Detail: "EOF", Transient: true}, false},

		// The review's revision and base.
		{"a binding", &BindingError{Ref: "refs/pull/1/head"}, true},
		{"a base branch that is not one", &SourceError{What: "base branch", Value: "a..b", Reason: "is not a valid branch name"}, true},
		{"a base branch not in the repository", &SourceError{What: "base branch", Value: "nosuch", Reason: "does not exist"}, true},
		{"a commit that is not a hash", &SourceError{What: "commit", Value: "abc"}, true},

		// The request.
		{"a field", &remedy.FieldError{Field: "bench.count", Value: "0"}, true},
		{"an option", step(&remedy.FieldError{Field: "onto", Value: "nosuch"}), true},
		{"a package that does not exist", step(&benchrun.PackageError{Pattern: "./nosuchpkg", Rev: "HEAD", Reason: "the module has no directory ./nosuchpkg"}), true},
		{"no such revision", step(fmt.Errorf("head revision %q: %w in the repository", "nosuch", benchrun.ErrBadRevision)), true},
		{"a -bench that matches nothing", step(fmt.Errorf("%w {bench.bench} %q in x", benchrun.ErrNoMatch, "Nosuch")), true},

		// The server's configuration and credentials.
		{"credentials", &job.SetupError{Field: "github", Err: errors.New("no token")}, true},
		{"configuration", &config.Error{File: "patchbot.yaml", Err: errors.New("bad")}, true},

		// The moment.
		{"the network", fmt.Errorf("fetching: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")}), false},
		{"a fetch", errors.New("fetching refs/pull/1/head from https://github.com/owner/repo: git fetch: exit status 128: fatal: unable to access"), false},
		{"a timeout", step(fmt.Errorf("running the benchmarks of ./w: %w: killed after 10m0s", benchrun.ErrTimedOut)), false},
		{"a deadline", step(context.DeadlineExceeded), false},
		{"killed", step(fmt.Errorf("running the benchmarks of ./w: %w", benchrun.ErrLimit)), false},
		{"the sandbox", step(&sandbox.SetupError{Err: errors.New("bwrap: setting up uid map: Permission denied")}), false},
		{"a side that does not build", step(errors.New("new side (HEAD, 0123456789ab): ./w does not build; fix it or pick another revision")), false},
		{"no benchmark results", step(errors.New("no benchmark results: new side, example.com/w: exit status 1")), false},
	} {
		if got := queue.IsPermanent(classify(tt.err)); got != tt.permanent {
			t.Errorf("%s: classify(%v) permanent = %v, want %v", tt.name, tt.err, got, tt.permanent)
		}
	}
}
