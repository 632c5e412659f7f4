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

	"github.com/go-git/go-git/v5"
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
