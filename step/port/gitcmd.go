package port

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// gitCommand returns a command running the real git in dir, with LC_ALL=C so
// that its messages can be read, and the extra environment env. The port
// shells out to git for what must follow git's own locking: ref updates
// (lockfile, compare-and-swap, reflog), the checkout (index.lock, refusing
// to overwrite files) and finding the repository's directories (linked
// worktrees, bare repositories, GIT_DIR). The child runs in a process group
// of its own (see sysproc_*.go), so that an interrupt from the terminal
// reaches only patchbot, which then decides how to stop: a git killed in
// the middle of a ref transaction would leave the port half done.
func gitCommand(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "LC_ALL=C"), env...)
	ownProcessGroup(cmd)
	return cmd
}

// git runs git in dir and returns its standard output without the final
// newline. A failure is an error with git's own message.
func git(dir string, args ...string) (string, error) {
	return gitIn(dir, nil, nil, args...)
}

// gitIn is git with extra environment and a standard input.
func gitIn(dir string, env []string, stdin io.Reader, args ...string) (string, error) {
	cmd := gitCommand(dir, env, args...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &gitError{args: args, msg: gitMessage(stderr.String(), err)}
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// A gitError is a git command that failed, with what git said.
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), e.msg)
}

// gitMessage returns git's message from its standard error (its last
// lines, without "fatal: " and "error: "), or err when it said nothing.
func gitMessage(stderr string, err error) string {
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

// ctxErr is the error of a port stopped because ctx is done.
func ctxErr(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return &InterruptedError{Err: context.Cause(ctx)}
}

// An InterruptedError is a port stopped by its context (an interrupt)
// before it changed anything.
type InterruptedError struct {
	Err error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted (%v): nothing was written, the repository is as it was", e.Err)
}

func (e *InterruptedError) Unwrap() error { return e.Err }
