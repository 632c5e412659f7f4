package port

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/patchbot/patchbot/step/hgpatch"
)

// A change is one file diff resolved against the tree: final paths and
// the new content.
type change struct {
	fd       *hgpatch.FileDiff
	old, new string // paths after remapping; "" when absent
	mode     filemode.FileMode
	oldMode  filemode.FileMode
	data     []byte
}

// applyFiles applies the file diffs of one changeset to p.tree. Every diff
// is computed against the tree as it was before the changeset (as
// Mercurial does: a copy reads the file before it was changed), and the
// tree changes only when all of them apply.
func (p *porter) applyFiles(pt *hgpatch.Patch) ([]FileChange, []Adjustment, []Failure) {
	t := p.tree
	var fails []Failure
	fail := func(fd *hgpatch.FileDiff, name, format string, args ...any) {
		fails = append(fails, Failure{File: name, PatchLine: fd.Line, Reason: fmt.Sprintf(format, args...)})
	}

	// Paths first: remap, then refuse anything unsafe before looking at
	// content.
	changes := make([]*change, len(pt.Files))
	for i, fd := range pt.Files {
		c := &change{fd: fd}
		changes[i] = c
		if fd.OldName != "" {
			c.old = p.remap(fd.OldName, false)
		}
		if fd.NewName != "" {
			if fd.Op == hgpatch.Modify {
				c.new = c.old
			} else {
				c.new = p.remap(fd.NewName, fd.Op == hgpatch.Add || fd.Op == hgpatch.Copy || fd.Op == hgpatch.Rename)
			}
		}
		for _, name := range []string{c.old, c.new} {
			if name == "" {
				continue
			}
			if err := checkPath(name); err != nil {
				fail(fd, name, "refused: %v", err)
			}
		}
	}
	if fails != nil {
		return nil, nil, fails
	}

	var adj []Adjustment
	for _, c := range changes {
		fd := c.fd
		name := c.new
		if name == "" {
			name = c.old
		}
		var old []byte
		switch fd.Op {
		case hgpatch.Add:
			if t.lookup(c.new) != nil {
				fail(fd, name, "file to create already exists (is the patch applied already?)")
				continue
			}
			c.mode = filemode.FileMode(fd.NewMode)
			if c.mode == 0 {
				c.mode = filemode.Regular
			}
		default:
			src := t.lookup(c.old)
			if src == nil {
				fail(fd, c.old, "file to %s does not exist", opVerb(fd.Op))
				continue
			}
			data, err := t.content(src)
			if err != nil {
				fail(fd, c.old, "%v", err)
				continue
			}
			old = data
			c.oldMode, c.mode = src.mode, src.mode
			if fd.NewMode != 0 {
				c.mode = filemode.FileMode(fd.NewMode)
			}
			if fd.Op == hgpatch.Delete {
				c.mode = 0
			}
			if (fd.Op == hgpatch.Rename || fd.Op == hgpatch.Copy) && t.lookup(c.new) != nil {
				fail(fd, c.new, "%s target already exists", fd.Op)
				continue
			}
		}
		switch {
		case fd.Binary != nil:
			data, err := fd.Binary.Apply(old)
			if err != nil {
				fail(fd, name, "binary patch does not apply: %v", err)
				continue
			}
			c.data = data
		case len(fd.Hunks) > 0:
			data, a, f := applyText(name, old, fd.Hunks, p.opts.Fuzz)
			for i := range f {
				f[i].PatchLine = f[i].hunk.Line
			}
			fails = append(fails, f...)
			adj = append(adj, a...)
			c.data = data
		default:
			c.data = old
		}
		if fd.Op == hgpatch.Delete && len(c.data) > 0 && fd.Binary == nil {
			fail(fd, name, "file to delete has content the patch does not remove (%d bytes left)", len(c.data))
		}
	}
	if fails != nil {
		return nil, nil, fails
	}

	// All diffs apply: change the tree. Removals first, so that a file can
	// give way to a directory of the same name.
	for _, c := range changes {
		if c.fd.Op == hgpatch.Delete || c.fd.Op == hgpatch.Rename {
			t.remove(c.old)
		}
	}
	var files []FileChange
	for _, c := range changes {
		fd := c.fd
		fc := FileChange{Op: fd.Op, Binary: fd.Binary != nil, Mode: modeString(c.oldMode, c.mode)}
		fc.Added, fc.Deleted = fd.Counts()
		switch fd.Op {
		case hgpatch.Delete:
			fc.Path = c.old
		case hgpatch.Rename, hgpatch.Copy:
			fc.Path, fc.OldPath = c.new, c.old
		default:
			fc.Path = c.new
		}
		files = append(files, fc)
		if fd.Op != hgpatch.Delete {
			t.set(c.new, c.mode, c.data)
		}
	}

	// Nothing may be written through a symbolic link, one in the base or one
	// this changeset creates, nor where a file would need to be a
	// directory.
	for _, c := range changes {
		if c.new == "" {
			continue
		}
		for d := parentDir(c.new); d != ""; d = parentDir(d) {
			if f := t.lookup(d); f != nil {
				what := "a file"
				if f.mode == filemode.Symlink {
					what = "a symbolic link"
				}
				fail(c.fd, c.new, "refused: %s is %s, and writing through it could reach outside the tree", d, what)
				break
			}
		}
		if t.baseDir(c.new) != nil || t.added[c.new] > 0 {
			fail(c.fd, c.new, "refused: %s is a directory", c.new)
		}
	}
	if fails != nil {
		return nil, nil, fails
	}
	return files, adj, nil
}

func opVerb(op hgpatch.Op) string {
	switch op {
	case hgpatch.Delete:
		return "delete"
	case hgpatch.Rename:
		return "rename"
	case hgpatch.Copy:
		return "copy"
	}
	return "change"
}

// remap rewrites a path by the configured remaps and records the use.
func (p *porter) remap(name string, creates bool) string {
	to, r := p.tree.remap(name, creates, p.opts.Remaps)
	if r != nil {
		use := RemapUse{Rule: r.String(), From: name, To: to}
		for _, u := range p.res.Remaps {
			if u == use {
				return to
			}
		}
		p.res.Remaps = append(p.res.Remaps, use)
	}
	return to
}
