//go:build unix

package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hung bounds the waits of these tests: what has not happened within it
// never will.
const hung = time.Minute

// TestStop stops a git that waits on a process it started (an alias's
// shell, which started a sleep): by an interrupt on ctx, and by the
// Timeout. The error says which, and the whole process group is gone.
func TestStop(t *testing.T) {
	tests := []struct {
		name      string
		timeout   time.Duration
		interrupt bool
		want      string // ALIAS stands for the alias's setting
	}{
		{name: "interrupted", interrupt: true, want: "interrupted (test stop)"},
		{name: "timed out", timeout: 500 * time.Millisecond, want: "git -c ALIAS showpid: timed out after 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			// The shell writes the sleep's process id, then waits for
			// it: killing git alone would leave both running.
			alias := fmt.Sprintf("alias.showpid=!sleep 600 & echo $! >%s.new && mv %s.new %s && wait", pidFile, pidFile, pidFile)
			ctx, stop := context.WithCancelCause(context.Background())
			defer stop(nil)
			type result struct {
				out string
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := (&Cmd{Dir: dir, Args: []string{"-c", alias, "showpid"}, Timeout: tt.timeout}).Output(ctx)
				done <- result{out, err}
			}()

			var pid int
			readPID := func() {
				if b, err := os.ReadFile(pidFile); err == nil {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
			}
			if tt.interrupt {
				for deadline := time.Now().Add(hung); pid == 0; readPID() {
					if time.Now().After(deadline) {
						t.Fatalf("hung: the alias did not start its sleep within %v", hung)
					}
					time.Sleep(10 * time.Millisecond)
				}
				stop(errors.New("test stop"))
			}

			var r result
			select {
			case r = <-done:
			case <-time.After(hung):
				t.Fatalf("hung: Output did not return within %v of the stop", hung)
			}
			e, ok := errors.AsType[*Error](r.err)
			if !ok {
				t.Fatalf("err = %v (%T), want an *Error", r.err, r.err)
			}
			if got, want := e.Error(), strings.Replace(tt.want, "ALIAS", alias, 1); got != want {
				t.Errorf("error = %q, want %q", got, want)
			}
			if (e.Interrupted != nil) != tt.interrupt || (e.Timeout != 0) != (tt.timeout != 0) {
				t.Errorf("Interrupted, Timeout = %v, %v; want one of them, as the stop was", e.Interrupted, e.Timeout)
			}
			if e.ExitCode != -1 {
				t.Errorf("ExitCode = %d, want -1 (killed)", e.ExitCode)
			}
			// A timeout may come before the sleep starts; then there is
			// nothing left to look for.
			readPID()
			for deadline := time.Now().Add(hung); pid != 0 && alive(pid); {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the sleep git's alias started (pid %d) is still running %v after the stop: the process group was not killed", pid, hung)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// alive reports whether process pid runs: it exists, and is not a zombie
// waiting to be reaped.
func alive(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// The state follows the program's name, in parentheses.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			return b[i+2] != 'Z'
		}
		return true
	}
	return syscall.Kill(pid, 0) == nil
}
