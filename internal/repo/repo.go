// Package repo opens the user's Git repository, the one a bench, bisect or
// track names with its repo field, for reading with go-git: one way to
// open it (looking up from the directory for its .git, a linked
// worktree's common directory included), one error for a directory that
// is in no repository, and the Go module it holds.
//
// What patchbot writes to a repository goes through git, the program
// (internal/gitexec); everything here only reads.
package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/mod/modfile"

	"github.com/patchbot/patchbot/internal/remedy"
)

// Open opens the repository that holds dir ("" means "."). A directory in
// no repository is a *remedy.FieldError for the field repo, so that each
// caller words it its own way (the CLI as -repo) and a queue does not
// retry it.
func Open(dir string) (*git.Repository, error) {
	if dir == "" {
		dir = "."
	}
	// go-git looks for .git from the nearest directory that exists: a
	// mistyped directory would open the repository around it.
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return nil, remedy.Fieldf("repo", dir, "%v: name the repository's directory", unwrapPath(err))
	}
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, remedy.Fieldf("repo", dir, "not a Git repository (%v): run in one, or name one", err)
	}
	return r, nil
}

// unwrapPath returns a *fs.PathError's own error, without the path that
// the message names already.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// ModulePath returns the path of the Go module that dir ("" means ".") is
// in: the module line of the nearest go.mod at or above it, as the go
// command finds it.
func ModulePath(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			if p := modfile.ModulePath(data); p != "" {
				return p, nil
			}
			return "", fmt.Errorf("%s: no module line", filepath.Join(d, "go.mod"))
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s: no go.mod here or above", dir)
		}
	}
}

// Resolve returns the commit a revision names (a hash, branch, tag or an
// expression such as HEAD~2).
func Resolve(r *git.Repository, rev string) (*object.Commit, error) {
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, err
	}
	return r.CommitObject(*h)
}

// How a FirstParents walk ended.
const (
	Stopped = iota // at the commit stop chose, which is not in the list
	AtMax          // with max commits
	AtRoot         // at a commit without parents, which is in the list
)

// FirstParents walks the first-parent history from c, newest first: the
// branch's own commits, one per merged change, as git log --first-parent
// and git bisect --first-parent take them. It returns the commits before
// the first one stop chooses (nil: none), at most max, and how the walk
// ended.
func FirstParents(c *object.Commit, stop func(*object.Commit) bool, max int) ([]*object.Commit, int, error) {
	var list []*object.Commit
	for {
		if stop != nil && stop(c) {
			return list, Stopped, nil
		}
		if len(list) == max {
			return list, AtMax, nil
		}
		list = append(list, c)
		if c.NumParents() == 0 {
			return list, AtRoot, nil
		}
		p, err := c.Parent(0)
		if err != nil {
			return nil, 0, err
		}
		c = p
	}
}

// Subject returns a commit's subject, its message's first line.
func Subject(c *object.Commit) string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

var changeIDRE = regexp.MustCompile(`(?m)^Change-Id: I[0-9a-f]{40}\s*$`)

// ChangeID returns the Change-Id trailer's value in msg (a commit's
// message), or "" when it has none; of several (a squash of commits each
// with its own), the last, as Gerrit reads the footer.
func ChangeID(msg string) string {
	m := changeIDRE.FindAllString(msg, -1)
	if len(m) == 0 {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(m[len(m)-1], "Change-Id: "))
}
