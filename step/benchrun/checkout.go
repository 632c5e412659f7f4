package benchrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	gitrepo "github.com/patchbot/patchbot/internal/repo"
)

// A repo is the user's Git repository, read through go-git. Nothing here
// writes to it: each side is written out into a directory of its own, so
// the user's working tree, index and branches are never touched, and a
// benchmark run can go on while the user keeps working.
type repo struct {
	git    *git.Repository
	dir    string // the directory given, as given
	modRel string // the module's directory relative to the worktree root, slash-separated ("" or "sub/mod")
}

func openRepo(dir string) (*repo, error) {
	r, err := gitrepo.Open(dir)
	if err != nil {
		return nil, err
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%s: %v; bench needs a repository with a working tree", dir, err)
	}
	root, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside its repository's working tree %s", dir, root)
	}
	if rel == "." {
		rel = ""
	}
	return &repo{git: r, dir: dir, modRel: filepath.ToSlash(rel)}, nil
}

// ErrBadRevision is the error, wrapped, for a revision that names no commit.
var ErrBadRevision = errors.New("not found")

// resolve returns the commit that rev names.
func (r *repo) resolve(side, rev string) (*object.Commit, error) {
	h, err := r.git.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		if rev == "HEAD^" {
			return nil, fmt.Errorf("%s revision %s: %w: HEAD has no parent commit; name the base revision", side, rev, ErrBadRevision)
		}
		return nil, fmt.Errorf("%s revision %q: %w in the repository at %s; name a commit, branch or tag", side, rev, ErrBadRevision, r.dir)
	}
	c, err := r.git.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("%s revision %q: %v", side, rev, err)
	}
	return c, nil
}

// writeTree writes the files of commit c into dir, which must exist. It
// stops early when ctx is cancelled.
func writeTree(ctx context.Context, c *object.Commit, dir string) error {
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	return tree.Files().ForEach(func(f *object.File) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
			return err
		}
		switch f.Mode {
		case filemode.Symlink:
			target, err := f.Contents()
			if err != nil {
				return err
			}
			return os.Symlink(target, name)
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
		default:
			return nil // submodules and the like: not part of the build
		}
		perm := os.FileMode(0o666)
		if f.Mode == filemode.Executable {
			perm = 0o777
		}
		rd, err := f.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, rd); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// touchedDirs returns the directories, relative to the module and
// slash-separated, that hold files changed between base and head. A change
// under a testdata directory counts for the package above it.
func (r *repo) touchedDirs(base, head *object.Commit) ([]string, error) {
	files, _, err := r.changedFiles(base, head)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, name := range files {
		parts := strings.Split(path.Dir(name), "/")
		if i := slices.Index(parts, "testdata"); i >= 0 {
			parts = parts[:i]
		}
		dir := path.Join(parts...)
		if dir == "" {
			dir = "."
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	return dirs, nil
}
