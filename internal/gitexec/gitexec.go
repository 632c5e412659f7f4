// Package gitexec runs git, the program. It is the one place patchbot
// starts git, so that every git it runs gets the same policy: an
// environment chosen from three (Env), messages in English, no prompt on
// the terminal, a process group of its own that a stop on the caller's
// context kills whole, an optional timeout, and one error type.
//
// Patchbot shells out to git where it must do what git does: ref updates
// under git's locks, checkouts, fetches, clones, the committer identity
// and the settings of the user's configuration. Everything else it reads
// and writes with go-git.
//
// What a caller says about a failure stays the caller's: an *Error holds
// git's arguments, standard error and exit code, and whether git was
// stopped, so that a caller can word its own message from them.
package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/patchbot/patchbot/internal/procgroup"
)

// An Env is the environment a git command runs in: what configuration
// and credentials it sees. Every Env also has LC_ALL=C, so that git's
// messages, which callers read (a lock file that exists) and show, are in
// English, and GIT_TERMINAL_PROMPT=0, so that a git asking for a password
// fails instead of waiting for a terminal that patchbot does not give it.
type Env int

const (
	// Inherit is the process's environment: the user's and the system's
	// git configuration, HOME, credential helpers and the GIT_* variables
	// (GIT_DIR, GIT_COMMITTER_NAME...). It is for commands on the user's
	// own repository, which must behave as the user's git does there:
	// the port, its committer identity, the dry run's clone, the cookie
	// file the user's configuration names.
	Inherit Env = iota

	// NoUserConfig is the process's environment without the user's and
	// the system's configuration files. It is for repositories patchbot
	// makes itself, such as the built-in example, whose commits a signing
	// or hook setting there must not change.
	NoUserConfig

	// Anonymous is PATH and the proxy variables of the process only: no
	// HOME (so no ~/.gitconfig, credential helper or ~/.gitcookies), no
	// configuration file, no askpass program and no GIT_* variable. It is
	// for fetching repositories a review names: no credential of the
	// machine may go to a URL that a stranger chose, and a public
	// repository needs none.
	Anonymous
)

// anonymousVars are the variables of the process that an Anonymous git
// keeps: where to find programs, and how to reach the network.
var anonymousVars = []string{"PATH", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// environ returns the environment of a git command with e.
func environ(e Env) []string {
	var env []string
	switch e {
	case Inherit:
		env = os.Environ()
	case NoUserConfig:
		env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	case Anonymous:
		for _, k := range anonymousVars {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
		env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
			"HOME="+os.DevNull, "GIT_ASKPASS=", "SSH_ASKPASS=")
	default:
		panic(fmt.Sprintf("gitexec: unknown Env %d", e))
	}
	return append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}

// waitDelay bounds how long a git that has exited, or been stopped, may
// leave its output open through something it started (a remote or
// credential helper): patchbot then stops waiting for it.
const waitDelay = 5 * time.Second

// A Cmd is a git command to run.
type Cmd struct {
	Dir  string   // the directory git runs in; "" for the process's
	Args []string // git's arguments, without "git"
	Env  Env      // the environment policy; Inherit when not set

	// ExtraEnv is added to Env's variables, after them: the object
	// directory of a quarantine, the author of a commit.
	ExtraEnv []string

	// Stdin is git's standard input; nil for none.
	Stdin io.Reader

	// Timeout, when not zero, bounds the command's time: git is then
	// stopped as when ctx is done, and the error says that it timed out.
	// A fetch from a server that stopped answering would otherwise hold
	// its job for ever.
	Timeout time.Duration
}

// Output runs the command and returns what git wrote to its standard
// output, as it wrote it (callers trim what they read as one line). A
// failure is an *Error, and the output is then "".
//
// Without a Timeout, and with a ctx that is never done, git runs to its
// end: the port relies on that, since a git stopped in the middle of a ref
// update would leave the port half done.
func (c *Cmd) Output(ctx context.Context) (string, error) {
	runCtx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := c.Command(runCtx)
	cmd.Stdin = c.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		e := &Error{Args: c.Args, Dir: c.Dir, Stderr: stderr.String(), ExitCode: -1, Err: err}
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			e.ExitCode = ee.ExitCode()
		}
		switch {
		case ctx.Err() != nil:
			e.Interrupted = context.Cause(ctx)
		case runCtx.Err() != nil:
			e.Timeout = c.Timeout
		}
		return "", e
	}
	return stdout.String(), nil
}

// Command returns the command that Output runs, for a caller that talks
// with git while it runs (the port's 'git update-ref --stdin'): its
// directory, environment and process group are set, and ctx being done
// kills the group. Stdin, Stdout and Stderr, Start and Wait are the
// caller's; Timeout does not apply.
//
// The process group keeps an interrupt from the terminal away from git:
// it reaches patchbot alone, which decides how to stop. Killing the group,
// not git alone, also stops what git started (a remote helper,
// index-pack, an alias's shell), which would otherwise run on and hold
// git's output open.
func (c *Cmd) Command(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(environ(c.Env), c.ExtraEnv...)
	cmd.WaitDelay = waitDelay
	procgroup.Own(cmd)
	return cmd
}

// An Error is a git command that failed or was stopped.
type Error struct {
	Args     []string // git's arguments, without "git"
	Dir      string   // the directory it ran in
	Stderr   string   // what git wrote to its standard error
	ExitCode int      // git's exit code; -1 when it did not exit by itself or did not start
	Err      error    // from os/exec: an *exec.ExitError, or why git did not start

	// Interrupted, when not nil, is why git was stopped: the cause of
	// the caller's context (context.Cause), which ended first. The
	// failure is then not git's own.
	Interrupted error

	// Timeout, when not zero, is the Cmd's Timeout, which git ran out of
	// and was stopped.
	Timeout time.Duration
}

// Error says what failed as "git ARGS: ERR: STDERR", or that git was
// interrupted or timed out. An interruption names its cause, not the
// "signal: killed" that it caused.
func (e *Error) Error() string {
	switch {
	case e.Interrupted != nil:
		return fmt.Sprintf("interrupted (%v)", e.Interrupted)
	case e.Timeout != 0:
		return fmt.Sprintf("git %s: timed out after %v", strings.Join(e.Args, " "), e.Timeout)
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Stderr))
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Message returns git's own message from its standard error: its lines
// without "fatal: " and "error: ", and without hints, joined by "; "; or
// err's text when git said nothing.
func Message(stderr string, err error) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"fatal: ", "error: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l != "" && !strings.HasPrefix(l, "hint: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return err.Error()
	}
	return strings.Join(lines, "; ")
}
