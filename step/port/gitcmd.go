package port

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/internal/gitexec"
)

// gitCommand returns the git command args in dir, with the extra environment
// env. The port shells out to git for what must follow git's own locking:
// ref updates (lockfile, compare-and-swap, reflog), the checkout
// (index.lock, refusing to overwrite files) and finding the repository's
// directories (linked worktrees, bare repositories, GIT_DIR). So git runs
// in the process's environment (gitexec.Inherit), as the user's git would,
// and without a context: gitexec gives it a process group of its own, so
// that an interrupt from the terminal reaches only patchbot, which then
// decides how to stop; a git killed in the middle of a ref transaction
// would leave the port half done.
func gitCommand(dir string, env []string, args ...string) *gitexec.Cmd {
	return &gitexec.Cmd{Dir: dir, Args: args, ExtraEnv: env}
}

// git runs git in dir and returns its standard output without the final
// newline. A failure is an error with git's own message.
func git(dir string, args ...string) (string, error) {
	return gitIn(dir, nil, nil, args...)
}

// gitIn is git with extra environment and a standard input.
func gitIn(dir string, env []string, stdin io.Reader, args ...string) (string, error) {
	c := gitCommand(dir, env, args...)
	c.Stdin = stdin
	out, err := c.Output(context.Background())
	if err != nil {
		e := err.(*gitexec.Error)
		return "", &gitError{args: args, msg: gitexec.Message(e.Stderr, e.Err)}
	}
	return strings.TrimSuffix(out, "\n"), nil
}

// A gitError is a git command that failed, with what git said
// (gitexec.Message).
type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), e.msg)
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
