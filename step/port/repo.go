package port

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/patchbot/patchbot/internal/remedy"
)

// A gitRepo is where the parts of a repository are, as git itself finds
// them from a directory: this handles linked worktrees (whose HEAD and
// index are their own while refs and objects are shared), bare
// repositories and GIT_DIR the way every other git command does.
type gitRepo struct {
	dir       string // where the port was asked to run
	gitDir    string // HEAD and index of this work tree: .git, or .git/worktrees/NAME
	commonDir string // refs and objects, shared by linked worktrees
	objects   string // the object directory
	workTree  string // "" for a bare repository (or a directory inside .git)
	bare      bool
}

// findRepo finds the repository holding dir. A directory that is not in
// one is an *remedy.FieldError: the caller named the wrong place.
func findRepo(dir string) (*gitRepo, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, &remedy.FieldError{Field: "repo", Value: dir, Reason: "no such directory"}
	}
	out, err := git(dir, "rev-parse", "--path-format=absolute", "--is-bare-repository", "--git-dir", "--git-common-dir", "--git-path", "objects")
	if err != nil {
		msg := err.Error()
		if ge, ok := err.(*gitError); ok {
			msg = ge.msg
		}
		return nil, &remedy.FieldError{Field: "repo", Value: dir, Reason: "not in a Git repository (" + msg + ")"}
	}
	f := strings.Split(out, "\n")
	if len(f) != 4 {
		return nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	r := &gitRepo{dir: dir, bare: f[0] == "true", gitDir: f[1], commonDir: f[2], objects: f[3]}
	if !r.bare {
		// Fails inside the .git directory: no work tree there either.
		r.workTree, _ = git(dir, "rev-parse", "--show-toplevel")
	}
	return r, nil
}

// top is the directory the result names: the work tree, or the git
// directory of a bare repository.
func (r *gitRepo) top() string {
	if r.workTree != "" {
		return r.workTree
	}
	return r.gitDir
}

// open opens the repository with go-git, which the port uses to read
// commits, trees and blobs. In a linked worktree it needs
// EnableDotGitCommonDir to find the shared objects.
func (r *gitRepo) open() (*gogit.Repository, error) {
	var repo *gogit.Repository
	var err error
	if r.workTree != "" {
		repo, err = gogit.PlainOpenWithOptions(r.workTree, &gogit.PlainOpenOptions{EnableDotGitCommonDir: true})
	} else {
		repo, err = gogit.PlainOpen(r.commonDir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening Git repository %s: %v", r.top(), err)
	}
	return repo, nil
}

// resolve returns the commit rev names, as git rev-parse finds it (all of
// git's revision syntax; HEAD is this work tree's). A revision that does
// not resolve is an *remedy.FieldError, except in a repository with no commits
// at all, which gets a sentence of its own.
func (r *gitRepo) resolve(rev string) (plumbing.Hash, error) {
	out, err := git(r.dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err == nil && plumbing.IsHash(out) {
		return plumbing.NewHash(out), nil
	}
	if refs, err := git(r.dir, "for-each-ref", "--count=1", "--format=%(refname)"); err == nil && refs == "" {
		if _, err := git(r.dir, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("the repository %s has no commits yet; make a first commit to port onto, then port again", r.top())
		}
	}
	return plumbing.ZeroHash, &remedy.FieldError{Field: "onto", Value: rev,
		Reason: fmt.Sprintf("no such commit in %s; give a branch, tag or commit of the repository", r.top())}
}

// refValue returns the commit ref points to, or "" when there is no such
// ref.
func (r *gitRepo) refValue(ref string) (string, error) {
	// for-each-ref matches by leading components (refs/heads/a lists
	// refs/heads/a/b too): only an exact match counts.
	out, err := git(r.dir, "for-each-ref", "--format=%(refname)%00%(objectname)", "--", ref)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(out, "\n") {
		if name, hash, ok := strings.Cut(l, "\x00"); ok && name == ref {
			return hash, nil
		}
	}
	return "", nil
}

// missingRefDirs returns the directories under the common directory that
// the loose ref ref would need and that do not exist, deepest first.
func (r *gitRepo) missingRefDirs(ref string) []string {
	var dirs []string
	for d := filepath.Dir(filepath.Join(r.commonDir, filepath.FromSlash(ref))); len(d) > len(r.commonDir); d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// removeEmptyDirs removes the directories dirs, in order, that are empty;
// one that is not (another process's ref or lock is in it) stays. Git
// removes empty ref directories the same way, and creates them again if
// one disappears under it (raceproof_create_file).
func removeEmptyDirs(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
