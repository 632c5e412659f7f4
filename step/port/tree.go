package port

import (
	"fmt"
	"io"
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

// A tree is the files of the base commit with the port's changes laid
// over them. New objects (blobs, trees, commits) go to an in-memory store
// and reach the repository only when the whole port has succeeded, so a
// failed port writes nothing, not even loose objects.
type tree struct {
	repo  storer.EncodedObjectStorer // the repository's objects, read only
	mem   *memory.Storage            // objects the port creates
	base  *object.Tree
	dirs  map[string]*object.Tree // base subtrees read so far; nil: not a directory
	over  map[string]*file        // changed paths; nil: deleted
	added map[string]int          // directories holding files the port added, with counts
}

// A file is a file's mode and content.
type file struct {
	mode filemode.FileMode
	hash plumbing.Hash
	data []byte // nil until read
}

func newTree(repo storer.EncodedObjectStorer, base *object.Tree) *tree {
	return &tree{
		repo:  repo,
		mem:   memory.NewStorage(),
		base:  base,
		dirs:  map[string]*object.Tree{"": base},
		over:  map[string]*file{},
		added: map[string]int{},
	}
}

// baseDir returns the base's tree at dir, or nil when dir is not a
// directory in the base.
func (t *tree) baseDir(dir string) *object.Tree {
	if d, ok := t.dirs[dir]; ok {
		return d
	}
	var d *object.Tree
	if parent := t.baseDir(parentDir(dir)); parent != nil {
		for _, e := range parent.Entries {
			if e.Name == path.Base(dir) && e.Mode == filemode.Dir {
				d, _ = object.GetTree(t.repo, e.Hash)
				break
			}
		}
	}
	t.dirs[dir] = d
	return d
}

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// lookup returns the file at p, or nil when there is none (p is missing,
// deleted or a directory).
func (t *tree) lookup(p string) *file {
	if f, ok := t.over[p]; ok {
		return f
	}
	d := t.baseDir(parentDir(p))
	if d == nil {
		return nil
	}
	name := path.Base(p)
	for _, e := range d.Entries {
		if e.Name == name && e.Mode != filemode.Dir && e.Mode != filemode.Submodule {
			return &file{mode: e.Mode, hash: e.Hash}
		}
	}
	return nil
}

// isDir reports whether p is a directory: in the base, or made by files the
// port added.
func (t *tree) isDir(p string) bool {
	return p == "" || t.baseDir(p) != nil || t.added[p] > 0
}

// content returns the content of f.
func (t *tree) content(f *file) ([]byte, error) {
	if f.data != nil {
		return f.data, nil
	}
	obj, err := t.mem.EncodedObject(plumbing.BlobObject, f.hash)
	if err != nil {
		obj, err = t.repo.EncodedObject(plumbing.BlobObject, f.hash)
	}
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %v", f.hash, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	f.data = data
	return data, nil
}

// set makes p a file with the given mode and content.
func (t *tree) set(p string, mode filemode.FileMode, data []byte) {
	if data == nil {
		data = []byte{}
	}
	obj := t.mem.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, _ := obj.Writer()
	w.Write(data) // memory objects do not fail
	w.Close()
	h, _ := t.mem.SetEncodedObject(obj)
	if t.lookup(p) == nil {
		for d := parentDir(p); d != ""; d = parentDir(d) {
			t.added[d]++
		}
	}
	t.over[p] = &file{mode: mode, hash: h, data: data}
}

// A savedTree is the changes of a tree at some point, to go back to.
type savedTree struct {
	over  map[string]*file
	added map[string]int
}

func (t *tree) save() savedTree {
	return savedTree{maps.Clone(t.over), maps.Clone(t.added)}
}

func (t *tree) restore(s savedTree) {
	t.over, t.added = s.over, s.added
}

// remove deletes the file at p.
func (t *tree) remove(p string) {
	t.over[p] = nil
}

// write writes the tree objects of the current state and returns the root
// tree's hash. Only directories with changes get new tree objects; the
// others keep their base hashes.
func (t *tree) write() (plumbing.Hash, error) {
	children := map[string]map[string]bool{}
	for p := range t.over {
		for child := p; child != ""; child = parentDir(child) {
			dir := parentDir(child)
			if children[dir] == nil {
				children[dir] = map[string]bool{}
			}
			children[dir][path.Base(child)] = true
		}
	}
	h, _, err := t.writeDir("", children)
	return h, err
}

func (t *tree) writeDir(dir string, children map[string]map[string]bool) (plumbing.Hash, bool, error) {
	entries := map[string]object.TreeEntry{}
	if d := t.baseDir(dir); d != nil {
		for _, e := range d.Entries {
			entries[e.Name] = e
		}
	}
	for name := range children[dir] {
		p := path.Join(dir, name)
		if f, ok := t.over[p]; ok {
			if f == nil {
				delete(entries, name)
			} else {
				entries[name] = object.TreeEntry{Name: name, Mode: f.mode, Hash: f.hash}
			}
		}
		if _, ok := children[p]; ok {
			h, empty, err := t.writeDir(p, children)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if !empty {
				if e, ok := entries[name]; ok && e.Mode != filemode.Dir {
					return plumbing.ZeroHash, false, fmt.Errorf("%s is both a file and a directory", p)
				}
				entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
			} else if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
				delete(entries, name)
			}
		}
	}
	if len(entries) == 0 && dir != "" {
		return plumbing.ZeroHash, true, nil
	}
	tr := &object.Tree{Entries: make([]object.TreeEntry, 0, len(entries))}
	for _, e := range entries {
		tr.Entries = append(tr.Entries, e)
	}
	sort.Sort(object.TreeEntrySorter(tr.Entries))
	h, err := t.store(tr)
	return h, false, err
}

// store encodes o into the in-memory store.
func (t *tree) store(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	obj := t.mem.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return t.mem.SetEncodedObject(obj)
}

// count returns the number of objects the port created.
func (t *tree) count() int {
	return len(t.mem.Blobs) + len(t.mem.Trees) + len(t.mem.Commits)
}

// each calls fn for each object the port created: blobs, then trees, then
// commits. It stops at the first error.
func (t *tree) each(fn func(plumbing.EncodedObject) error) error {
	for _, m := range []map[plumbing.Hash]plumbing.EncodedObject{t.mem.Blobs, t.mem.Trees, t.mem.Commits} {
		for _, obj := range m {
			if err := fn(obj); err != nil {
				return err
			}
		}
	}
	return nil
}
