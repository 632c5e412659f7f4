// Package port applies Mercurial-era patches (parsed by step/hgpatch)
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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/internal/repo"
	"github.com/patchbot/patchbot/step/hgpatch"
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

	testHook func(step string) // called at each step that may be interrupted; for tests
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
		b.WriteString("\nRebase the patch, allow context differences with {port.fuzz} N, or save the failing hunks with {port.reject_dir} DIR.")
	}
	return b.String()
}

// A RaceError is a port that lost its branch to another process, which
// created or moved it while the port ran. Nothing was written.
type RaceError struct {
	Branch string
	Now    string // the branch's commit now
}

func (e *RaceError) Error() string {
	return fmt.Sprintf("branch %s was created by another process while this port ran (it is at %s now); nothing was written; port again, or choose another branch with {port.branch}",
		e.Branch, abbrev.Hash(e.Now))
}

// Port ports the patches in inputs, in order, onto the repository.
// It is all or nothing: it writes only once every changeset has applied,
// and then moves the branch by compare-and-swap, so that of two ports
// racing for one branch, one fails with a *RaceError and writes nothing.
// When ctx is cancelled before the branch is locked for the port, it stops
// and removes what it wrote, returning an *InterruptedError; once the
// branch is locked the port finishes, which takes moments.
func Port(ctx context.Context, opts *Options, inputs []Input) (*Result, error) {
	if opts.Fuzz < 0 {
		return nil, fmt.Errorf("fuzz %d: must be 0 or more", opts.Fuzz)
	}
	if err := checkBranch(opts); err != nil {
		return nil, err
	}
	if opts.Author != "" {
		if strings.ContainsAny(opts.Author, "\n\r\x00") {
			return nil, &remedy.FieldError{Field: "port.author", Value: opts.Author, Reason: "an author is one line: want 'Name <email>'"}
		}
		if _, email := parseUser(opts.Author); email == "" || !strings.Contains(opts.Author, "<") {
			return nil, &remedy.FieldError{Field: "port.author", Value: opts.Author, Reason: "want 'Name <email>'"}
		}
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
			return nil, errors.New("{port.author} and {port.message} are for diffs without changeset metadata; every patch here is an 'hg export' with its own author and message")
		}
	}
	dir := opts.Repo
	if dir == "" {
		dir = "."
	}
	g, err := findRepo(dir)
	if err != nil {
		return nil, err
	}
	if opts.Checkout && g.workTree == "" {
		return nil, &remedy.FieldError{Field: "port.checkout", Reason: fmt.Sprintf("%s is a bare repository, with no work tree to check out into; port without {port.checkout}, or into a clone or worktree ('git worktree add')", g.top())}
	}
	repo, err := g.open()
	if err != nil {
		return nil, err
	}
	p := &porter{ctx: ctx, opts: opts, repo: repo, g: g, dir: dir, fx: &effects{dryRun: opts.DryRun}}
	if opts.Checkout && !opts.DryRun {
		unlock, err := p.lockCheckout()
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	return p.run(patches)
}

type porter struct {
	ctx  context.Context
	opts *Options
	repo *gogit.Repository // for reading objects
	g    *gitRepo
	dir  string
	fx   *effects
	tree *tree
	res  *Result

	untracked []string // with Checkout: the work tree's untracked files
}

// hook tells a test that the port reached step.
func (p *porter) hook(step string) {
	if p.opts.testHook != nil {
		p.opts.testHook(step)
	}
}

func (p *porter) run(patches []*hgpatch.Patch) (*Result, error) {
	onto := p.opts.Onto
	if onto == "" {
		onto = "HEAD"
	}
	baseHash, err := p.g.resolve(onto)
	if err != nil {
		return nil, err
	}
	base, err := p.repo.CommitObject(baseHash)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %v", onto, err)
	}
	baseTree, err := base.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s (%s): %v", onto, abbrev.Hash(base.Hash.String()), err)
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
	p.res = &Result{Repo: p.g.top(), Base: base.Hash.String(), DryRun: p.opts.DryRun, Commits: []*Commit{}}
	p.tree = newTree(p.repo.Storer, baseTree)
	history := p.changeIDs(base)

	parent := base.Hash
	for i, pt := range patches {
		if err := ctxErr(p.ctx); err != nil {
			return nil, err
		}
		p.hook("apply")
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
	if id := repo.ChangeID(pt.Message); id != "" {
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
		if id := repo.ChangeID(c.Message); id != "" {
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
				return "", author, fmt.Errorf("{port.author} %q: want 'Name <email>'", p.opts.Author)
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
//
// The order is what makes it all or nothing. The objects go to a
// quarantine, invisible to other processes; then the branch is locked by
// git update-ref, checking that it still does not exist; with -checkout,
// the commit is checked out (detached) while the lock is held; only then
// are the objects moved into the repository and the branch set, and HEAD
// attached to it. Whatever fails or is interrupted before the move leaves
// the repository as it was.
func (p *porter) publish() error {
	ref := plumbing.NewBranchReferenceName(p.res.Branch)
	if why := branchNameProblem(p.res.Branch); why != "" {
		return &remedy.FieldError{Field: "port.branch", Value: p.res.Branch, Reason: "not a branch name git accepts: " + why + "; choose another"}
	}
	if err := p.checkUntracked(); err != nil {
		return err
	}
	if done, err := p.existing(ref); done || err != nil {
		return err
	}
	if err := ctxErr(p.ctx); err != nil {
		return err
	}
	var q *quarantine
	if err := p.fx.do(fmt.Sprintf("write %d new objects", p.tree.count()), func() (err error) {
		q, err = p.writeObjects(p.ctx)
		return err
	}); err != nil {
		return unwrapInterrupt(err)
	}
	if q != nil {
		defer q.remove()
	}
	err := p.fx.do(fmt.Sprintf("create branch %s at %s", p.res.Branch, abbrev.Hash(p.res.Head)), func() error {
		return p.setBranch(ref, q)
	})
	if errors.Is(err, errSamePort) {
		// Another process ported the same patch at the same time: the
		// branch is what this port would have made it.
		p.fx.log = nil
		_, err := p.existing(ref)
		return err
	}
	if err != nil {
		return unwrapInterrupt(err)
	}
	if p.opts.Checkout {
		// Done by setBranch, under the branch's lock; recorded here, in
		// the order the user thinks of it.
		p.fx.do("check out "+ref.Short(), func() error { return nil })
	}
	return nil
}

// unwrapInterrupt returns the *InterruptedError in err as it is, without
// the effect's description around it: it says all there is to say.
func unwrapInterrupt(err error) error {
	if ie, ok := errors.AsType[*InterruptedError](err); ok {
		return ie
	}
	if re, ok := errors.AsType[*RaceError](err); ok {
		return re
	}
	return err
}

// existing handles a branch that exists already: done when it holds this
// port (then checked out if asked), an error when it holds anything else.
func (p *porter) existing(ref plumbing.ReferenceName) (done bool, err error) {
	old, err := p.g.refValue(ref.String())
	if err != nil || old == "" {
		return false, err
	}
	if !p.samePort(plumbing.NewHash(old)) {
		return true, fmt.Errorf("branch %s already exists (at %s) with other commits; delete it or choose another with {port.branch}", p.res.Branch, abbrev.Hash(old))
	}
	p.res.UpToDate = true
	p.res.Head = old
	p.fx.note(fmt.Sprintf("branch %s already holds this port at %s: nothing to do", p.res.Branch, abbrev.Hash(old)))
	if p.opts.Checkout {
		return true, p.fx.do("check out "+ref.Short(), func() error {
			_, err := git(p.g.dir, "checkout", "-q", ref.Short(), "--")
			return err
		})
	}
	return true, nil
}

// setBranch creates the branch at the port's head, by compare-and-swap
// against "does not exist", with the objects in q, and checks it out when
// asked.
func (p *porter) setBranch(ref plumbing.ReferenceName, q *quarantine) error {
	msg := fmt.Sprintf("patchbot port: %s onto %s", p.res.Commits[len(p.res.Commits)-1].Subject, abbrev.Hash(p.res.Base))
	zero := strings.Repeat("0", len(p.res.Head))
	if err := ctxErr(p.ctx); err != nil {
		return err
	}
	// git creates the directories a ref's lock needs, and leaves them
	// when the update is abandoned: those that are new are removed again.
	newDirs := p.g.missingRefDirs(ref.String())
	abort := func(tx *refTransaction) {
		if tx != nil {
			tx.abort()
		}
		removeEmptyDirs(newDirs)
	}
	tx, err := prepareRef(p.g.dir, q.env(), msg, ref.String(), p.res.Head, zero)
	if err != nil {
		abort(nil)
		return p.lost(ref, err)
	}
	p.hook("prepared")
	if err := ctxErr(p.ctx); err != nil {
		abort(tx)
		return err
	}
	if p.opts.Checkout {
		// Detached while the branch is locked: if git refuses (a file in
		// the way, the index locked by another git), nothing has changed.
		if _, err := gitIn(p.g.dir, q.env(), nil, "checkout", "-q", "--detach", p.res.Head, "--"); err != nil {
			abort(tx)
			return fmt.Errorf("{port.checkout}: %v; nothing was written", err)
		}
	}
	// From here on the port finishes: it holds the lock, and the rest
	// takes moments.
	if err := q.migrate(p.g.objects); err != nil {
		abort(tx)
		return fmt.Errorf("moving the objects into %s: %v (the branch was not created)", p.g.objects, err)
	}
	if err := tx.commit(); err != nil {
		return err
	}
	if p.opts.Checkout {
		if _, err := git(p.g.dir, "symbolic-ref", "-m", "patchbot port: check out "+ref.Short(), "HEAD", ref.String()); err != nil {
			return fmt.Errorf("branch %s is created and its commit checked out, but HEAD could not be attached to it: %v; run 'git checkout %s'", ref.Short(), err, ref.Short())
		}
	}
	return nil
}

// lost turns the failure to lock the branch into the error to report: a
// *RaceError when another process created the branch meanwhile (or holds
// its lock), or errSamePort when what it created is this very port.
func (p *porter) lost(ref plumbing.ReferenceName, err error) error {
	now, rerr := p.g.refValue(ref.String())
	if rerr != nil || now == "" {
		if ge, ok := err.(*gitError); ok && strings.Contains(ge.msg, ".lock': File exists") {
			return &RaceError{Branch: p.res.Branch, Now: "(being set)"}
		}
		return err
	}
	if p.samePort(plumbing.NewHash(now)) {
		return errSamePort
	}
	return &RaceError{Branch: p.res.Branch, Now: now}
}

// errSamePort says that another process has just set the branch to this
// same port.
var errSamePort = errors.New("the branch holds this port already")

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
		if c.TreeHash.String() != want.Tree || repo.ChangeID(c.Message) != want.ChangeID {
			return false
		}
		want.Hash = c.Hash.String()
		h = c.ParentHashes[0]
	}
	return h.String() == p.res.Base
}

// lockCheckout takes patchbot's lock on the work tree for a -checkout
// port, and returns the function that gives it back. Git serialises the
// index (index.lock) but not the whole of a checkout: between git checkout
// releasing the index and moving HEAD, a second checkout can start, and
// HEAD ends on one branch with the files of the other. Two -checkout ports
// in one work tree are therefore exclusive: the second is refused at once,
// before it writes anything.
func (p *porter) lockCheckout() (func(), error) {
	name := filepath.Join(p.g.gitDir, "patchbot-checkout.lock")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("{port.checkout}: another port with {port.checkout} is running in %s (%s exists); wait for it to finish, or remove the file if none is running", p.g.top(), name)
		}
		return nil, fmt.Errorf("{port.checkout}: %v", err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	f.Close()
	return func() { os.Remove(name) }, nil
}

// checkClean refuses a work tree with changes to tracked files, before
// anything is written, and notes the untracked files for checkUntracked.
// It asks git status, as git checkout itself would see the work tree;
// --no-optional-locks keeps it from refreshing the index, which would
// change the repository before anything is known to apply.
func (p *porter) checkClean() error {
	out, err := git(p.g.workTree, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none")
	if err != nil {
		return fmt.Errorf("{port.checkout}: %v", err)
	}
	var changed []string
	for _, e := range strings.Split(out, "\x00") {
		if len(e) < 4 {
			continue
		}
		name := filepath.FromSlash(e[3:])
		if e[:2] == "??" {
			p.untracked = append(p.untracked, name)
			continue
		}
		changed = append(changed, name)
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return fmt.Errorf("{port.checkout}: the work tree has changes (%s, and maybe more); commit or stash them first, or port without {port.checkout}", changed[0])
	}
	return nil
}

// checkUntracked refuses, before anything is written, a checkout that
// would overwrite an untracked file with one of the port's, with a message
// that says what to do (git checkout would refuse it too, later).
func (p *porter) checkUntracked() error {
	slices.Sort(p.untracked)
	for _, name := range p.untracked {
		if p.tree.lookup(filepath.ToSlash(name)) != nil {
			return fmt.Errorf("{port.checkout}: the port has a file %s where the work tree has an untracked one; move it away first, or port without {port.checkout}", name)
		}
	}
	return nil
}

// modeString formats a Git mode change for FileChange.Mode.
func modeString(old, new filemode.FileMode) string {
	if old == new || old == 0 || new == 0 {
		return ""
	}
	return fmt.Sprintf("%o -> %o", uint32(old), uint32(new))
}
