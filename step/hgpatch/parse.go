package hgpatch

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Parse parses data, the content of the input called name, and returns its
// patches: one per changeset of an 'hg export' stream, or a single patch
// without a Header for a plain or git-style diff. Several inputs (patch
// files given in order) are parsed one by one.
//
// Bad input is reported as a *SyntaxError. Parse never panics.
func Parse(name string, data []byte) ([]*Patch, error) {
	p := &parser{file: name, lines: splitLines(string(data))}
	return p.parse()
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	return slices.Collect(strings.Lines(s))
}

type parser struct {
	file  string
	lines []string
	i     int // index of the current line; its number is i+1
}

func (p *parser) errorf(i int, format string, args ...any) error {
	if i >= len(p.lines) {
		// Past the end: the input was cut short; point at its last line.
		i = max(len(p.lines)-1, 0)
	}
	return &SyntaxError{File: p.file, Line: i + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) eof() bool { return p.i >= len(p.lines) }

// text returns line i without its line ending ("" past the end). Header
// lines are compared this way, so that a patch whose every line gained a
// "\r" (saved through a Windows editor) still parses; hunk lines are kept
// exactly.
func (p *parser) text(i int) string {
	if i < 0 || i >= len(p.lines) {
		return ""
	}
	s := strings.TrimSuffix(p.lines[i], "\n")
	return strings.TrimSuffix(s, "\r")
}

const exportMark = "# HG changeset patch"

func (p *parser) parse() ([]*Patch, error) {
	for !p.eof() && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
	if p.eof() {
		return nil, p.errorf(max(p.i-1, 0), "no patch found (empty input)")
	}
	if p.text(p.i) != exportMark {
		// A diff without changeset metadata: what comes before the first
		// diff is its message, as 'hg import' takes it.
		pt := &Patch{File: p.file, Line: p.i + 1}
		start := p.i
		for !p.eof() && !p.diffStart(p.i) {
			if p.text(p.i) == exportMark {
				return nil, p.errorf(p.i, "%q in the middle of a patch: an 'hg export' stream must start with it", exportMark)
			}
			p.i++
		}
		pt.Message = message(p.lines[start:p.i])
		if err := p.files(pt); err != nil {
			return nil, err
		}
		if !p.eof() {
			return nil, p.errorf(p.i, "%q after a diff without one: an 'hg export' stream must start with it", exportMark)
		}
		if len(pt.Files) == 0 {
			return nil, p.errorf(start, "no diff found (expected 'hg export' or 'hg diff' output)")
		}
		return []*Patch{pt}, nil
	}
	var patches []*Patch
	for !p.eof() {
		pt, err := p.changeset()
		if err != nil {
			return nil, err
		}
		patches = append(patches, pt)
	}
	return patches, nil
}

// diffStart reports whether line i starts a file diff, using the same
// markers as Mercurial's own patch reader, which is also where a changeset
// description ends. A line '---' alone does not end it (git am and hg
// import cut messages there; patchbot must not).
func (p *parser) diffStart(i int) bool {
	t := p.text(i)
	switch {
	case strings.HasPrefix(t, "diff --git "), strings.HasPrefix(t, "diff -r "):
		return true
	case strings.HasPrefix(t, "Index: "):
		return strings.HasPrefix(p.text(i+1), "====")
	case strings.HasPrefix(t, "--- "):
		return strings.HasPrefix(p.text(i+1), "+++ ")
	}
	return false
}

var headerRE = regexp.MustCompile(`^# ([A-Za-z][A-Za-z0-9_-]*(?: ID)?)(?: +(.*))?$`)

// changeset parses one changeset of an 'hg export' stream, starting at its
// "# HG changeset patch" line.
func (p *parser) changeset() (*Patch, error) {
	if p.text(p.i) != exportMark {
		return nil, p.errorf(p.i, "expected %q, found %q", exportMark, p.text(p.i))
	}
	pt := &Patch{File: p.file, Line: p.i + 1, Header: new(Header)}
	h := pt.Header
	p.i++
	seen := map[string]bool{}
	for ; !p.eof() && strings.HasPrefix(p.lines[p.i], "#"); p.i++ {
		t := p.text(p.i)
		if strings.HasPrefix(t, "#  ") && strings.TrimSpace(t[1:]) != "" && seen["Date"] {
			continue // the human-readable date newer hg writes after '# Date'
		}
		m := headerRE.FindStringSubmatch(t)
		if m == nil {
			return nil, p.errorf(p.i, "bad changeset header line %q (want '# Key value')", t)
		}
		key, val := m[1], strings.TrimSpace(m[2])
		if seen[key] && key != "Parent" {
			return nil, p.errorf(p.i, "header %q appears twice", "# "+key)
		}
		seen[key] = true
		switch key {
		case "User":
			h.User = val
		case "Date":
			d, err := parseDate(val)
			if err != nil {
				return nil, p.errorf(p.i, "bad '# Date' %q: %v", val, err)
			}
			h.Date = d
		case "Node ID":
			if !isHex(val, 40) {
				return nil, p.errorf(p.i, "bad '# Node ID' %q (want 40 hex digits)", val)
			}
			h.Node = val
		case "Parent":
			if !isHex(val, 40) {
				return nil, p.errorf(p.i, "bad '# Parent' %q (want 40 hex digits)", val)
			}
			if len(h.Parents) == 2 {
				return nil, p.errorf(p.i, "more than two '# Parent' lines")
			}
			h.Parents = append(h.Parents, val)
		case "Branch":
			h.Branch = val
		default:
			h.Extra = append(h.Extra, KeyValue{key, val})
		}
	}
	start := p.i
	for !p.eof() && !p.diffStart(p.i) && p.text(p.i) != exportMark {
		p.i++
	}
	pt.Message = message(p.lines[start:p.i])
	if err := p.files(pt); err != nil {
		return nil, err
	}
	return pt, nil
}

// parseDate parses the value of '# Date': Unix seconds and the zone offset
// in seconds WEST of UTC, so "-19800" is +0530.
func parseDate(s string) (time.Time, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return time.Time{}, fmt.Errorf("want UNIXTIME OFFSET")
	}
	sec, err1 := strconv.ParseInt(f[0], 10, 64)
	off, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return time.Time{}, fmt.Errorf("want two integers")
	}
	if off <= -24*3600 || off >= 24*3600 {
		return time.Time{}, fmt.Errorf("zone offset %d is more than a day", off)
	}
	if sec < -1<<40 || sec > 1<<40 {
		return time.Time{}, fmt.Errorf("time out of range")
	}
	return time.Unix(sec, 0).In(time.FixedZone(zoneName(-off), -off)), nil
}

// zoneName returns the "+hhmm" name of an offset east of UTC.
func zoneName(east int) string {
	sign := '+'
	if east < 0 {
		sign, east = '-', -east
	}
	return fmt.Sprintf("%c%02d%02d", sign, east/3600, east/60%60)
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// message joins lines into a description as Mercurial stored it: without
// the blank lines before and after it (hg stores none; the one after
// separates it from the diffs) and with "\n" line endings (hg stores no
// "\r" at a line's end, so one there came from the patch file being saved
// with CRLF). Everything else, spaces at either end of a line included,
// is kept byte for byte.
func message(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	s := strings.Join(lines, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSuffix(s, "\n")
}

// files parses file diffs until the end of the input or the next changeset.
func (p *parser) files(pt *Patch) error {
	// seen maps the name of each file diff that is not a deletion to that
	// diff, to refuse a second diff of the same file in constant time per
	// file: a tree-wide change touches tens of thousands of files.
	seen := make(map[string]*FileDiff)
	for !p.eof() && p.text(p.i) != exportMark {
		if strings.TrimSpace(p.lines[p.i]) == "" {
			p.i++
			continue
		}
		f, git, err := p.file1()
		if err != nil {
			return err
		}
		if len(pt.Files) > 0 && git != pt.Git {
			return p.errorf(f.Line-1, "git-style and plain diffs mixed in one patch")
		}
		pt.Git = git
		if f.Op != Delete {
			if g := seen[f.Name()]; g != nil {
				return p.errorf(f.Line-1, "second diff of %s in one patch (first at line %d)", f.Name(), g.Line)
			}
			seen[f.Name()] = f
		}
		pt.Files = append(pt.Files, f)
	}
	return nil
}

// file1 parses one file diff, starting at its header line, and reports
// whether it is git-style.
func (p *parser) file1() (*FileDiff, bool, error) {
	t := p.text(p.i)
	f := &FileDiff{Line: p.i + 1}
	switch {
	case strings.HasPrefix(t, "diff --git "):
		names := strings.TrimPrefix(t, "diff --git ")
		if names == "" {
			return nil, false, p.errorf(p.i, "'diff --git' without file names")
		}
		return f, true, p.gitFile(f, names, "")
	case strings.HasPrefix(t, "Index: ") && strings.HasPrefix(p.text(p.i+1), "===="):
		name := strings.TrimPrefix(t, "Index: ")
		if name == "" {
			return nil, false, p.errorf(p.i, "'Index:' without a file name")
		}
		p.i++
		return f, true, p.gitFile(f, "", name)
	case strings.HasPrefix(t, "diff -r "):
		return f, false, p.plainFile(f)
	case p.diffStart(p.i):
		return f, false, p.plainFile(f)
	}
	return nil, false, p.errorf(p.i, "unexpected line %q outside any file diff (want 'diff --git', 'diff -r', 'Index:' or '---')", trunc(t))
}

func trunc(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

var diffRRE = regexp.MustCompile(`^diff -r [0-9a-f]{12,40}(?: -r [0-9a-f]{12,40})? (.+)$`)

// plainFile parses a plain 'hg diff' file diff: a 'diff -r' line (or none)
// and '---'/'+++' lines with tab-separated dates, then hunks.
func (p *parser) plainFile(f *FileDiff) error {
	var path string
	if strings.HasPrefix(p.text(p.i), "diff -r ") {
		m := diffRRE.FindStringSubmatch(p.text(p.i))
		if m == nil {
			return p.errorf(p.i, "bad header %q (want 'diff -r NODE [-r NODE] PATH')", trunc(p.text(p.i)))
		}
		path = m[1]
		p.i++
		if t := p.text(p.i); strings.HasPrefix(t, "Binary file ") && strings.HasSuffix(t, " has changed") {
			return p.errorf(p.i, "binary file %s changed, but a plain hg diff carries no binary data: re-export the patch with 'hg export --git' (or 'hg diff --git')", path)
		}
		if !p.diffStart(p.i) || !strings.HasPrefix(p.text(p.i), "--- ") {
			return p.errorf(p.i, "'diff -r' header of %s not followed by '---' and '+++' lines", path)
		}
	}
	oldName, err := p.name(p.i, "--- ", "a/")
	if err != nil {
		return err
	}
	newName, err := p.name(p.i+1, "+++ ", "b/")
	if err != nil {
		return err
	}
	switch {
	case oldName == "" && newName == "":
		return p.errorf(p.i, "both sides of the diff are /dev/null")
	case oldName == "":
		f.Op, f.NewName = Add, newName
	case newName == "":
		f.Op, f.OldName = Delete, oldName
	case oldName != newName:
		return p.errorf(p.i, "old name %s and new name %s differ in a plain diff (renames need a git-style diff)", oldName, newName)
	default:
		f.Op, f.OldName, f.NewName = Modify, oldName, newName
	}
	if path != "" && path != f.Name() {
		return p.errorf(p.i, "'diff -r' names %s but '---'/'+++' name %s", path, f.Name())
	}
	p.i += 2
	if err := p.hunks(f); err != nil {
		return err
	}
	if len(f.Hunks) == 0 {
		return p.errorf(f.Line-1, "diff of %s has no hunks", f.Name())
	}
	return nil
}

// name parses the file name on line i, which starts with marker ("--- "
// or "+++ "), dropping prefix ("a/" or "b/") and anything after a tab (hg
// writes dates there, and a tab after names with spaces). It returns ""
// for /dev/null.
func (p *parser) name(i int, marker, prefix string) (string, error) {
	t := p.text(i)
	if !strings.HasPrefix(t, marker) {
		return "", p.errorf(i, "want a %q line, found %q", strings.TrimSpace(marker), trunc(t))
	}
	s := strings.TrimPrefix(t, marker)
	if j := strings.IndexByte(s, '\t'); j >= 0 {
		s = s[:j]
	}
	if s == "/dev/null" {
		return "", nil
	}
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", p.errorf(i, "bad quoted name %s", s)
		}
		s = u
	}
	if !strings.HasPrefix(s, prefix) || len(s) == len(prefix) {
		return "", p.errorf(i, "name %q does not start with %q as Mercurial writes it", s, prefix)
	}
	return s[len(prefix):], nil
}

// gitFile parses a git-style file diff after its 'diff --git ' line (whose
// rest is names) or after the 'Index: index' and '====' lines.
func (p *parser) gitFile(f *FileDiff, names, index string) error {
	hdr := p.i
	p.i++
	var from, to string // from rename from/copy from and rename to/copy to
	var sawGitNames bool
	oldName, newName, ok := splitGitNames(names)
	if names != "" && !ok {
		oldName, newName = "", ""
	}
	sawGitNames = ok
	for ; !p.eof(); p.i++ {
		t := p.text(p.i)
		var err error
		switch {
		case strings.HasPrefix(t, "old mode "):
			f.OldMode, err = p.mode(t, "old mode ")
		case strings.HasPrefix(t, "new mode "):
			f.NewMode, err = p.mode(t, "new mode ")
		case strings.HasPrefix(t, "deleted file mode "):
			f.Op = Delete
			f.OldMode, err = p.mode(t, "deleted file mode ")
		case strings.HasPrefix(t, "new file mode "):
			f.Op = Add
			f.NewMode, err = p.mode(t, "new file mode ")
		case strings.HasPrefix(t, "rename from "):
			f.Op, from = Rename, strings.TrimPrefix(t, "rename from ")
		case strings.HasPrefix(t, "rename to "):
			to = strings.TrimPrefix(t, "rename to ")
		case strings.HasPrefix(t, "copy from "):
			f.Op, from = Copy, strings.TrimPrefix(t, "copy from ")
		case strings.HasPrefix(t, "copy to "):
			to = strings.TrimPrefix(t, "copy to ")
		case strings.HasPrefix(t, "similarity index "), strings.HasPrefix(t, "dissimilarity index "),
			strings.HasPrefix(t, "index "):
			// Informational only.
		default:
			goto body
		}
		if err != nil {
			return err
		}
	}
body:
	if (from == "") != (to == "") {
		return p.errorf(hdr, "rename or copy header without both 'from' and 'to'")
	}
	if from != "" {
		oldName, newName = from, to
	}
	// '---' and '+++' lines name the file when the header could not.
	if p.diffStart(p.i) && strings.HasPrefix(p.text(p.i), "--- ") {
		o, err := p.name(p.i, "--- ", "a/")
		if err != nil {
			return err
		}
		n, err := p.name(p.i+1, "+++ ", "b/")
		if err != nil {
			return err
		}
		if o != "" {
			if oldName != "" && o != oldName {
				return p.errorf(p.i, "'---' names %s but the header names %s", o, oldName)
			}
			oldName = o
		} else if f.Op != Add {
			return p.errorf(p.i, "'--- /dev/null' for a file that is not new (missing 'new file mode' line)")
		}
		if n != "" {
			if newName != "" && n != newName {
				return p.errorf(p.i+1, "'+++' names %s but the header names %s", n, newName)
			}
			newName = n
		} else if f.Op != Delete {
			return p.errorf(p.i+1, "'+++ /dev/null' for a file that is not deleted (missing 'deleted file mode' line)")
		}
		p.i += 2
	} else if index != "" && from == "" {
		// 'Index: NAME' alone names the file.
		oldName, newName, sawGitNames = index, index, true
	}
	if !sawGitNames && oldName == "" && newName == "" {
		return p.errorf(hdr, "cannot tell the file names from %q; a rename or '---'/'+++' lines are needed", trunc(p.text(hdr)))
	}
	if oldName == "" {
		oldName = newName
	}
	if newName == "" {
		newName = oldName
	}
	switch f.Op {
	case Add:
		f.NewName = newName
	case Delete:
		f.OldName = oldName
	case Modify:
		if oldName != newName {
			return p.errorf(hdr, "old name %s and new name %s differ without a rename or copy header", oldName, newName)
		}
		f.OldName, f.NewName = oldName, newName
	default:
		f.OldName, f.NewName = oldName, newName
	}
	if index != "" && f.Name() != index {
		return p.errorf(hdr-1, "'Index: %s' but the diff is about %s", index, f.Name())
	}
	if t := p.text(p.i); t == "GIT binary patch" {
		return p.binary(f)
	} else if strings.HasPrefix(t, "Binary files ") && strings.HasSuffix(t, " differ") {
		return p.errorf(p.i, "binary file %s changed but the patch has no binary data: re-export it with 'hg export --git' (or 'git diff --binary')", f.Name())
	}
	return p.hunks(f)
}

// splitGitNames splits the rest of a 'diff --git' line into its two names.
// Mercurial never quotes names, so a name with a space is ambiguous unless
// both names are equal; ok is false when the split is ambiguous.
func splitGitNames(s string) (oldName, newName string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		// Git C-quotes unusual names; accept what Git writes too.
		q, rest, found := cutQuoted(s)
		if !found || !strings.HasPrefix(q, "a/") {
			return "", "", false
		}
		rest = strings.TrimPrefix(rest, " ")
		var n string
		if strings.HasPrefix(rest, `"`) {
			n, rest, found = cutQuoted(rest)
			if !found || rest != "" {
				return "", "", false
			}
		} else {
			n = rest
		}
		if !strings.HasPrefix(n, "b/") {
			return "", "", false
		}
		return q[2:], n[2:], len(q) > 2 && len(n) > 2
	}
	if n := len(s) - 5; n > 0 && n%2 == 0 {
		n /= 2
		if s[:2] == "a/" && s[2+n:5+n] == " b/" && s[2:2+n] == s[5+n:] {
			return s[2 : 2+n], s[5+n:], true
		}
	}
	if strings.Count(s, " b/") == 1 && strings.HasPrefix(s, "a/") {
		o, n, _ := strings.Cut(s, " b/")
		if o != "a/" && n != "" {
			return o[2:], n, true
		}
	}
	return "", "", false
}

func cutQuoted(s string) (q, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			u, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return u, s[i+1:], true
		}
	}
	return "", "", false
}

// mode parses the Git mode after prefix in t. Mercurial records only
// regular, executable and symlink files.
func (p *parser) mode(t, prefix string) (uint32, error) {
	s := strings.TrimPrefix(t, prefix)
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, p.errorf(p.i, "bad file mode %q", s)
	}
	switch m {
	case ModeRegular, ModeExecutable, ModeSymlink:
		return uint32(m), nil
	}
	return 0, p.errorf(p.i, "unsupported file mode %s (only 100644, 100755 and 120000 can be ported)", s)
}

var hunkRE = regexp.MustCompile(`^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@`)

// hunks parses the hunks of f, if any.
func (p *parser) hunks(f *FileDiff) error {
	for !p.eof() && strings.HasPrefix(p.lines[p.i], "@@") {
		t := p.text(p.i)
		m := hunkRE.FindStringSubmatch(t)
		if m == nil {
			return p.errorf(p.i, "bad hunk header %q", trunc(t))
		}
		h := &Hunk{Line: p.i + 1, Header: t}
		h.OldStart, _ = strconv.Atoi(m[1])
		h.OldLines = 1
		if m[2] != "" {
			h.OldLines, _ = strconv.Atoi(m[2])
		}
		h.NewStart, _ = strconv.Atoi(m[3])
		h.NewLines = 1
		if m[4] != "" {
			h.NewLines, _ = strconv.Atoi(m[4])
		}
		if f.Op == Add && h.OldLines > 0 {
			return p.errorf(p.i, "hunk of new file %s has old lines", f.Name())
		}
		if f.Op == Delete && h.NewLines > 0 {
			return p.errorf(p.i, "hunk of deleted file %s has new lines", f.Name())
		}
		if prev := len(f.Hunks); prev > 0 {
			last := f.Hunks[prev-1]
			if h.OldStart < last.OldStart+last.OldLines {
				return p.errorf(p.i, "hunk overlaps or precedes the hunk at line %d", last.Line)
			}
		}
		p.i++
		oldN, newN := h.OldLines, h.NewLines
		for oldN > 0 || newN > 0 {
			if p.eof() {
				return p.errorf(p.i-1, "patch ends inside the hunk at line %d: %d old and %d new lines missing (truncated patch?)", h.Line, oldN, newN)
			}
			l := p.lines[p.i]
			switch c := l[0]; {
			case c == ' ' && oldN > 0 && newN > 0:
				oldN--
				newN--
				h.Lines = append(h.Lines, Line{' ', l[1:]})
			case c == '\n' && oldN > 0 && newN > 0:
				// An empty context line whose space was lost (by an
				// editor or a mailer); patch(1) reads it the same way.
				oldN--
				newN--
				h.Lines = append(h.Lines, Line{' ', "\n"})
			case c == '-' && oldN > 0:
				oldN--
				h.Lines = append(h.Lines, Line{'-', l[1:]})
			case c == '+' && newN > 0:
				newN--
				h.Lines = append(h.Lines, Line{'+', l[1:]})
			case c == '\\' && len(h.Lines) > 0:
				if err := p.noNewline(h); err != nil {
					return err
				}
			default:
				return p.errorf(p.i, "unexpected line %q in the hunk at line %d (%d old and %d new lines still expected)", trunc(strings.TrimRight(l, "\r\n")), h.Line, oldN, newN)
			}
			p.i++
		}
		if len(h.Lines) == 0 {
			return p.errorf(h.Line-1, "empty hunk")
		}
		if !p.eof() && strings.HasPrefix(p.lines[p.i], "\\") {
			if err := p.noNewline(h); err != nil {
				return err
			}
			p.i++
		}
		if err := p.checkNoNewline(h); err != nil {
			return err
		}
		f.Hunks = append(f.Hunks, h)
	}
	return nil
}

// checkNoNewline checks that only the last old line and the last new line
// of h lack a newline: a file ends there, so no line of its side can follow.
func (p *parser) checkNoNewline(h *Hunk) error {
	lastOld, lastNew := -1, -1
	for i, l := range h.Lines {
		if l.Op != '+' {
			lastOld = i
		}
		if l.Op != '-' {
			lastNew = i
		}
	}
	for i, l := range h.Lines {
		if strings.HasSuffix(l.Text, "\n") {
			continue
		}
		if (l.Op != '+' && i != lastOld) || (l.Op != '-' && i != lastNew) {
			return p.errorf(h.Line-1, "'\\ No newline at end of file' in the middle of the hunk")
		}
	}
	return nil
}

// noNewline handles a "\ No newline at end of file" line, which says the
// line before it has no line ending.
func (p *parser) noNewline(h *Hunk) error {
	if !strings.HasPrefix(p.lines[p.i], `\ `) {
		return p.errorf(p.i, "bad line %q (want '\\ No newline at end of file')", trunc(p.text(p.i)))
	}
	last := &h.Lines[len(h.Lines)-1]
	if !strings.HasSuffix(last.Text, "\n") {
		return p.errorf(p.i, "two 'No newline' markers for one line")
	}
	last.Text = strings.TrimSuffix(last.Text, "\n")
	return nil
}

// binary parses a 'GIT binary patch' block: one or two fragments (forward
// and reverse), each ending with a blank line.
func (p *parser) binary(f *FileDiff) error {
	start := p.i
	p.i++
	for frag := 0; frag < 2; frag++ {
		t := p.text(p.i)
		if !strings.HasPrefix(t, "literal ") && !strings.HasPrefix(t, "delta ") {
			if frag == 0 {
				return p.errorf(p.i, "want 'literal N' or 'delta N' after 'GIT binary patch', found %q", trunc(t))
			}
			break
		}
		p.i++
		for !p.eof() && strings.TrimRight(p.lines[p.i], "\r\n") != "" {
			p.i++
		}
		if p.eof() {
			return p.errorf(p.i-1, "binary patch of %s does not end with a blank line (truncated patch?)", f.Name())
		}
		p.i++ // the blank line
	}
	lines := make([]string, 0, p.i-start)
	for _, l := range p.lines[start:p.i] {
		lines = append(lines, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")+"\n")
	}
	b, err := parseBinary(p.file, start+1, lines)
	if err != nil {
		return err
	}
	f.Binary = b
	return nil
}
