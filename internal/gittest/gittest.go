// Package gittest makes the Git repositories tests work on, with real
// git, in the manner of git-codereview's newGitTest: one repository in a
// test's temporary directory, git run with an environment of its own (a
// fixed identity, no system or user configuration, English messages),
// and a few steps that tests repeat (write files, commit, make a history
// of n commits).
package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Env is the environment git runs with here: the caller's, with a fixed
// identity and neither the system's nor the user's configuration.
func Env() []string {
	return append(os.Environ(), "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=G", "GIT_AUTHOR_EMAIL=g@example.com", "GIT_COMMITTER_NAME=G", "GIT_COMMITTER_EMAIL=g@example.com")
}

// Output runs git in dir with Env and then env (whose variables win: an
// identity, a HOME, an index of its own) and returns its standard output,
// trimmed. Its error names the command, with credentials redacted, and
// holds git's standard error: for a test that goes on, or one that is not
// a testing.TB (a testscript command).
func Output(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(Env(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(Redact(args), " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}

// Git runs git in dir with Env and returns its output, trimmed; an error
// fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Output(dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// userinfo matches the password of a URL's user information.
var userinfo = regexp.MustCompile(`(://[^/@:\s]*):[^/@\s]*@`)

// Redact returns args with credentials hidden, for messages: the value
// of an http.extraHeader (the test Gerrit's "Authorization: Basic …")
// and a URL's password.
func Redact(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if k, _, ok := strings.Cut(a, "="); ok && strings.EqualFold(k, "http.extraHeader") {
			a = k + "=REDACTED"
		}
		out[i] = userinfo.ReplaceAllString(a, "$1:REDACTED@")
	}
	return out
}

// A Repo is a repository in a test's temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
	// Env is added to Env for every git the Repo runs, and wins over
	// it: another identity, a HOME.
	Env []string
}

// New makes an empty repository whose branch is main.
func New(t testing.TB) *Repo {
	t.Helper()
	r := Open(t, t.TempDir())
	r.Git("init", "-q", "-b", "main")
	return r
}

// Open returns a Repo for dir, which something else made (a repository
// written by the code under test, or a directory to run git init in).
func Open(t testing.TB, dir string) *Repo {
	return &Repo{t: t, Dir: dir}
}

// Git runs git in r.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := Output(r.Dir, r.Env, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// Write writes the files, by slash-separated name, making their
// directories.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, data := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit writes the files, commits everything with the message, and
// returns the commit's hash.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.t.Helper()
	r.Write(files)
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// History commits n+1 times on r, the i-th commit (from 0) with the
// message "commit i" and a body, writing the files files(i) gives (nil:
// f.txt holding i), and returns the hashes, the first one's first.
func (r *Repo) History(n int, files func(i int) map[string]string) []string {
	r.t.Helper()
	if files == nil {
		files = func(i int) map[string]string { return map[string]string{"f.txt": fmt.Sprint(i)} }
	}
	var hashes []string
	for i := 0; i <= n; i++ {
		hashes = append(hashes, r.Commit(fmt.Sprintf("commit %d\n\nbody", i), files(i)))
	}
	return hashes
}

// Files returns the names of r's files at HEAD, sorted: for a test that
// checks what a commit holds.
func (r *Repo) Files() []string {
	r.t.Helper()
	return strings.Fields(r.Git("ls-tree", "-r", "--name-only", "HEAD"))
}
