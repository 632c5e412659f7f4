package port

import (
	"fmt"
	"slices"
	"strings"

	"github.com/patchbot/patchbot/step/hgpatch"
)

// An Adjustment records a hunk that applied somewhere other than where its
// header said, or with context ignored, as patch(1) reports it.
type Adjustment struct {
	File   string `json:"file"`
	Hunk   int    `json:"hunk"`   // 1-based
	Line   int    `json:"line"`   // where it applied (1-based, old file)
	Offset int    `json:"offset"` // lines away from the header's position
	Fuzz   int    `json:"fuzz"`   // context lines ignored at each end
}

func (a Adjustment) String() string {
	s := fmt.Sprintf("%s: hunk %d applied at line %d", a.File, a.Hunk, a.Line)
	var notes []string
	if a.Offset != 0 {
		notes = append(notes, fmt.Sprintf("offset %+d line%s", a.Offset, plural(a.Offset)))
	}
	if a.Fuzz != 0 {
		notes = append(notes, fmt.Sprintf("fuzz %d", a.Fuzz))
	}
	return s + " (" + strings.Join(notes, ", ") + ")"
}

func plural(n int) string {
	if n == 1 || n == -1 {
		return ""
	}
	return "s"
}

// A Failure is one thing of a patch that could not be applied: a hunk
// whose context was not found, or a file operation that does not fit the
// tree (a file to change that is missing, a file to add that exists).
type Failure struct {
	File      string   `json:"file"`
	PatchLine int      `json:"patch_line"`     // line in the patch input
	Hunk      int      `json:"hunk,omitempty"` // 1-based; 0 for a file-level failure
	Hunks     int      `json:"hunks,omitempty"`
	Header    string   `json:"header,omitempty"` // the hunk's '@@' line
	Reason    string   `json:"reason"`
	Mismatch  []string `json:"mismatch,omitempty"` // the lines that did not match

	hunk *hgpatch.Hunk // for -reject
}

// applyText applies the hunks of a file diff to old, searching for each
// hunk's context near where its header puts it (and anywhere after the
// previous hunk), and then with up to maxFuzz context lines ignored at each
// end, as patch(1) does. Failing hunks are reported and skipped, so that
// one run reports every failure.
func applyText(name string, old []byte, hunks []*hgpatch.Hunk, maxFuzz int) (out []byte, adj []Adjustment, fails []Failure) {
	lines := splitLines(old)
	var b strings.Builder
	b.Grow(len(old) + len(old)/8)
	cursor := 0 // lines[:cursor] are written or consumed
	delta := 0  // where the last hunk applied minus where its header said
	for i, h := range hunks {
		pre, post := sides(h)
		lead, trail := contextEnds(h)
		want := h.OldStart - 1
		if h.OldLines == 0 {
			want = h.OldStart // "-5,0" inserts after line 5
		}
		pos, fuzz := -1, 0
		for fuzz = 0; fuzz <= maxFuzz && pos < 0; fuzz++ {
			top, bot := min(fuzz, lead), min(fuzz, trail)
			if fuzz > 0 && top == 0 && bot == 0 {
				break // nothing left to ignore
			}
			p := pre[top : len(pre)-bot]
			pos = search(lines, p, want+delta+top, cursor)
			if pos >= 0 {
				pos -= top
				writeLines(&b, lines[cursor:pos+top])
				writeLines(&b, post[top:len(post)-bot])
				cursor = pos + top + len(p)
				break
			}
		}
		if pos < 0 {
			fails = append(fails, Failure{
				File: name, PatchLine: h.Line, Hunk: i + 1, Hunks: len(hunks), Header: h.Header,
				Reason:   "context not found",
				Mismatch: mismatch(lines, pre, max(want+delta, 0)),
				hunk:     h,
			})
			continue
		}
		if offset := pos - want; offset != 0 || fuzz > 0 {
			adj = append(adj, Adjustment{File: name, Hunk: i + 1, Line: pos + 1, Offset: offset, Fuzz: fuzz})
		}
		delta = pos - want
	}
	writeLines(&b, lines[cursor:])
	return []byte(b.String()), adj, fails
}

// sides returns the old and new lines of h.
func sides(h *hgpatch.Hunk) (pre, post []string) {
	for _, l := range h.Lines {
		if l.Op != '+' {
			pre = append(pre, l.Text)
		}
		if l.Op != '-' {
			post = append(post, l.Text)
		}
	}
	return pre, post
}

// contextEnds returns the number of context lines at the start and the end
// of h, which fuzz may ignore.
func contextEnds(h *hgpatch.Hunk) (lead, trail int) {
	for _, l := range h.Lines {
		if l.Op != ' ' {
			break
		}
		lead++
	}
	if lead == len(h.Lines) {
		return lead, 0
	}
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i].Op == ' '; i-- {
		trail++
	}
	return lead, trail
}

// search returns the index in lines nearest to want, and not before from,
// where pre matches, or -1.
func search(lines, pre []string, want, from int) int {
	last := len(lines) - len(pre)
	if last < from {
		return -1
	}
	want = min(max(from, want), last)
	for d := 0; ; d++ {
		lo, hi := want-d, want+d
		if lo < from && hi > last {
			return -1
		}
		if lo >= from && matchAt(lines, pre, lo) {
			return lo
		}
		if d > 0 && hi <= last && matchAt(lines, pre, hi) {
			return hi
		}
	}
}

func matchAt(lines, pre []string, pos int) bool {
	for k, l := range pre {
		if lines[pos+k] != l {
			return false
		}
	}
	return true
}

// mismatch describes how pre differs from lines at pos: the first line
// that differs, with what the patch wants and what the file has.
func mismatch(lines, pre []string, pos int) []string {
	for k, want := range pre {
		i := pos + k
		if i >= len(lines) {
			return []string{fmt.Sprintf("line %d: want %q", i+1, want), fmt.Sprintf("line %d: file ends after %d lines", i+1, len(lines))}
		}
		if lines[i] != want {
			return []string{fmt.Sprintf("line %d: want %q", i+1, want), fmt.Sprintf("line %d: have %q", i+1, lines[i])}
		}
	}
	return []string{fmt.Sprintf("line %d: the lines match here but overlap an earlier hunk", pos+1)}
}

func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
	}
}

// splitLines splits data into lines that keep their line endings; a last
// line without a newline is kept as it is.
func splitLines(data []byte) []string {
	return slices.Collect(strings.Lines(string(data)))
}
