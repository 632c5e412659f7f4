package port

import (
	"crypto/sha1"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/patchbot/patchbot/internal/repo"
	"github.com/patchbot/patchbot/step/hgpatch"
)

// A Rewrite replaces matches of a regular expression in commit messages,
// such as Mercurial-era "Fixes issue 123" with GitHub's "Fixes #123".
type Rewrite struct {
	Match   *regexp.Regexp
	Replace string // as regexp.Regexp.ReplaceAllString takes it: $1 for groups
}

// DefaultDropLines and DefaultRewrites are what Go's Mercurial-era messages
// need; the configuration normally supplies them (config.yaml's port
// section), and they are here for callers without one.
var (
	DefaultDropLines = []*regexp.Regexp{
		regexp.MustCompile(`^(R|CC|TBR|LGTM)=`),
		regexp.MustCompile(`^https?://codereview\.appspot\.com/\d+/?$`),
		regexp.MustCompile(`^https?://golang\.org/cl/\d+/?$`),
	}
	DefaultRewrites = []Rewrite{
		{regexp.MustCompile(`\bFixes issue (\d+)`), "Fixes #$1"},
	}
)

var trailerRE = regexp.MustCompile(`^[A-Za-z0-9-]+: `)

// cleanMessage returns msg with the old review lines removed from its end
// and the rewrites applied, and nothing else changed. A contributor's
// description is theirs: docs/port.md lists every change port makes to one,
// and this is where all but the Change-Id are made.
//
// Only the trailing block of the message (review lines, trailers and blank
// lines after the last line of prose) loses lines, so a description that
// talks about "R=" in its text keeps it. Where a removed line stood between
// two runs of blank lines, the runs do not add up: the longer one is kept,
// so the removal leaves no gap of its own; every other run of blank lines
// stays as it was. Blank lines at the start and the end go, as Mercurial
// itself never stores them.
func cleanMessage(msg string, drop []*regexp.Regexp, rewrites []Rewrite) string {
	lines := strings.Split(msg, "\n")
	start := len(lines)
	for start > 1 {
		l := strings.TrimSpace(lines[start-1])
		if l == "" || trailerRE.MatchString(l) || matchAny(drop, l) {
			start--
			continue
		}
		break
	}
	kept := slices.Clone(lines[:start])
	skip := 0 // blank lines still to leave out after a removed line
	for _, l := range lines[start:] {
		switch t := strings.TrimSpace(l); {
		case t != "" && matchAny(drop, t):
			if skip == 0 {
				skip = blankRun(kept)
			}
		case t == "" && skip > 0:
			skip--
		default:
			if t != "" {
				skip = 0
			}
			kept = append(kept, l)
		}
	}
	out := strings.Join(trimBlankLines(kept), "\n")
	for _, rw := range rewrites {
		out = rw.Match.ReplaceAllString(out, rw.Replace)
	}
	return out
}

// isBlank reports whether a line holds only white space.
func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// blankRun returns how many blank lines end lines.
func blankRun(lines []string) int {
	n := 0
	for n < len(lines) && isBlank(lines[len(lines)-1-n]) {
		n++
	}
	return n
}

// trimBlankLines returns lines without the blank lines at either end.
func trimBlankLines(lines []string) []string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	return lines[:len(lines)-blankRun(lines)]
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// changeID returns the Change-Id for a changeset: derived from its
// Mercurial node, so that porting it again updates the same Gerrit change,
// or for a patch without a node, from its message and diffs, so that the
// same patch always gets the same id.
func changeID(p *hgpatch.Patch) string {
	h := sha1.New()
	if p.Header != nil && p.Header.Node != "" {
		fmt.Fprintf(h, "patchbot port\x00hg node\x00%s", p.Header.Node)
	} else {
		fmt.Fprintf(h, "patchbot port\x00patch\x00%s\x00", p.Message)
		for _, f := range p.Files {
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00%o\x00%o\x00", f.Op, f.OldName, f.NewName, f.OldMode, f.NewMode)
			for _, hk := range f.Hunks {
				fmt.Fprintf(h, "%s\x00", hk.Header)
				for _, l := range hk.Lines {
					fmt.Fprintf(h, "%c%s\x00", l.Op, l.Text)
				}
			}
			if f.Binary != nil {
				fmt.Fprintf(h, "binary %v %d\x00", f.Binary.Delta, f.Binary.Size)
			}
		}
	}
	return fmt.Sprintf("I%x", h.Sum(nil))
}

// addChangeID appends a Change-Id trailer to msg the way git-codereview's
// commit-msg hook does: on its own line at the end of a final trailer
// block, else after a blank line. (Gerrit's own hook differs only when the
// block has a Signed-off-by line, which it puts the Change-Id before;
// Mercurial-era Go messages have none.) A message that has a Change-Id
// keeps it, so adding twice changes nothing.
func addChangeID(msg, id string) string {
	msg = strings.TrimRight(msg, "\n")
	if repo.ChangeID(msg) != "" {
		return msg + "\n"
	}
	sep := "\n\n"
	if isTrailerBlock(msg) {
		sep = "\n"
	}
	return msg + sep + "Change-Id: " + id + "\n"
}

// isTrailerBlock reports whether the last paragraph of msg (not its first,
// which is the subject) consists of trailers only.
func isTrailerBlock(msg string) bool {
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return false
	}
	for _, l := range strings.Split(msg[i+2:], "\n") {
		if !trailerRE.MatchString(l) {
			return false
		}
	}
	return true
}

// subject returns the first line of msg.
func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	return s
}
