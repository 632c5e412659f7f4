package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/sandbox"
)

// command returns a BenchCommand running the system program name with
// args in the sandbox, writing in a directory of its own.
func command(t *testing.T, name string, args ...string) (*benchrun.Command, *bytes.Buffer) {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	return &benchrun.Command{
		Kind: benchrun.BenchCommand, Side: "new", Path: path, Args: args, Dir: dir,
		TempDir: dir, Writes: []string{dir}, Reads: []string{path},
		Stdout: &out, Stderr: &out,
	}, &out
}

// TestRunErrors: each way a sandboxed program ends is reported as
// benchrun's Runners must report it.
func TestRunErrors(t *testing.T) {
	s := newSandbox(t, sandbox.Limits{Output: 64 << 10})
	for _, tc := range []struct {
		name    string
		prog    []string
		timeout time.Duration
		check   func(err error) bool
		want    string
	}{
		{"success", []string{"true"}, 0, func(err error) bool { return err == nil }, "nil"},
		{"exit code", []string{"sh", "-c", "exit 3"}, 0, func(err error) bool {
			var ee *exec.ExitError
			return errors.As(err, &ee) && ee.ExitCode() == 3
		}, "an *exec.ExitError with code 3"},
		{"timeout", []string{"sleep", "60"}, 300 * time.Millisecond, func(err error) bool {
			return errors.Is(err, benchrun.ErrTimedOut)
		}, "ErrTimedOut"},
		{"output", []string{"yes"}, time.Minute, func(err error) bool {
			return errors.Is(err, benchrun.ErrLimit) && strings.Contains(err.Error(), "more than 64 KiB of output")
		}, "ErrLimit for the output"},
		{"not a file it reads", nil, 0, func(err error) bool {
			return err != nil && strings.Contains(err.Error(), "not among the files the command reads")
		}, "a refusal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *benchrun.Command
			var out *bytes.Buffer
			if tc.prog == nil {
				c, out = command(t, "true")
				c.Reads = nil
			} else {
				c, out = command(t, tc.prog[0], tc.prog[1:]...)
			}
			c.Timeout = tc.timeout
			// The limits show in the errors they cause (a program run
			// to its end, sleep 60 or yes under a minute's timeout,
			// would give another), not in the clock. Each program ends
			// within a minute even without its limit, so Run still
			// running after two minutes is a hang.
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- s.Run(t.Context(), c) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("Run hung: %v did not return within two minutes", tc.prog)
			}
			t.Logf("Run returned after %v: %v", time.Since(start).Round(time.Millisecond), err)
			if !tc.check(err) {
				t.Errorf("Run: %v, want %s; output %q", err, tc.want, firstBytes(out))
			}
		})
	}
}

// TestRunCancel: cancelling the context stops the program at once.
func TestRunCancel(t *testing.T) {
	s := newSandbox(t, sandbox.Limits{})
	c, _ := command(t, "sleep", "60")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, c) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run after cancel: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run hung: it did not return within a minute of the cancel")
	}
	if n := sleepers(); n > 0 {
		t.Errorf("%d sleep processes left", n)
	}
}

func firstBytes(b *bytes.Buffer) string {
	s, _ := io.ReadAll(io.LimitReader(b, 200))
	return string(s)
}
