package port

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/patchbot/patchbot/step/hgpatch"
)

// effects is the one path through which a port changes anything outside
// its memory: objects, refs, the work tree, reject files. With dryRun it
// records what it would do and does nothing, so -n cannot miss a write.
type effects struct {
	dryRun bool
	log    []string
}

// do runs fn, which performs the write described by what, unless this is a
// dry run.
func (e *effects) do(what string, fn func() error) error {
	if e.dryRun {
		e.log = append(e.log, "would "+what)
		return nil
	}
	if err := fn(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	e.log = append(e.log, what)
	return nil
}

// note records something the port decided not to do.
func (e *effects) note(what string) { e.log = append(e.log, what) }

// fail turns the failures of changeset i of n into an *ApplyError, writing
// the failing hunks to the reject directory when there is one.
func (p *porter) fail(pt *hgpatch.Patch, i, n int, fails []Failure) error {
	what := "the patch"
	if n > 1 || pt.Header != nil {
		what = fmt.Sprintf("changeset %d of %d", i+1, n)
		if s := subject(pt.Message); s != "" {
			what += fmt.Sprintf(" (%q)", s)
		}
	}
	e := &ApplyError{Patch: pt.File, Changeset: what, Failures: fails}
	if p.opts.RejectDir == "" {
		return e
	}
	byFile := map[string][]Failure{}
	var order []string
	for _, f := range fails {
		if f.hunk == nil {
			continue
		}
		if byFile[f.File] == nil {
			order = append(order, f.File)
		}
		byFile[f.File] = append(byFile[f.File], f)
	}
	for _, name := range order {
		rej := name + ".rej"
		dst := filepath.Join(p.opts.RejectDir, filepath.FromSlash(rej))
		if err := p.fx.do("write "+dst, func() error {
			return writeReject(p.opts.RejectDir, rej, rejectText(name, byFile[name]))
		}); err != nil {
			return fmt.Errorf("%v (while reporting: %v)", err, e)
		}
		if !p.fx.dryRun {
			e.Rejects = append(e.Rejects, dst)
		}
	}
	return e
}

// rejectText formats failing hunks as a patch, as patch(1) writes .rej
// files.
func rejectText(name string, fails []Failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	for _, f := range fails {
		b.WriteString(f.hunk.Header + "\n")
		for _, l := range f.hunk.Lines {
			b.WriteByte(l.Op)
			b.WriteString(l.Text)
			if !strings.HasSuffix(l.Text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// writeReject writes a reject file under dir. Names come from the patch,
// which was checked by checkPath; os.Root keeps the write inside dir even
// if dir holds symbolic links.
func writeReject(dir, name, text string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o777); err != nil {
			return err
		}
	}
	return root.WriteFile(name, []byte(text), 0o666)
}
