package work

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/internal/gitexec"
)

// DefaultGitTimeout bounds each git command of a work area: a fetch of a
// large repository into a new area takes minutes, a later one seconds.
const DefaultGitTimeout = 15 * time.Minute

// Areas are the work areas of one machine's worker: a directory per
// repository under Root, each holding a Git repository kept across jobs,
// so that a job fetches what it needs instead of cloning. One Areas owns
// its Root: two processes must not share one.
type Areas struct {
	// Root holds the areas, one directory each, named by a hash of the
	// repository's URL (never by text from a review).
	Root string
	// GitTimeout bounds each git command; zero is DefaultGitTimeout.
	GitTimeout time.Duration

	mu    sync.Mutex
	locks map[string]chan struct{}
}

// A Source is what a job fetches: the bound commit of a review, by the
// ref that holds it, from the repository's URL.
type Source struct {
	// URL is the repository: https://github.com/OWNER/REPO, a Gerrit
	// server's SERVER/PROJECT, or a local path in tests. It is fetched
	// anonymously.
	URL string
	// Ref holds the commit: refs/pull/N/head, refs/changes/NN/CHANGE/PS.
	Ref string
	// Commit is the commit the job is bound to (40 hex digits). For
	// Gerrit the ref must be at it (a patch set's ref never moves); for
	// GitHub it must be the ref's commit or one before it (the pull
	// request was pushed to since), or be fetchable by its hash.
	Commit string
	// Exact says the ref must be at Commit (Gerrit).
	Exact bool
	// BaseBranch, when set, is the branch the base is the merge base
	// with (GitHub: the pull request's base); otherwise the base is the
	// commit's first parent (Gerrit: the patch set's parent).
	BaseBranch string
}

// A Checkout is a work area locked for one job, with the job's commits
// fetched into it.
type Checkout struct {
	Dir  string // the repository: benchmark in it, with Base and Head
	Head string // the bound commit
	Base string // its parent, or the merge base with the base branch
	// Tip is the commit the ref was at when fetched; not Head when the
	// pull request was pushed to since the job was asked for.
	Tip string
	// Ref is, for a tracked branch (Areas.Branch), the local ref it was
	// fetched into.
	Ref string

	a    *Areas
	lock chan struct{}
	once sync.Once
}

// A BindingError is a fetch that did not give the commit the job is
// bound to: the job must not run on anything else, and running it again
// cannot help.
type BindingError struct {
	Ref, Want, Got string
}

func (e *BindingError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("%s does not hold commit %s, the one the command was written on: it is not measured (ask again on the current revision)", e.Ref, e.Want)
	}
	return fmt.Sprintf("%s is at %s, not at %s, the commit the command was written on: it is not measured", e.Ref, e.Got, e.Want)
}

// A SourceError is a Source that no fetch can give, found before or by
// the fetch: a commit, ref or URL that is not well formed, or a base
// branch that is not a branch name or that the repository does not have.
// It is the job's, not the moment's: running the job again cannot mend it.
type SourceError struct {
	What   string // "base branch", "commit", "ref", "repository URL"
	Value  string
	Reason string // what is wrong and what to do
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("%s %q %s", e.What, e.Value, e.Reason)
}

var (
	commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	// refRE is the refs a job fetches, and the base branch's name.
	refRE    = regexp.MustCompile(`^refs/(pull/[0-9]+/head|changes/[0-9]{2}/[0-9]+/[0-9]+)$`)
	branchRE = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
)

// dir returns the area of a repository URL.
func (a *Areas) dir(url string) string {
	h := sha256.Sum256([]byte(url))
	return filepath.Join(a.Root, hex.EncodeToString(h[:12]))
}

// Local refs a job fetches into; removed after each job.
const (
	jobRef  = "refs/patchbot/job/head"
	baseRef = "refs/patchbot/job/base"
)

// Checkout locks the area of src.URL (waiting for a job in it to end, or
// for ctx), creates it on first use, fetches src.Ref (and the base
// branch), checks that the bound commit is what was fetched and computes
// the base. A *BindingError is a commit that is not there or not the
// ref's; a *SourceError a Source that no fetch can give (a base branch
// that is not a branch name, or not in the repository); other errors are
// the fetch's and may pass. The caller must Close the Checkout.
func (a *Areas) Checkout(ctx context.Context, src Source) (*Checkout, error) {
	switch {
	case !commitRE.MatchString(src.Commit):
		return nil, &SourceError{What: "commit", Value: src.Commit, Reason: "is not a commit hash (40 lower-case hex digits)"}
	case !refRE.MatchString(src.Ref):
		return nil, &SourceError{What: "ref", Value: src.Ref, Reason: "is not a pull request's or a change's (refs/pull/N/head, refs/changes/NN/CHANGE/PS)"}
	case src.URL == "" || strings.HasPrefix(src.URL, "-"):
		return nil, &SourceError{What: "repository URL", Value: src.URL, Reason: "is not one to fetch from"}
	}
	if src.BaseBranch != "" {
		if err := checkBranch(ctx, src.BaseBranch); err != nil {
			return nil, err
		}
	}
	dir := a.dir(src.URL)
	lock, err := a.lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	c := &Checkout{Dir: dir, Head: src.Commit, a: a, lock: lock}
	if err := c.fetch(ctx, src); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Checkout) fetch(ctx context.Context, src Source) error {
	a := c.a
	if err := c.init(ctx); err != nil {
		return err
	}
	specs := []string{"+" + src.Ref + ":" + jobRef}
	if src.BaseBranch != "" {
		specs = append(specs, "+refs/heads/"+src.BaseBranch+":"+baseRef)
	}
	if _, err := a.git(ctx, c.Dir, append([]string{"fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", src.URL}, specs...)...); err != nil {
		if merr := c.missing(ctx, src); merr != nil {
			return merr
		}
		return fmt.Errorf("fetching %s from %s: %w", src.Ref, src.URL, err)
	}
	tip, err := a.git(ctx, c.Dir, "rev-parse", "--verify", "-q", jobRef+"^{commit}")
	if err != nil {
		return err
	}
	c.Tip = tip
	switch {
	case tip == src.Commit:
	case src.Exact:
		return &BindingError{Ref: src.Ref, Want: src.Commit, Got: tip}
	default:
		// A pull request pushed to since: the bound commit must still be
		// the ref's (an ancestor of its tip), or be fetched by its hash
		// (GitHub serves a commit that was in a pull request).
		if _, err := a.git(ctx, c.Dir, "merge-base", "--is-ancestor", src.Commit, tip); err != nil {
			if _, ferr := a.git(ctx, c.Dir, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", src.URL, src.Commit); ferr != nil ||
				!c.has(ctx, src.Commit) {
				return &BindingError{Ref: src.Ref, Want: src.Commit}
			}
		}
	}
	if src.BaseBranch != "" {
		base, err := a.git(ctx, c.Dir, "merge-base", src.Commit, baseRef)
		if err != nil {
			return fmt.Errorf("no merge base of %s and %s: %w", src.Commit, src.BaseBranch, err)
		}
		c.Base = base
	} else {
		base, err := a.git(ctx, c.Dir, "rev-parse", "--verify", "-q", src.Commit+"^1")
		if err != nil {
			return fmt.Errorf("commit %s has no parent to compare it with", src.Commit)
		}
		c.Base = base
	}
	return nil
}

// init creates the area's repository on its first use, and cleans what a
// previous job in it may have left, if it was killed.
func (c *Checkout) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(c.Dir, ".git")); err != nil {
		if err := os.MkdirAll(c.a.Root, 0o755); err != nil {
			return err
		}
		if _, err := c.a.git(ctx, "", "init", "-q", c.Dir); err != nil {
			return err
		}
	}
	c.clean(ctx)
	return nil
}

// missing tells a fetch of src that failed because the repository lacks
// a ref from one that failed for a moment: it asks the repository for
// src's refs, and when it answers without one of them, returns the
// *SourceError of a missing base branch or the *BindingError of a missing
// ref. It returns nil when the repository has both refs, or did not
// answer: the fetch's error is then the one to report.
func (c *Checkout) missing(ctx context.Context, src Source) error {
	refs := []string{src.Ref}
	if src.BaseBranch != "" {
		refs = append(refs, "refs/heads/"+src.BaseBranch)
	}
	out, err := c.a.git(ctx, c.Dir, append([]string{"ls-remote", "--", src.URL}, refs...)...)
	if err != nil {
		return nil
	}
	has := map[string]bool{}
	for l := range strings.SplitSeq(out, "\n") {
		if _, ref, ok := strings.Cut(l, "\t"); ok {
			has[strings.TrimSpace(ref)] = true
		}
	}
	switch {
	case src.BaseBranch != "" && !has["refs/heads/"+src.BaseBranch]:
		return &SourceError{What: "base branch", Value: src.BaseBranch,
			Reason: "does not exist in the repository: there is nothing to compare the change with. Base the change on a branch that exists, then ask again"}
	case !has[src.Ref]:
		return &BindingError{Ref: src.Ref, Want: src.Commit}
	}
	return nil
}

// checkBranch checks that name is a branch name git takes (git
// check-ref-format): a *SourceError when it is not.
func checkBranch(ctx context.Context, name string) error {
	bad := &SourceError{What: "base branch", Value: name,
		Reason: "is not a valid branch name (git check-ref-format): nothing was fetched. Base the change on a branch of the repository, then ask again"}
	if !branchRE.MatchString(name) || strings.HasPrefix(name, "-") {
		// Not even shown to git.
		return bad
	}
	cmd := &gitexec.Cmd{Args: []string{"check-ref-format", "refs/heads/" + name}, Env: gitexec.Anonymous, Timeout: time.Minute}
	if _, err := cmd.Output(ctx); err != nil {
		if e, ok := errors.AsType[*gitexec.Error](err); ok && e.ExitCode == 1 {
			return bad
		}
		return gitError(err.(*gitexec.Error))
	}
	return nil
}

// has reports whether the area holds commit.
func (c *Checkout) has(ctx context.Context, commit string) bool {
	_, err := c.a.git(ctx, c.Dir, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// Close cleans the area (the job's refs, worktrees, files in its working
// directory) and unlocks it. The objects fetched stay, for the next job.
func (c *Checkout) Close() error {
	var err error
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err = c.clean(ctx)
		<-c.lock
	})
	return err
}

// clean removes the job refs, prunes worktrees and removes every file of
// the working directory but .git.
func (c *Checkout) clean(ctx context.Context) error {
	var errs []error
	for _, ref := range []string{jobRef, baseRef} {
		if _, err := c.a.git(ctx, c.Dir, "update-ref", "-d", ref); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := c.a.git(ctx, c.Dir, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	ents, err := os.ReadDir(c.Dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != ".git" {
			errs = append(errs, os.RemoveAll(filepath.Join(c.Dir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// lock takes the area's lock, waiting for ctx.
func (a *Areas) lock(ctx context.Context, dir string) (chan struct{}, error) {
	a.mu.Lock()
	if a.locks == nil {
		a.locks = map[string]chan struct{}{}
	}
	l := a.locks[dir]
	if l == nil {
		l = make(chan struct{}, 1)
		a.locks[dir] = l
	}
	a.mu.Unlock()
	select {
	case l <- struct{}{}:
		return l, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// git runs git in dir, bounded in time, anonymously (gitexec.Anonymous):
// with an environment that holds no credential and reads no configuration
// but the area's own. A public repository needs nothing more to be read.
func (a *Areas) git(ctx context.Context, dir string, args ...string) (string, error) {
	timeout := a.GitTimeout
	if timeout == 0 {
		timeout = DefaultGitTimeout
	}
	out, err := (&gitexec.Cmd{Dir: dir, Args: args, Env: gitexec.Anonymous, Timeout: timeout}).Output(ctx)
	if err != nil {
		return "", gitError(err.(*gitexec.Error))
	}
	return strings.TrimSpace(out), nil
}

// gitError words the failure of an area's git as "git SUBCOMMAND: ...":
// the fetch's URL and refs are in the error that wraps it. A git that was
// stopped, by ctx or by the timeout, says why in parentheses.
func gitError(e *gitexec.Error) error {
	switch {
	case e.Interrupted != nil:
		return fmt.Errorf("git %s: %v (%v)", e.Args[0], e.Err, e.Interrupted)
	case e.Timeout != 0:
		return fmt.Errorf("git %s: %v (%v)", e.Args[0], e.Err, context.DeadlineExceeded)
	}
	return fmt.Errorf("git %s: %v: %s", e.Args[0], e.Err, strings.TrimSpace(e.Stderr))
}

// trackRefs is where Branch fetches a tracked branch: refs/patchbot/track/
// and the branch's name. It stays between jobs (it is not a job ref that
// clean removes), moved by each fetch.
const trackRefs = "refs/patchbot/track/"

// Branch locks the area of url (as Checkout does) and fetches branch
// into it, for a track job, which reads the branch's history: the
// Checkout's Ref is the local ref the branch is at and Head its commit;
// Base is not set. A branch that is not a name git takes is a
// *SourceError, one that the repository lacks too.
func (a *Areas) Branch(ctx context.Context, url, branch string) (*Checkout, error) {
	if url == "" || strings.HasPrefix(url, "-") {
		return nil, &SourceError{What: "repository URL", Value: url, Reason: "is not one to fetch from"}
	}
	if err := checkBranch(ctx, branch); err != nil {
		if se, ok := err.(*SourceError); ok {
			se.What, se.Reason = "branch", "is not a valid branch name (git check-ref-format): nothing was fetched"
		}
		return nil, err
	}
	dir := a.dir(url)
	lock, err := a.lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	c := &Checkout{Dir: dir, Ref: trackRefs + branch, a: a, lock: lock}
	if err := c.fetchBranch(ctx, url, branch); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Checkout) fetchBranch(ctx context.Context, url, branch string) error {
	a := c.a
	if err := c.init(ctx); err != nil {
		return err
	}
	if _, err := a.git(ctx, c.Dir, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", url, "+refs/heads/"+branch+":"+c.Ref); err != nil {
		if out, lerr := a.git(ctx, c.Dir, "ls-remote", "--", url, "refs/heads/"+branch); lerr == nil && strings.TrimSpace(out) == "" {
			return &SourceError{What: "branch", Value: branch, Reason: "does not exist in the repository: name a branch it has"}
		}
		return fmt.Errorf("fetching branch %s from %s: %w", branch, url, err)
	}
	head, err := a.git(ctx, c.Dir, "rev-parse", "--verify", "-q", c.Ref+"^{commit}")
	if err != nil {
		return err
	}
	c.Head, c.Tip = head, head
	return nil
}
