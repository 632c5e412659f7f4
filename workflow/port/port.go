// Package port applies Mercurial-era patches (parsed by workflow/hgpatch)
// to a Git repository as commits ready for Gerrit.
//
// A port is exact or it is nothing. The commits are built as Git objects
// in memory on top of the base commit, without touching the working tree,
// the index or the current branch; only when every changeset has applied
// are the objects copied into the repository and the branch set. A patch
// that does not apply leaves the repository byte for byte as it was and
// comes back as an *ApplyError naming every failing file and hunk.
//
// Porting is idempotent: the Change-Id derives from the Mercurial node
// (or, for a patch without one, from its content), so porting the same
// patch onto the same base gives the same tree and Change-Id, and a
// changeset whose Change-Id is already in the base's history is skipped and
// reported.
package port

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/workflow/hgpatch"
)

// Options says where and how to port.
type Options struct {
	Repo   string // a directory in the Git repository; "" is the current directory
	Onto   string // revision to build on; "" is HEAD
	Branch string // branch to create; "" is BranchPrefix and the first 12 hex digits of the hg node

	BranchPrefix string // "" is "port/"

	Remaps []Remap // path prefix rewrites, tried in order
	Fuzz   int     // context lines a hunk may ignore at each end (patch(1)'s -F)

	// Author and Message are used for patches without changeset metadata
	// (plain diffs). Author is "Name <email>"; "" is the committer.
	Author  string
	Message string

	// DropLines are the lines removed from the end of messages (old review
	// trailers); Rewrites are applied to the whole message. Nil fields take
	// DefaultDropLines and DefaultRewrites; empty non-nil ones do nothing.
	DropLines []*regexp.Regexp
	Rewrites  []Rewrite

	// Committer overrides the committer git itself would use (from the
	// GIT_COMMITTER_* variables and git config).
	Committer *object.Signature

	Checkout  bool   // check the branch out (refused when the work tree has changes, or an untracked file the port would overwrite)
	RejectDir string // where to write the hunks that fail, as NAME.rej
	DryRun    bool   // compute everything, write nothing
}

// An Input is one patch file.
type Input struct {
	Name string // for messages: the file name ('patchbot port' says "<stdin>" for standard input)
	Data []byte
}

// A Result is what a port did (or, with DryRun, would do).
type Result struct {
	Repo     string     `json:"repo"`
	Branch   string     `json:"branch"`
	Base     string     `json:"base"`           // the commit the port built on
	Head     string     `json:"head,omitempty"` // the branch's new tip
	DryRun   bool       `json:"dry_run,omitempty"`
	UpToDate bool       `json:"up_to_date,omitempty"` // the branch already held exactly this port
	Commits  []*Commit  `json:"commits"`
	Skipped  []*Skipped `json:"already_present,omitempty"`
	Remaps   []RemapUse `json:"remaps,omitempty"`
	Actions  []string   `json:"actions"` // the writes done, or that -n would do
}

// A Commit is one ported changeset.
type Commit struct {
	Hash        string       `json:"hash"`
	Tree        string       `json:"tree"`
	Subject     string       `json:"subject"`
	Message     string       `json:"message"`
	ChangeID    string       `json:"change_id"`
	Author      string       `json:"author"`
	AuthorDate  time.Time    `json:"author_date"`
	Node        string       `json:"hg_node,omitempty"`
	Patch       string       `json:"patch"` // input name and line
	Files       []FileChange `json:"files"`
	Adjustments []Adjustment `json:"adjusted_hunks,omitempty"`
}

// A Skipped changeset was already in the base: its Change-Id is in the
// history, or its changes are in the tree (the patch applies in reverse).
type Skipped struct {
	Subject  string `json:"subject"`
	ChangeID string `json:"change_id"`
	Commit   string `json:"commit,omitempty"` // the commit in the history with the Change-Id; "" when found by content
}

// A FileChange summarizes one file of a commit.
type FileChange struct {
	Path    string     `json:"path"`
	OldPath string     `json:"old_path,omitempty"` // for renames and copies
	Op      hgpatch.Op `json:"op"`
	Added   int        `json:"added"`
	Deleted int        `json:"deleted"`
	Binary  bool       `json:"binary,omitempty"`
	Mode    string     `json:"mode,omitempty"` // "100644 -> 100755" when it changed
}

// An ApplyError is a port that failed because the patch does not fit the
// tree. Nothing was written.
type ApplyError struct {
	Patch     string // input name
	Changeset string // "changeset 2 (subject)"
	Failures  []Failure
	Rejects   []string // .rej files written
}

func (e *ApplyError) Error() string {
	var b strings.Builder
	hunks, files := 0, map[string]bool{}
	for _, f := range e.Failures {
		files[f.File] = true
		if f.Hunk > 0 {
			hunks++
		}
	}
	fmt.Fprintf(&b, "%s: %s does not apply (%d failing hunk%s in %d file%s); nothing was written:",
		e.Patch, e.Changeset, hunks, plural(hunks), len(files), plural(len(files)))
	for _, f := range e.Failures {
		if f.Hunk > 0 {
			fmt.Fprintf(&b, "\n  %s:%d: %s: hunk %d of %d (%s): %s", e.Patch, f.PatchLine, f.File, f.Hunk, f.Hunks, f.Header, f.Reason)
		} else {
			fmt.Fprintf(&b, "\n  %s:%d: %s: %s", e.Patch, f.PatchLine, f.File, f.Reason)
		}
		for _, m := range f.Mismatch {
			fmt.Fprintf(&b, "\n      %s", m)
		}
	}
	if len(e.Rejects) > 0 {
		fmt.Fprintf(&b, "\nThe failing hunks are in %s.", strings.Join(e.Rejects, ", "))
	} else if hunks > 0 {
		b.WriteString("\nRebase the patch, allow context differences with -fuzz N, or save the failing hunks with -reject DIR.")
	}
	return b.String()
}

// Port ports the patches in inputs, in order, onto the repository.
func Port(opts *Options, inputs []Input) (*Result, error) {
	if opts.Fuzz < 0 {
		return nil, fmt.Errorf("fuzz %d: must be 0 or more", opts.Fuzz)
	}
	var patches []*hgpatch.Patch
	for _, in := range inputs {
		ps, err := hgpatch.Parse(in.Name, in.Data)
		if err != nil {
			return nil, err
		}
		patches = append(patches, ps...)
	}
	if len(patches) == 0 {
		return nil, errors.New("no patches to port")
	}
	if opts.Author != "" || opts.Message != "" {
		plain := false
		for _, pt := range patches {
			plain = plain || pt.Header == nil
		}
		if !plain {
			return nil, errors.New("-author and -m are for diffs without changeset metadata; every patch here is an 'hg export' with its own author and message")
		}
	}
	dir := opts.Repo
	if dir == "" {
		dir = "."
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("opening Git repository %s: %v", dir, err)
	}
	p := &porter{opts: opts, repo: repo, dir: dir, fx: &effects{dryRun: opts.DryRun}}
	return p.run(patches)
}

type porter struct {
	opts *Options
	repo *git.Repository
	dir  string
	fx   *effects
	tree *tree
	res  *Result

	untracked []string // with Checkout: the work tree's untracked files
}

func (p *porter) run(patches []*hgpatch.Patch) (*Result, error) {
	onto := p.opts.Onto
	if onto == "" {
		onto = "HEAD"
	}
	baseHash, err := p.repo.ResolveRevision(plumbing.Revision(onto))
	if err != nil {
		return nil, fmt.Errorf("resolving -onto %s: %v", onto, err)
	}
	base, err := p.repo.CommitObject(*baseHash)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %v", onto, err)
	}
	baseTree, err := base.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s (%s): %v", onto, short(base.Hash.String()), err)
	}
	committer, err := p.committer()
	if err != nil {
		return nil, err
	}
	if p.opts.Checkout {
		if err := p.checkClean(); err != nil {
			return nil, err
		}
	}
	top, _ := filepath.Abs(p.dir)
	if wt, err := p.repo.Worktree(); err == nil {
		top = wt.Filesystem.Root()
	}
	p.res = &Result{Repo: top, Base: base.Hash.String(), DryRun: p.opts.DryRun, Commits: []*Commit{}}
	p.tree = newTree(p.repo.Storer, baseTree)
	history := p.changeIDs(base)

	parent := base.Hash
	for i, pt := range patches {
		if id := idFor(pt); history[id] != "" {
			// Already in the base: build the rest on the base as it is.
			p.res.Skipped = append(p.res.Skipped, &Skipped{Subject: subject(pt.Message), ChangeID: id, Commit: history[id]})
			continue
		}
		c, fails, err := p.port(pt, parent, committer)
		if err != nil {
			return nil, err
		}
		if fails != nil {
			if p.alreadyApplied(pt) {
				p.res.Skipped = append(p.res.Skipped, &Skipped{Subject: subject(pt.Message), ChangeID: idFor(pt)})
				continue
			}
			return nil, p.fail(pt, i, len(patches), fails)
		}
		p.res.Commits = append(p.res.Commits, c)
		parent = plumbing.NewHash(c.Hash)
	}
	if len(p.res.Commits) == 0 {
		p.res.Actions = []string{}
		return p.res, nil
	}
	p.res.Head = parent.String()
	p.res.Branch = p.branchName(patches)
	if err := p.publish(); err != nil {
		return nil, err
	}
	p.res.Actions = p.fx.log
	return p.res, nil
}

// idFor returns the Change-Id of a changeset: the one in its description,
// or one derived from it.
func idFor(pt *hgpatch.Patch) string {
	if id := existingChangeID(pt.Message); id != "" {
		return id
	}
	return changeID(pt)
}

// committer returns the committer signature.
func (p *porter) committer() (object.Signature, error) {
	if p.opts.Committer != nil {
		return *p.opts.Committer, nil
	}
	return gitIdent(p.dir, "GIT_COMMITTER_IDENT")
}

// changeIDs returns the Change-Ids in the first 10,000 commits of base's
// history, with the commits holding them.
func (p *porter) changeIDs(base *object.Commit) map[string]string {
	ids := map[string]string{}
	c := base
	for n := 0; c != nil && n < 10000; n++ {
		if id := existingChangeID(c.Message); id != "" {
			if _, ok := ids[id]; !ok {
				ids[id] = c.Hash.String()
			}
		}
		if c.NumParents() == 0 {
			break
		}
		next, err := c.Parent(0)
		if err != nil {
			break
		}
		c = next
	}
	return ids
}

func (p *porter) branchName(patches []*hgpatch.Patch) string {
	if p.opts.Branch != "" {
		return p.opts.Branch
	}
	prefix := p.opts.BranchPrefix
	if prefix == "" {
		prefix = "port/"
	}
	for _, pt := range patches {
		if pt.Header != nil && len(pt.Header.Node) >= 12 {
			return prefix + pt.Header.Node[:12]
		}
	}
	return prefix + p.res.Commits[0].ChangeID[1:13]
}

// port applies one changeset to p.tree and builds its commit. It returns
// the failures when the changeset does not apply.
func (p *porter) port(pt *hgpatch.Patch, parent plumbing.Hash, committer object.Signature) (*Commit, []Failure, error) {
	if len(pt.Files) == 0 {
		// hg writes no diff for a mode-only change in a plain export, so an
		// empty changeset may have lost something: refuse to guess.
		return nil, []Failure{{File: "(no files)", PatchLine: pt.Line,
			Reason: "changeset has no diffs; if it changed only file modes, re-export it with 'hg export --git'"}}, nil
	}
	saved := p.tree.save()
	files, adj, fails := p.applyFiles(pt)
	if len(fails) > 0 {
		p.tree.restore(saved) // the last checks run on the changed tree
		return nil, fails, nil
	}
	treeHash, err := p.tree.write()
	if err != nil {
		return nil, nil, err
	}

	msg, author, err := p.metadata(pt, committer)
	if err != nil {
		return nil, nil, err
	}
	id := idFor(pt)
	msg = addChangeID(msg, id)
	c := &Commit{
		Tree:        treeHash.String(),
		Subject:     subject(msg),
		Message:     msg,
		ChangeID:    id,
		Author:      fmt.Sprintf("%s <%s>", author.Name, author.Email),
		AuthorDate:  author.When,
		Patch:       fmt.Sprintf("%s:%d", pt.File, pt.Line),
		Files:       files,
		Adjustments: adj,
	}
	if pt.Header != nil {
		c.Node = pt.Header.Node
	}
	obj := &object.Commit{
		Author:       author,
		Committer:    committer,
		Message:      msg,
		TreeHash:     treeHash,
		ParentHashes: []plumbing.Hash{parent},
	}
	h, err := p.tree.store(obj)
	if err != nil {
		return nil, nil, err
	}
	c.Hash = h.String()
	return c, nil, nil
}

// metadata returns the message (cleaned, without Change-Id yet) and the
// author of a changeset.
func (p *porter) metadata(pt *hgpatch.Patch, committer object.Signature) (string, object.Signature, error) {
	drop, rewrites := p.opts.DropLines, p.opts.Rewrites
	if drop == nil {
		drop = DefaultDropLines
	}
	if rewrites == nil {
		rewrites = DefaultRewrites
	}
	author := committer
	msg := pt.Message
	if pt.Header != nil {
		if pt.Header.User != "" {
			author.Name, author.Email = parseUser(pt.Header.User)
		}
		if !pt.Header.Date.IsZero() {
			author.When = pt.Header.Date
		}
	} else {
		if p.opts.Author != "" {
			author.Name, author.Email = parseUser(p.opts.Author)
			if author.Email == "" {
				return "", author, fmt.Errorf("-author %q: want 'Name <email>'", p.opts.Author)
			}
		}
		if p.opts.Message != "" {
			msg = p.opts.Message
		}
		if strings.TrimSpace(msg) == "" {
			msg = "Apply " + filepath.Base(pt.File)
		}
	}
	msg = cleanMessage(msg, drop, rewrites)
	if msg == "" {
		msg = "Apply " + filepath.Base(pt.File)
	}
	return msg, author, nil
}

// publish writes the objects and the branch, and checks it out, unless the
// branch already holds this port.
func (p *porter) publish() error {
	ref := plumbing.NewBranchReferenceName(p.res.Branch)
	if !ref.IsBranch() || strings.ContainsAny(p.res.Branch, " ~^:?*[\\") || strings.Contains(p.res.Branch, "..") {
		return fmt.Errorf("bad branch name %q", p.res.Branch)
	}
	if err := p.checkUntracked(); err != nil {
		return err
	}
	if old, err := p.repo.Reference(ref, true); err == nil {
		if p.samePort(old.Hash()) {
			p.res.UpToDate = true
			p.res.Head = old.Hash().String()
			p.fx.note(fmt.Sprintf("branch %s already holds this port at %s: nothing to do", p.res.Branch, short(old.Hash().String())))
			return p.checkout(ref)
		}
		return fmt.Errorf("branch %s already exists (at %s) with other commits; delete it or choose another with -branch", p.res.Branch, short(old.Hash().String()))
	}
	if err := p.fx.do(fmt.Sprintf("write %d new objects", p.tree.count()), func() error {
		_, err := p.tree.flush(p.repo.Storer)
		return err
	}); err != nil {
		return err
	}
	if err := p.fx.do(fmt.Sprintf("create branch %s at %s", p.res.Branch, short(p.res.Head)), func() error {
		return p.repo.Storer.SetReference(plumbing.NewHashReference(ref, plumbing.NewHash(p.res.Head)))
	}); err != nil {
		return err
	}
	return p.checkout(ref)
}

// samePort reports whether the commits ending at tip are the port's
// commits: same trees and Change-Ids, on the same base.
func (p *porter) samePort(tip plumbing.Hash) bool {
	h := tip
	for i := len(p.res.Commits) - 1; i >= 0; i-- {
		c, err := p.repo.CommitObject(h)
		if err != nil || c.NumParents() != 1 {
			return false
		}
		want := p.res.Commits[i]
		if c.TreeHash.String() != want.Tree || existingChangeID(c.Message) != want.ChangeID {
			return false
		}
		want.Hash = c.Hash.String()
		h = c.ParentHashes[0]
	}
	return h.String() == p.res.Base
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// checkClean refuses a work tree with changes to tracked files, before
// anything is written.
func (p *porter) checkClean() error {
	wt, err := p.repo.Worktree()
	if err != nil {
		return fmt.Errorf("-checkout: %v", err)
	}
	st, err := wt.Status()
	if err != nil {
		return fmt.Errorf("-checkout: %v", err)
	}
	for name, s := range st {
		if s.Staging == git.Untracked && s.Worktree == git.Untracked {
			p.untracked = append(p.untracked, name)
			continue
		}
		if s.Staging != git.Unmodified || s.Worktree != git.Unmodified {
			return fmt.Errorf("-checkout: the work tree has changes (%s, and maybe more); commit or stash them first, or port without -checkout", name)
		}
	}
	return nil
}

// checkUntracked refuses, before anything is written, a checkout that
// would overwrite an untracked file with one of the port's, as git checkout
// does: go-git's checkout would overwrite it silently.
func (p *porter) checkUntracked() error {
	slices.Sort(p.untracked)
	for _, name := range p.untracked {
		if p.tree.lookup(filepath.ToSlash(name)) != nil {
			return fmt.Errorf("-checkout: the port has a file %s where the work tree has an untracked one; move it away first, or port without -checkout", name)
		}
	}
	return nil
}

func (p *porter) checkout(ref plumbing.ReferenceName) error {
	if !p.opts.Checkout {
		return nil
	}
	return p.fx.do("check out "+ref.Short(), func() error {
		wt, err := p.repo.Worktree()
		if err != nil {
			return err
		}
		return wt.Checkout(&git.CheckoutOptions{Branch: ref})
	})
}

// modeString formats a Git mode change for FileChange.Mode.
func modeString(old, new filemode.FileMode) string {
	if old == new || old == 0 || new == 0 {
		return ""
	}
	return fmt.Sprintf("%o -> %o", uint32(old), uint32(new))
}
