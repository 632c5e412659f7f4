package benchrun

import (
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

// A Runner runs the processes that Run starts: 'go list' on the new side,
// 'go test -c' once per side and package, and every run of a test binary.
// They build and run the code under test, which may be someone else's
// patch: a Runner is where a sandbox wraps them. Run's own work (reading
// Git, writing the checkouts, the statistics) stays in the caller's
// process, with its credentials.
//
// A Runner's Run method starts c, waits for it, and returns its error.
// It must:
//
//   - kill the whole process tree, not only c's own process, when ctx is
//     done or when c.Timeout has passed, and wait until it is gone before
//     returning: Run then removes the directories those processes write
//     in, and a leftover child would weigh on the next benchmark;
//   - have stopped writing to c.Stdout and c.Stderr when it returns;
//   - give the process c.Env, not its own environment: it may change
//     or remove variables (a sandbox points GOCACHE at a cache of its
//     own), never add a credential;
//   - return an *exec.ExitError only when the program itself ran and
//     failed (a package that does not build, a benchmark that failed),
//     an error wrapping ErrTimedOut for a process it killed on c.Timeout,
//     one wrapping ErrLimit for one killed on another limit of its own,
//     and any other error when it did not run the program to its end:
//     refused it, or could not start it. benchrun.Run reports the first
//     two as the program's failure (a build error, a failed benchmark
//     run), and stops on the last, quoting the error.
//
// A Runner may refuse a Command by returning an error without starting
// anything. One that wraps the command in another program (bwrap, with
// bind mounts from c.Writes and c.Reads, a network namespace, rlimits, a
// cgroup) can run the wrapped Command through Direct, which does the rest.
type Runner interface {
	Run(ctx context.Context, c *Command) error
}

// A RunnerFunc is a function that is a Runner.
type RunnerFunc func(ctx context.Context, c *Command) error

// Run calls f(ctx, c).
func (f RunnerFunc) Run(ctx context.Context, c *Command) error { return f(ctx, c) }

// A CommandKind says what a Command is for.
type CommandKind string

const (
	ListCommand  CommandKind = "list"  // 'go list -json' of the packages, on the new side
	BuildCommand CommandKind = "build" // 'go test -c' of one package on one side
	BenchCommand CommandKind = "bench" // one run of a test binary
)

// A Command is one process for a Runner to run: what to run, where, with
// what, and what it may touch, all of it decided by Run.
type Command struct {
	Kind    CommandKind
	Side    string // "old" or "new"
	Package string // the import path; "" for ListCommand

	Path string   // the program: "go", looked up in Env's PATH, or a test binary's absolute path
	Args []string // its arguments, without the program's name
	Dir  string   // its working directory

	// Env is the process's whole environment, already cleaned: the
	// caller's less every variable that looks like a credential (see
	// credentialName), with TMPDIR and GOTMPDIR set to TempDir.
	Env []string

	// TempDir is the process's temporary directory, inside Run's own,
	// which Run removes when it returns: what a killed process leaves
	// there goes with it.
	TempDir string

	// Writes are the directories the process writes in, TempDir first;
	// Reads are the files and directories of Run's that it only reads.
	// For ListCommand, the side's checkout is read and TempDir written;
	// for BuildCommand, the checkout is read, and the directory of the
	// test binaries written; for BenchCommand, the test binary is read,
	// and the side's checkout is written (a benchmark may write beside
	// its sources, as tests do). Neither lists the system, the Go
	// toolchain or the go command's caches (GOCACHE, GOMODCACHE), which
	// the go command finds for itself: whether a process shares the
	// user's is the Runner's choice.
	Writes []string
	Reads  []string

	// Stdout and Stderr receive the process's output. They are never
	// nil, and may be the same writer, in which case the process must
	// get one pipe for both so that the lines keep their order (as
	// os/exec does).
	Stdout, Stderr io.Writer

	// Timeout is how long the process may run before it is killed;
	// 0 means until ctx is done. Benchmark runs have Options.Timeout.
	Timeout time.Duration
}

// String returns the command line, for messages.
func (c *Command) String() string {
	return strings.Join(append([]string{c.Path}, c.Args...), " ")
}

// ErrTimedOut is wrapped by the error of a process killed because it
// outlived its Command's Timeout.
var ErrTimedOut = errors.New("timed out")

// ErrLimit is wrapped by the error of a process that a Runner killed, or
// saw killed, for going over another of its limits (memory, CPU time,
// output): like a timeout, the program's own failure. The error says
// which limit, in words for the result.
var ErrLimit = errors.New("killed")

// Direct is the Runner Run uses when Options.Runner is nil: it runs c on
// this machine, in a process group of its own, and kills the group when
// ctx is done or c.Timeout passes, and what is left of it when the
// program exits, waiting (up to a second) until it is gone. A nil c.Env
// is an empty environment, not the caller's, as it would be for os/exec.
func Direct(ctx context.Context, c *Command) error {
	runCtx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	procgroup.Own(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	procgroup.KillRest(cmd)
	if err != nil && ctx.Err() == nil && runCtx.Err() != nil {
		err = fmt.Errorf("%w: killed after %v", ErrTimedOut, c.Timeout)
	}
	return err
}

// ranAndFailed reports whether err, from a Runner, is the program's own
// failure rather than the Runner's: the program exited with an error, was
// killed on its timeout, or exited leaving its output open (a child of
// its still holding it).
func ranAndFailed(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) || errors.Is(err, ErrTimedOut) || errors.Is(err, ErrLimit) || errors.Is(err, exec.ErrWaitDelay)
}

// credentialName reports whether an environment variable called name may
// hold a credential, which no process that Run starts gets, since the code
// built and run may be someone else's patch. It errs on the side of
// leaving a variable out: a build or a benchmark that needs one of these
// is rare, and a leaked token is not undone. The rule: the name, in upper
// case, contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
// COOKIE, APIKEY, ASKPASS, NETRC or GERRIT (patchbot's own Gerrit
// account), or one of its words (split at "_") is KEY, PASS, PAT or AUTH
// (SSH_AUTH_SOCK), or it is GOAUTH (the go command's credential helpers).
// Variables that point at credential files (HOME, for ~/.gitcookies and
// ~/.netrc) are kept: keeping files out of reach is a sandbox's job.
func credentialName(name string) bool {
	upper := strings.ToUpper(name)
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE", "APIKEY", "ASKPASS", "NETRC", "GERRIT"} {
		if strings.Contains(upper, s) {
			return true
		}
	}
	for _, w := range strings.Split(upper, "_") {
		switch w {
		case "KEY", "PASS", "PAT", "AUTH":
			return true
		}
	}
	return upper == "GOAUTH"
}

// benchEnv returns the environment of every process Run starts: the
// caller's, less credentials (credentialName), and with TMPDIR and
// GOTMPDIR set to tmp, a directory inside Run's own temporary directory.
// A go command killed by an interrupt cannot remove its go-build* work
// directory, nor a killed compiler or benchmark its files: there, removing
// Run's directory removes them too.
func benchEnv(tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if credentialName(name) || name == "TMPDIR" || name == "GOTMPDIR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TMPDIR="+tmp, "GOTMPDIR="+tmp)
}
