// Package bisect finds the commit that made benchmarks slower: between a
// good commit and a bad one, on the bad one's first-parent history, the
// first at which the benchmarks' time got worse than at the good one by
// more than a threshold.
//
// It is a binary search in which each step is an A/B comparison of
// benchmarks (step/benchrun, sequential: each benchmark run until its
// verdict is known): the good commit against the middle of what is left.
// A middle that is slower by more than the threshold is bad, one that is
// not is good; a middle whose comparison cannot tell stops the search
// there, which it names. For N commits after the good one the search
// takes ⌈log₂ N⌉ steps, and one more confirms the culprit against its own
// parent, so that a slowdown that came in steps (no single commit slower
// than its parent by the threshold) is not blamed on one of them.
//
// The verdict of a step is its benchmarks': slower when one of them is
// slower with an estimate beyond the threshold; not slower when every one
// is known not to be: decided faster or the same, slower by less, or with
// its interval's upper end under the threshold (the question is one-sided:
// a middle that may be faster, or the same, is good alike); undecided
// when neither, at the cap of runs. Only time (sec/op) counts.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/repo"
	"github.com/patchbot/patchbot/step/benchrun"
)

// MaxCommits bounds the history a bisection reads, first parents from the
// bad commit back to the good one.
const MaxCommits = 100000

// Options says what to bisect.
type Options struct {
	Dir       string  // a directory in the repository; "" means "."
	Good, Bad string  // revisions; Good must be a first-parent ancestor of Bad
	Threshold float64 // the slowdown that counts, 0.05 for 5%; > 0

	// Compare runs the benchmarks of the two commits (full hashes) and
	// compares them. The search gives the good commit first except in
	// the confirming step, which gives the culprit's parent.
	Compare func(ctx context.Context, old, new string) (*benchrun.Result, error)

	// Start, when set, is called once the range is known, before the
	// first step, with the result so far (its range); Step with each
	// step as it ends: a bisection takes minutes, and its user wants to
	// see it go.
	Start func(*Result)
	Step  func(Step)
}

// A Commit is one commit of the history.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
	// Rev is the revision as given, for the good and the bad commit
	// ("v1.2.0", "HEAD~3"); "" for the others.
	Rev string `json:"rev,omitempty"`
}

// A Result is what a bisection found.
type Result struct {
	Good      Commit  `json:"good"`
	Bad       Commit  `json:"bad"`
	Commits   int     `json:"commits"` // after Good, up to and including Bad
	Threshold float64 `json:"threshold"`

	// Culprit is the first commit slower than Good by more than the
	// threshold, confirmed slower than its parent; nil when there is
	// none, and Reason says why.
	Culprit *Commit `json:"culprit"`
	Reason  string  `json:"reason,omitempty"`

	Steps []Step `json:"steps"`
}

// Step verdicts.
const (
	Slower    = "slower"     // a benchmark slower by more than the threshold
	NotSlower = "not slower" // every benchmark decided otherwise
	Undecided = "undecided"  // neither, at the cap
)

// A Step is one A/B comparison of the search.
type Step struct {
	Old string `json:"old"` // full hashes
	New string `json:"new"`
	// Number is the step's, from 1; At is New's place among the Of
	// commits after Good, from 1 (Bad is Of), and Subject its subject
	// line.
	Number  int    `json:"number"`
	At      int    `json:"at"`
	Of      int    `json:"of"`
	Subject string `json:"subject"`
	Verdict string `json:"verdict"`
	// Confirm marks the last step: the culprit against its parent.
	Confirm bool `json:"confirm,omitempty"`
	// Rows are the benchmarks' time verdicts.
	Rows []Row `json:"rows"`
	// Result is the step's whole comparison, for a caller that shows
	// its tables; not in the JSON.
	Result *benchrun.Result `json:"-"`
}

// A Row is one benchmark's verdict in a step.
type Row struct {
	Package string   `json:"package,omitempty"`
	Name    string   `json:"name"`
	Verdict string   `json:"verdict"` // faster, slower, same or undecided
	Ratio   float64  `json:"ratio"`   // new/old, estimated
	Lo      float64  `json:"lo"`
	Hi      *float64 `json:"hi,omitempty"`
	N       int      `json:"n"` // runs a side, old
	Text    string   `json:"text"`
}

// MaxSteps returns the most steps a bisection of n commits takes:
// ⌈log₂ n⌉ and the confirmation.
func MaxSteps(n int) int {
	return int(math.Ceil(math.Log2(float64(max(n, 1))))) + 1
}

// Run bisects as opts says.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if !(opts.Threshold > 0) {
		return nil, fmt.Errorf("threshold %v: want a slowdown above 0, like 5%%", opts.Threshold)
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	r, err := repo.Open(dir)
	if err != nil {
		return nil, err
	}
	good, err := resolve(r, "good", opts.Good)
	if err != nil {
		return nil, err
	}
	bad, err := resolve(r, "bad", opts.Bad)
	if err != nil {
		return nil, err
	}
	commits, err := firstParents(bad, good.Hash)
	if err != nil {
		return nil, fmt.Errorf("%s..%s: %v", opts.Good, opts.Bad, err)
	}
	res := &Result{Good: commitOf(good), Bad: commitOf(bad), Commits: len(commits), Threshold: opts.Threshold, Steps: []Step{}}
	res.Good.Rev, res.Bad.Rev = opts.Good, opts.Bad
	if len(commits) == 0 {
		return nil, fmt.Errorf("%s and %s are the same commit: nothing to bisect", opts.Good, opts.Bad)
	}
	if opts.Start != nil {
		opts.Start(res)
	}

	step := func(old string, at int, confirm bool) (Step, error) {
		new := commits[at].Hash.String()
		r, err := opts.Compare(ctx, old, new)
		if err != nil {
			return Step{}, err
		}
		s := judge(r, opts.Threshold)
		s.Old, s.New, s.At, s.Subject, s.Confirm = old, new, at+1, commitOf(commits[at]).Subject, confirm
		s.Number, s.Of = len(res.Steps)+1, len(commits)
		res.Steps = append(res.Steps, s)
		if opts.Step != nil {
			opts.Step(s)
		}
		return s, nil
	}

	// commits[i] is the i-th commit after good; lo is the last known
	// not slower (-1: good itself), hi the first known slower (assumed
	// of bad until a step says otherwise).
	lo, hi := -1, len(commits)-1
	anySlower := false
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		s, err := step(good.Hash.String(), mid, false)
		if err != nil {
			return res, err
		}
		switch s.Verdict {
		case Slower:
			hi, anySlower = mid, true
		case NotSlower:
			lo = mid
		default:
			res.Reason = fmt.Sprintf("could not tell whether %s is slower than %s (%s): the culprit is after %s and at or before %s",
				abbrev.Hash(commits[mid].Hash.String()), abbrev.Hash(good.Hash.String()), undecidedRows(s), name(commits, lo, good), abbrev.Hash(commits[hi].Hash.String()))
			return res, nil
		}
	}
	parent := good.Hash.String()
	if lo >= 0 {
		parent = commits[lo].Hash.String()
	}
	culprit := commits[hi]
	s, err := step(parent, hi, true)
	if err != nil {
		return res, err
	}
	switch {
	case s.Verdict == Slower:
		c := commitOf(culprit)
		res.Culprit = &c
	case s.Verdict == Undecided:
		res.Reason = fmt.Sprintf("could not tell whether %s is slower than its parent %s (%s)", abbrev.Hash(culprit.Hash.String()), abbrev.Hash(parent), undecidedRows(s))
	case !anySlower:
		res.Reason = fmt.Sprintf("%s is not slower than %s by more than %g%%: no commit tested was, the last against its parent neither", abbrev.Hash(bad.Hash.String()), abbrev.Hash(good.Hash.String()), 100*opts.Threshold)
	default:
		res.Reason = fmt.Sprintf("no single commit explains it: %s is slower than %s, but not than its parent %s by more than %g%% (a slowdown in steps, or one commit's with another's)",
			abbrev.Hash(culprit.Hash.String()), abbrev.Hash(good.Hash.String()), abbrev.Hash(parent), 100*opts.Threshold)
	}
	return res, nil
}

// judge returns the verdict of a comparison for a bisection.
func judge(r *benchrun.Result, threshold float64) Step {
	s := Step{Result: r, Rows: []Row{}}
	if r.Run != nil && r.Run.Selection != nil && len(r.Run.Packages) == 0 {
		// The change affects no benchmark: nothing can be slower.
		s.Verdict = NotSlower
		return s
	}
	slower, undecided := false, false
	for _, t := range r.Tables {
		if t.Unit != "sec/op" {
			continue
		}
		for _, row := range t.Rows {
			c := row.Compare
			if c == nil {
				continue
			}
			rw := Row{Package: t.Get("pkg"), Name: row.Name, Verdict: c.Verdict, N: c.N1}
			if d := c.Decision; d != nil {
				rw.Verdict, rw.Ratio, rw.Lo, rw.Hi = d.Verdict, d.Ratio, d.Lo, d.Hi
			} else if row.Old.Center != 0 {
				rw.Ratio = row.New.Center / row.Old.Center
			}
			rw.Text = rowText(rw)
			switch {
			case rw.Verdict == benchrun.Slower && rw.Ratio-1 > threshold:
				slower = true
			case rw.Verdict == benchrun.Faster || rw.Verdict == benchrun.Same || rw.Verdict == benchrun.Slower:
			case rw.Hi != nil && *rw.Hi-1 < threshold:
				// Undecided, but not slower by the threshold.
			default:
				undecided = true
			}
			s.Rows = append(s.Rows, rw)
		}
	}
	switch {
	case slower:
		s.Verdict = Slower
	case undecided || len(s.Rows) == 0:
		s.Verdict = Undecided
	default:
		s.Verdict = NotSlower
	}
	return s
}

// rowText words a row's verdict: "Sum-2 slower +10.2% [+8.1%, +12.6%]
// (n=6)".
func rowText(r Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %+.1f%%", r.Name, r.Verdict, 100*(r.Ratio-1))
	if r.Hi != nil {
		fmt.Fprintf(&b, " [%+.1f%%, %+.1f%%]", 100*(r.Lo-1), 100*(*r.Hi-1))
	}
	fmt.Fprintf(&b, " (n=%d)", r.N)
	return b.String()
}

// undecidedRows names a step's undecided benchmarks.
func undecidedRows(s Step) string {
	var names []string
	for _, r := range s.Rows {
		if r.Verdict == benchrun.Undecided {
			names = append(names, fmt.Sprintf("%s undecided after %d runs a side", r.Name, r.N))
		}
	}
	if len(names) == 0 {
		return "no benchmark ran on both sides"
	}
	return strings.Join(names, "; ")
}

// name returns the abbreviated hash of commits[i], or of good for -1.
func name(commits []*object.Commit, i int, good *object.Commit) string {
	if i < 0 {
		return abbrev.Hash(good.Hash.String())
	}
	return abbrev.Hash(commits[i].Hash.String())
}

// ErrBadRevision is the error, wrapped, for a revision that names no
// commit: the user's mistake.
var ErrBadRevision = errors.New("not found")

func resolve(r *git.Repository, which, rev string) (*object.Commit, error) {
	c, err := repo.Resolve(r, rev)
	if err != nil {
		return nil, fmt.Errorf("%s revision %q: %w; name a commit, branch or tag", which, rev, ErrBadRevision)
	}
	return c, nil
}

// firstParents returns the commits after good up to bad on bad's
// first-parent history, oldest first.
func firstParents(bad *object.Commit, good plumbing.Hash) ([]*object.Commit, error) {
	list, end, err := repo.FirstParents(bad, func(c *object.Commit) bool { return c.Hash == good }, MaxCommits)
	switch {
	case err != nil:
		return nil, err
	case end == repo.AtMax:
		return nil, fmt.Errorf("the good commit is not within %d first parents of the bad one", MaxCommits)
	case end == repo.AtRoot:
		return nil, fmt.Errorf("%w: the good commit is not on the bad one's first-parent history; give an ancestor of it", ErrBadRevision)
	}
	slices.Reverse(list)
	return list, nil
}

func commitOf(c *object.Commit) Commit {
	return Commit{Hash: c.Hash.String(), Subject: repo.Subject(c)}
}
