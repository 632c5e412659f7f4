package work

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gittest"
)

// TestAreaGitError checks how an area's git words a failure, an interrupt
// and a timeout: by its first argument, with the cause of a stop in
// parentheses.
func TestAreaGitError(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q")
	stopped, stop := context.WithCancelCause(context.Background())
	stop(errors.New("test stop"))
	tests := []struct {
		name         string
		ctx          context.Context
		timeout      time.Duration
		args         []string
		prefix, want string // the error starts with prefix and ends with want
	}{
		{
			name:   "failure",
			ctx:    context.Background(),
			args:   []string{"rev-parse", "--verify", "nosuch"},
			prefix: "git rev-parse: exit status 128: ",
			want:   ": fatal: Needed a single revision",
		},
		{
			name:   "interrupted",
			ctx:    stopped,
			args:   []string{"status"},
			prefix: "git status: ",
			want:   " (test stop)",
		},
		{
			name:    "timed out",
			ctx:     context.Background(),
			timeout: 100 * time.Millisecond,
			args:    []string{"-c", "alias.hang=!sleep 600", "hang"},
			prefix:  "git -c: ",
			want:    " (context deadline exceeded)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Areas{Root: t.TempDir(), GitTimeout: tt.timeout}
			_, err := a.git(tt.ctx, dir, tt.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q...%q", err, tt.prefix, tt.want)
			}
		})
	}
}

// TestCheckBranch: a base branch is a name git check-ref-format takes,
// and one that is not is a *SourceError, found without a fetch.
func TestCheckBranch(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"master", true},
		{"release-branch.go1.4", true},
		{"dev/feature_x", true},
		{"", false},
		{"a..b", false},
		{"-x", false},
		{"x.lock", false},
		{"/x", false},
		{"x/", false},
		{"a//b", false},
		{".x", false},
		{"x y", false},
		{"x~1", false},
		{"@", false},
		{"x@{1}", false},
	} {
		err := checkBranch(context.Background(), tt.name)
		_, isSource := errors.AsType[*SourceError](err)
		switch {
		case tt.ok && err != nil:
			t.Errorf("checkBranch(%q) = %v, want nil", tt.name, err)
		case !tt.ok && !isSource:
			t.Errorf("checkBranch(%q) = %v, want a *SourceError", tt.name, err)
		case !tt.ok && !strings.Contains(err.Error(), "is not a valid branch name"):
			t.Errorf("checkBranch(%q) = %v, want it to say it is not a valid branch name", tt.name, err)
		}
	}
}

// TestCheckoutMissing: a fetch that fails because the repository lacks
// the base branch, or the pull request's ref, is a *SourceError or a
// *BindingError, which the worker does not retry; one that fails because
// the repository did not answer is neither.
func TestCheckoutMissing(t *testing.T) {
	root := t.TempDir()
	src, bare := filepath.Join(root, "src"), filepath.Join(root, "bare")
	for _, d := range []string{src, bare} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, bare, "init", "-q", "--bare")
	gittest.Git(t, src, "init", "-q", "-b", "master")
	head := commit(t, src, "base", module, false)
	gittest.Git(t, src, "push", "-q", bare, "HEAD:refs/heads/master", "HEAD:refs/pull/1/head")
	a := &Areas{Root: filepath.Join(root, "areas")}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		src  Source
		want string // "source", "binding" or "" for neither
	}{
		{"no such base branch", Source{URL: bare, Ref: "refs/pull/1/head", Commit: head, BaseBranch: "nosuch"}, "source"},
		{"no such pull request", Source{URL: bare, Ref: "refs/pull/2/head", Commit: head, BaseBranch: "master"}, "binding"},
		{"an invalid base branch", Source{URL: bare, Ref: "refs/pull/1/head", Commit: head, BaseBranch: "a..b"}, "source"},
		{"a commit that is not a hash", Source{URL: bare, Ref: "refs/pull/1/head", Commit: "HEAD"}, "source"},
		{"no repository", Source{URL: filepath.Join(root, "nosuch"), Ref: "refs/pull/1/head", Commit: head, BaseBranch: "master"}, ""},
	} {
		co, err := a.Checkout(ctx, tt.src)
		if err == nil {
			co.Close()
			t.Errorf("%s: no error", tt.name)
			continue
		}
		_, isSource := errors.AsType[*SourceError](err)
		_, isBinding := errors.AsType[*BindingError](err)
		got := ""
		switch {
		case isSource:
			got = "source"
		case isBinding:
			got = "binding"
		}
		if got != tt.want {
			t.Errorf("%s: err = %v (%T), want a %q error", tt.name, err, err, tt.want)
		}
		if strings.Contains(err.Error(), a.Root) || (tt.want != "" && strings.Contains(err.Error(), root)) {
			t.Errorf("%s: err = %v, names the server's paths", tt.name, err)
		}
	}
	// A good source still checks out, in the area the failures used.
	co, err := a.Checkout(ctx, Source{URL: bare, Ref: "refs/pull/1/head", Commit: head, BaseBranch: "master"})
	if err != nil {
		t.Fatal(err)
	}
	co.Close()
}

// TestAreasLock: a root is one process's: a second Lock fails naming the
// holder, and once released the root is free again.
func TestAreasLock(t *testing.T) {
	a := &Areas{Root: filepath.Join(t.TempDir(), "work")}
	release, err := a.Lock()
	if err != nil {
		t.Fatal(err)
	}
	b := &Areas{Root: a.Root}
	if _, err := b.Lock(); err == nil || !strings.Contains(err.Error(), "in use by another process (pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("a second Lock: %v", err)
	}
	release()
	release2, err := b.Lock()
	if err != nil {
		t.Fatalf("Lock after the release: %v", err)
	}
	release2()
}
