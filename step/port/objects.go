package port

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// A quarantine is a private object directory inside the repository's
// (objects/tmp_objdir-patchbot-*), where the port writes its objects as
// loose objects before it holds the branch's lock, as git receive-pack
// quarantines a push. Git commands see them only when told to
// (GIT_ALTERNATE_OBJECT_DIRECTORIES, see env); other processes never see
// them, so none can come to depend on an object that a failed or
// interrupted port then removes. Only once the branch is locked for this
// port are they moved into the repository (migrate), and from then on
// nothing is removed. The port writes loose objects itself rather than
// through go-git, whose writer leaves tmp_obj_* files in objects/pack
// when it is interrupted.
type quarantine struct {
	dir   string   // the quarantine directory
	names []string // the objects written, as "ab/cdef…"
}

func newQuarantine(objects string) (*quarantine, error) {
	dir, err := os.MkdirTemp(objects, "tmp_objdir-patchbot-")
	if err != nil {
		return nil, err
	}
	return &quarantine{dir: dir}, nil
}

// env is the environment that lets a git command read the quarantined
// objects.
func (q *quarantine) env() []string {
	return []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + q.dir}
}

// write writes obj as a loose object: zlib of "TYPE SIZE\0" and the
// content, at XX/YYYY… by its hash.
func (q *quarantine) write(obj plumbing.EncodedObject) error {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	fmt.Fprintf(zw, "%s %d\x00", obj.Type(), obj.Size())
	r, err := obj.Reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(zw, r)
	r.Close()
	if err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	h := obj.Hash().String()
	name := filepath.Join(h[:2], h[2:])
	if err := os.MkdirAll(filepath.Join(q.dir, h[:2]), 0o777); err != nil {
		return err
	}
	// Loose objects are read-only, as git writes them.
	if err := os.WriteFile(filepath.Join(q.dir, name), buf.Bytes(), 0o444); err != nil {
		return err
	}
	q.names = append(q.names, name)
	return nil
}

// migrate moves the quarantined objects into the object directory. It
// links each into place (an object already there is the same object, and
// is left alone), falling back to a rename, as git's finalize_object_file
// does; both are atomic, so a reader never sees half an object.
func (q *quarantine) migrate(objects string) error {
	for _, name := range q.names {
		src, dst := filepath.Join(q.dir, name), filepath.Join(objects, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return err
		}
		err := os.Link(src, dst)
		if err == nil || errors.Is(err, fs.ErrExist) {
			continue
		}
		if _, serr := os.Stat(dst); serr == nil {
			continue
		}
		if err := os.Rename(src, dst); err != nil {
			return err
		}
	}
	return nil
}

// remove removes the quarantine and what is left in it.
func (q *quarantine) remove() error {
	return os.RemoveAll(q.dir)
}

// writeObjects writes the objects the port created that the repository
// lacks into a new quarantine, stopping when ctx is done. On failure the
// quarantine is removed again.
func (p *porter) writeObjects(ctx context.Context) (*quarantine, error) {
	q, err := newQuarantine(p.g.objects)
	if err != nil {
		return nil, err
	}
	err = p.tree.each(func(obj plumbing.EncodedObject) error {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		p.hook("write object")
		if err := p.repo.Storer.HasEncodedObject(obj.Hash()); err == nil {
			return nil
		} else if !errors.Is(err, plumbing.ErrObjectNotFound) {
			return err
		}
		return q.write(obj)
	})
	if err != nil {
		q.remove()
		return nil, err
	}
	return q, nil
}
