// Package hgpatch parses the patches Mercurial writes: 'hg export' streams
// of one or many changesets, plain 'hg diff' output, git-style diffs
// ('hg diff --git', 'hg export --git') and the raw patches the old review
// site (codereview.appspot.com) served, which are git-style diffs whose
// 'diff --git' lines were replaced by 'Index:' and a line of '='.
//
// The format is detected from the text. Parsing is strict: input that is not
// one of these formats is reported as a *SyntaxError naming the file and the
// line, never skipped and never guessed at, because a patch that is silently
// misread produces a tree nobody wrote. Parsing never panics on any input
// (FuzzParse checks this).
//
// The package only reads patches; step/port applies them.
package hgpatch

import (
	"fmt"
	"time"
)

// A Patch is one changeset of an 'hg export' stream, or the whole of a
// patch without changeset metadata (a plain or git-style diff).
type Patch struct {
	File string // name of the input, as given to Parse
	Line int    // line of the input where the patch starts

	// Header is the changeset metadata of an 'hg export' patch; nil for a
	// diff without metadata.
	Header *Header

	// Message is the changeset description, or the text before the first
	// diff of a patch without metadata (often empty). It has no trailing
	// newline.
	Message string

	// Files are the file diffs, in the order of the input.
	Files []*FileDiff

	// Git reports whether the diffs are git-style (renames, copies, modes
	// and binary data can be expressed), as opposed to plain 'hg diff'.
	Git bool
}

// A Header is the metadata 'hg export' writes before the description.
type Header struct {
	User    string    // '# User': usually "Name <email>", but any string
	Date    time.Time // '# Date', in the changeset's own time zone
	Node    string    // '# Node ID', 40 hex digits; "" if absent
	Parents []string  // '# Parent' lines: one, or two for a merge
	Branch  string    // '# Branch'; "" for the default branch

	// Extra holds the other '# Key value' lines (from extensions, such as
	// '# EXP-Topic'), in input order.
	Extra []KeyValue
}

// A KeyValue is one '# Key value' header line.
type KeyValue struct {
	Key, Value string
}

// An Op is what a file diff does to its file.
type Op int

const (
	Modify Op = iota // change the content or the mode of an existing file
	Add              // create a file
	Delete           // remove a file
	Rename           // move OldName to NewName, possibly changing it
	Copy             // copy OldName to NewName, possibly changing the copy
)

var opNames = [...]string{"modify", "add", "delete", "rename", "copy"}

func (op Op) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// MarshalText makes an Op print as its name in JSON.
func (op Op) MarshalText() ([]byte, error) { return []byte(op.String()), nil }

// File modes as Git records them. Mercurial knows only these three.
const (
	ModeRegular    = 0o100644
	ModeExecutable = 0o100755
	ModeSymlink    = 0o120000
)

// A FileDiff is the change to one file.
type FileDiff struct {
	Line int // line of the input where the file's diff starts
	Op   Op

	// OldName is the path before the change and NewName the path after
	// it; for Add, OldName is "" and for Delete, NewName is "". Paths are
	// slash-separated, relative, without the a/ and b/ prefixes, and not
	// yet checked for safety (that is the applier's job).
	OldName, NewName string

	// OldMode and NewMode are Git modes (ModeRegular, ...), or 0 when the
	// diff does not say (plain diffs never do; git-style diffs say only
	// when a file is added, deleted or changes mode).
	OldMode, NewMode uint32

	// Hunks are the text changes, in order.
	Hunks []*Hunk

	// Binary is the binary change of a git-style diff, or nil.
	Binary *Binary
}

// Name returns the path the diff is about: NewName, or OldName for a
// deleted file.
func (f *FileDiff) Name() string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}

// A Hunk is one '@@ -a,b +c,d @@' section of a text diff.
type Hunk struct {
	Line     int    // line of the '@@' header in the input
	Header   string // the '@@' line, without its line ending
	OldStart int    // first old line (1-based; 0 when OldLines is 0)
	OldLines int
	NewStart int
	NewLines int
	Lines    []Line
}

// A Line is one line of a hunk.
type Line struct {
	Op byte // ' ' (context), '-' (delete) or '+' (add)

	// Text is the line's content with its line ending as it was in the
	// file: "\n", "\r\n", or none at all for a last line that had no
	// newline ("\ No newline at end of file").
	Text string
}

// Counts returns the number of added and deleted lines in f.
func (f *FileDiff) Counts() (added, deleted int) {
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case '+':
				added++
			case '-':
				deleted++
			}
		}
	}
	return added, deleted
}

// A SyntaxError reports input that is not a patch Mercurial could have
// written, with its position.
type SyntaxError struct {
	File string // name of the input
	Line int    // 1-based line
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}
