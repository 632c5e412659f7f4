package port

import (
	"bytes"

	"github.com/patchbot/patchbot/step/hgpatch"
)

// alreadyApplied reports whether the changes of pt are already in the tree:
// the patch reversed applies exactly (no offset search is needed for that
// to be convincing, but none is refused either; no fuzz). patch(1) makes
// the same check ("Reversed (or previously applied) patch detected").
// Binary changes cannot be reversed without their reverse data, so a
// changeset with one is never reported as applied.
func (p *porter) alreadyApplied(pt *hgpatch.Patch) bool {
	if len(pt.Files) == 0 {
		return false
	}
	rev := &hgpatch.Patch{File: pt.File, Line: pt.Line, Git: pt.Git}
	for _, f := range pt.Files {
		if f.Binary != nil {
			return false
		}
		r := *f
		r.OldName, r.NewName = f.NewName, f.OldName
		r.OldMode, r.NewMode = f.NewMode, f.OldMode
		switch f.Op {
		case hgpatch.Add:
			r.Op = hgpatch.Delete
		case hgpatch.Delete:
			r.Op = hgpatch.Add
		case hgpatch.Copy:
			// A copy is present when the copy's content is the source's
			// with the hunks applied.
			if !p.copyPresent(pt, f) {
				return false
			}
			continue
		}
		r.Hunks = nil
		for _, h := range f.Hunks {
			rh := &hgpatch.Hunk{Line: h.Line, Header: h.Header,
				OldStart: h.NewStart, OldLines: h.NewLines, NewStart: h.OldStart, NewLines: h.OldLines}
			for _, l := range h.Lines {
				switch l.Op {
				case '+':
					l.Op = '-'
				case '-':
					l.Op = '+'
				}
				rh.Lines = append(rh.Lines, l)
			}
			r.Hunks = append(r.Hunks, rh)
		}
		rev.Files = append(rev.Files, &r)
	}
	// Apply to a scratch copy of the tree, with no remap reporting and no
	// fuzz.
	saved := p.tree.save()
	defer p.tree.restore(saved)
	q := &porter{opts: &Options{Remaps: p.opts.Remaps}, tree: p.tree, res: &Result{}}
	_, _, fails := q.applyFiles(rev)
	return len(fails) == 0
}

// copyPresent reports whether the copy f of pt is in the tree: its target
// holds the source with f's hunks applied, and no other diff of pt touches
// the source (which would make the source in the tree not the one copied).
func (p *porter) copyPresent(pt *hgpatch.Patch, f *hgpatch.FileDiff) bool {
	for _, g := range pt.Files {
		if g != f && (g.NewName == f.OldName || g.OldName == f.OldName && g.Op != hgpatch.Copy) {
			return false
		}
	}
	src := p.tree.lookup(p.tree.remapQuiet(f.OldName, false, p.opts.Remaps))
	dst := p.tree.lookup(p.tree.remapQuiet(f.NewName, false, p.opts.Remaps))
	if src == nil || dst == nil {
		return false
	}
	old, err1 := p.tree.content(src)
	have, err2 := p.tree.content(dst)
	if err1 != nil || err2 != nil {
		return false
	}
	want, _, fails := applyText(f.NewName, old, f.Hunks, 0)
	return len(fails) == 0 && bytes.Equal(want, have)
}
