// Package track keeps a branch's benchmark history and finds where it
// changed: the commits of the branch, recorded one after another (each
// commit's benchmarks run by step/benchrun, interleaved with a reference
// commit's), in a Store on a SQL database (SQLite or PostgreSQL: the one
// the queue uses, beside its tables); the change points of each
// benchmark's series (step/changepoint), each recorded once, with what
// its bisection and comment made of it; and the History a reader of the
// store gets (the CLI's -show, serve's status page and /api/series).
//
// Only the first-parent history counts, as in git bisect --first-parent:
// the branch's own commits, one per merged change, not the commits of the
// branches it merged.
package track

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/repo"
	"github.com/patchbot/patchbot/step/changepoint"
)

// MaxWalk bounds the first parents Pending reads back from the branch's
// head to the last recorded commit.
const MaxWalk = 100000

// A Plan is what a run of track records: the commits, oldest first, and
// how many of the branch's new commits wait for later runs.
type Plan struct {
	Head    string   // the branch's head, resolved
	Commits []Commit // to record now, oldest first
	New     int      // first-parent commits after the last recorded one
	Left    int      // of the chosen ones, those beyond Max, for later runs
}

// PlanOptions say which commits a run records.
type PlanOptions struct {
	Dir    string // a directory in the repository; "" means "."
	Branch string // the revision whose history is tracked; "" means HEAD
	// Last is the track's last recorded commit, nil when none is.
	Last *Commit
	// Every records one commit in Every (every commit for 1): the
	// Every-th after the last recorded one, and so on.
	Every int
	// Max bounds the commits recorded in one run, oldest first, so that
	// a backlog is worked off over several runs. On a track's first run
	// the history starts Every×Max commits back.
	Max int
}

// Pending returns the commits a run records, as o says.
func Pending(o PlanOptions) (*Plan, error) {
	if o.Every < 1 || o.Max < 1 {
		return nil, fmt.Errorf("track: every %d, max %d: both must be at least 1", o.Every, o.Max)
	}
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	branch := o.Branch
	if branch == "" {
		branch = "HEAD"
	}
	r, err := repo.Open(dir)
	if err != nil {
		return nil, err
	}
	head, err := repo.Resolve(r, branch)
	if err != nil {
		return nil, fmt.Errorf("branch %q: not found (%v); name a branch, tag or commit", branch, err)
	}
	// newest first, back to the last recorded commit (or the start).
	limit := o.Every * o.Max
	var stop func(*object.Commit) bool
	if o.Last != nil {
		limit = MaxWalk
		stop = func(c *object.Commit) bool { return c.Hash.String() == o.Last.Hash }
	}
	list, end, err := repo.FirstParents(head, stop, limit)
	switch {
	case err != nil:
		return nil, err
	case o.Last != nil && end == repo.AtMax:
		return nil, fmt.Errorf("%s: the last recorded commit %s is not within %d first parents of it: was the branch rewritten? Track it under another name", branch, abbrev.Hash(o.Last.Hash), MaxWalk)
	case o.Last != nil && end == repo.AtRoot:
		return nil, fmt.Errorf("%s: the last recorded commit %s is not on its first-parent history: was the branch rewritten? Track it under another name", branch, abbrev.Hash(o.Last.Hash))
	}
	p := &Plan{Head: head.Hash.String(), New: len(list)}
	// Oldest first; the chosen ones are every Every-th after the last
	// recorded one, or on a first run those that end at the head.
	var chosen []*object.Commit
	for i := len(list) - 1; i >= 0; i-- {
		k := len(list) - i // 1 for the oldest
		if o.Last == nil {
			k = i + o.Every // the head (i = 0) is chosen
		}
		if k%o.Every == 0 {
			chosen = append(chosen, list[i])
		}
	}
	if len(chosen) > o.Max {
		if o.Last == nil {
			chosen = chosen[len(chosen)-o.Max:]
		} else {
			p.Left = len(chosen) - o.Max
			chosen = chosen[:o.Max]
		}
	}
	for _, c := range chosen {
		p.Commits = append(p.Commits, Commit{Hash: c.Hash.String(), Subject: repo.Subject(c), Time: c.Committer.When.UTC()})
	}
	return p, nil
}

// Unit is the unit whose series are searched for change points: time, the
// unit bisect judges by. The others are recorded and shown.
const Unit = "sec/op"

// Detect returns the change points of the series of unit Unit, found with
// o (step/changepoint), as Changes to record: a slowdown StateFound, a
// speedup StateImproved. A change's range to bisect starts two recorded
// commits before it and ends one after: with a few noisy points a side, a
// change point is now and then placed one point off (in the tests'
// model of 5 points at 2% noise, about one time in five), and a
// bisection of a range that missed the change finds nothing. Two more
// points cost a bisection two steps at most, where every commit is
// recorded one.
func Detect(series []*Series, o changepoint.Options) []*Change {
	var out []*Change
	for _, s := range series {
		if s.Key.Unit != Unit {
			continue
		}
		if o.Log {
			s = positive(s)
		}
		for _, p := range changepoint.Detect(s.Points, o) {
			c := &Change{Key: s.Key, Hash: s.Hashes[p.Index], Prev: s.Hashes[p.Index-1], Before: p.Before, After: p.After, P: p.P, State: StateFound}
			c.Good = s.Hashes[max(p.Index-2, 0)]
			c.Bad = s.Hashes[min(p.Index+1, len(s.Hashes)-1)]
			if p.After < p.Before {
				c.State = StateImproved
			}
			out = append(out, c)
		}
	}
	return out
}

// positive returns s without its points that are not positive (a time of
// 0, which a benchmark that does nothing can report): their logarithms are
// not numbers.
func positive(s *Series) *Series {
	out := &Series{Key: s.Key}
	for i, v := range s.Points {
		if v > 0 {
			out.Hashes, out.Points = append(out.Hashes, s.Hashes[i]), append(out.Points, v)
		}
	}
	return out
}
