package port

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
)

// WriteText writes the result for people, as 'patchbot port' prints it:
// the changesets already present, then per commit its hash, subject,
// author, Change-Id, files with their +/- counts and the hunks that needed
// an offset or fuzz, then the remaps used and, for a dry run, the writes
// it would do. The text is written in one call to w.
func (r *Result) WriteText(w io.Writer) error {
	var b bytes.Buffer
	r.writeText(&b)
	_, err := w.Write(b.Bytes())
	return err
}

func (r *Result) writeText(w *bytes.Buffer) {
	for _, s := range r.Skipped {
		if s.Commit != "" {
			fmt.Fprintf(w, "already present: %s (Change-Id %s, in %s)\n", s.Subject, s.ChangeID, abbrev.Hash(s.Commit))
		} else {
			fmt.Fprintf(w, "already present: %s (its changes are in %s already; the patch applies in reverse)\n", s.Subject, abbrev.Hash(r.Base))
		}
	}
	n := len(r.Commits)
	switch {
	case n == 0:
		fmt.Fprintf(w, "nothing to port: every changeset is already in %s\n", abbrev.Hash(r.Base))
		return
	case r.UpToDate:
		fmt.Fprintf(w, "branch %s already holds this port (%d commit%s on %s); nothing to do\n", r.Branch, n, plural(n), abbrev.Hash(r.Base))
	case r.DryRun:
		fmt.Fprintf(w, "would port %d changeset%s onto %s as branch %s:\n", n, plural(n), abbrev.Hash(r.Base), r.Branch)
	default:
		fmt.Fprintf(w, "ported %d changeset%s onto %s as branch %s:\n", n, plural(n), abbrev.Hash(r.Base), r.Branch)
	}
	for _, c := range r.Commits {
		fmt.Fprintf(w, "\n%s %s\n", abbrev.Hash(c.Hash), c.Subject)
		fmt.Fprintf(w, "    Author: %s, %s\n", c.Author, c.AuthorDate.Format("2006-01-02 15:04:05 -0700"))
		fmt.Fprintf(w, "    Change-Id: %s\n", c.ChangeID)
		for _, f := range c.Files {
			fmt.Fprintf(w, "    %-40s %s\n", f.name(), f.change())
		}
		for _, a := range c.Adjustments {
			fmt.Fprintf(w, "    note: %s\n", a)
		}
	}
	for _, m := range r.Remaps {
		fmt.Fprintf(w, "\nremapped %s -> %s (%s)", m.From, m.To, m.Rule)
	}
	if len(r.Remaps) > 0 {
		fmt.Fprintln(w)
	}
	if r.DryRun {
		fmt.Fprintf(w, "\ndry run: %s\n", strings.Join(r.Actions, "; "))
	}
}

// name returns the file's path, "OLD => NEW" for a rename or copy.
func (f *FileChange) name() string {
	if f.OldPath != "" {
		return f.OldPath + " => " + f.Path
	}
	return f.Path
}

// change returns what changed in the file: "+A -D" or "binary", then the
// operation unless it is a modification, then a mode change.
func (f *FileChange) change() string {
	s := fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
	if f.Binary {
		s = "binary"
	}
	if op := f.Op.String(); op != "modify" {
		s += " (" + op + ")"
	}
	if f.Mode != "" {
		s += " (mode " + f.Mode + ")"
	}
	return s
}
