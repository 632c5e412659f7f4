package port

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/patchbot/patchbot/internal/gitexec"
)

// A refTransaction is a 'git update-ref --stdin' that holds the lock of
// one ref, prepared: the ref's old value has been checked under git's
// lockfile (refs/heads/B.lock), so the update is a compare-and-swap
// against the value the port read at its start, and no other git or
// patchbot can move the ref until commit or abort. The commit writes a
// reflog entry, as every git command that moves a branch does, so a
// commit the branch held before can be found again. Shelling out is the
// point: go-git's SetReference neither checks the old value nor writes a
// reflog, and does not take git's lock.
type refTransaction struct {
	ref    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
}

// prepareRef starts 'git update-ref --stdin' in dir with the extra
// environment env and prepares the update of ref from old (all zeros: ref
// must not exist) to new, with the reflog message msg.
func prepareRef(dir string, env []string, msg, ref, new, old string) (*refTransaction, error) {
	t := &refTransaction{ref: ref}
	t.cmd = gitCommand(dir, env, "update-ref", "--create-reflog", "-m", msg, "--stdin").Command(context.Background())
	t.cmd.Stderr = &t.stderr
	var err error
	if t.stdin, err = t.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t.stdout = bufio.NewReader(out)
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	// Within 'start', git update-ref aborts at the end of its input
	// (without it, it would commit): a port that dies here changes nothing.
	if _, err := fmt.Fprintf(t.stdin, "start\nupdate %s %s %s\nprepare\n", ref, new, old); err != nil {
		return nil, t.fail(err)
	}
	for _, want := range []string{"start: ok", "prepare: ok"} {
		if err := t.expect(want); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// expect reads the line git answers with and checks that it is want.
func (t *refTransaction) expect(want string) error {
	line, err := t.stdout.ReadString('\n')
	if err != nil {
		return t.fail(err)
	}
	if strings.TrimSuffix(line, "\n") != want {
		return t.fail(fmt.Errorf("unexpected answer %q", line))
	}
	return nil
}

// fail ends the git process and returns its message (or err).
func (t *refTransaction) fail(err error) error {
	t.stdin.Close()
	werr := t.cmd.Wait()
	if werr == nil {
		werr = err
	}
	return &gitError{args: []string{"update-ref", t.ref}, msg: gitexec.Message(t.stderr.String(), werr)}
}

// commit updates the ref, with its reflog entry.
func (t *refTransaction) commit() error {
	if _, err := io.WriteString(t.stdin, "commit\n"); err != nil {
		return t.fail(err)
	}
	if err := t.expect("commit: ok"); err != nil {
		return err
	}
	t.stdin.Close()
	if err := t.cmd.Wait(); err != nil {
		return &gitError{args: []string{"update-ref", t.ref}, msg: gitexec.Message(t.stderr.String(), err)}
	}
	return nil
}

// abort gives the lock back, leaving the ref as it was.
func (t *refTransaction) abort() {
	io.WriteString(t.stdin, "abort\n")
	t.stdin.Close()
	t.cmd.Wait()
}
