package job

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/step/benchrun"
)

// regressionText is the comment on a culprit's review (Markdown for a
// GitHub pull request, Gerrit's text otherwise): which benchmarks got
// slower along the branch and by how much, the confirming comparison of
// the culprit against its parent, and the bisection's steps. What came
// from outside (the track's name, commit subjects, benchmark and package
// names) is escaped for the medium, as bench replies are.
func regressionText(name string, g *TrackBisection, md bool) string {
	text, code := escape.Gerrit, escape.Gerrit
	if md {
		text, code = escape.Markdown, escape.MarkdownCode
	}
	r := g.Result
	var b strings.Builder
	culprit := code(abbrev.Hash(r.Culprit.Hash))
	if md {
		fmt.Fprintf(&b, "**This commit made benchmarks slower**: %s (%s), on %s.\n\n", culprit, text(r.Culprit.Subject), code(name))
	} else {
		fmt.Fprintf(&b, "This commit made benchmarks slower: %s (%s), on %s.\n\n", culprit, text(r.Culprit.Subject), code(name))
	}
	b.WriteString("Along the branch, as patchbot track recorded it:\n\n")
	for _, c := range g.Changes {
		fmt.Fprintf(&b, "- %s %s: %+.1f%% (mean %s → %s) between %s and %s\n", code(c.Key.Package), text(c.Key.Name), 100*(c.Ratio()-1), fmtSec(c.Before), fmtSec(c.After), code(abbrev.Hash(c.Prev)), code(abbrev.Hash(c.Hash)))
	}
	fmt.Fprintf(&b, "\nBisected over %d commits in %d steps, for a slowdown over %.3g%%; the last step, the commit against its parent:\n\n", r.Commits, len(r.Steps), 100*r.Threshold)
	if g.Confirm != nil {
		f := benchrun.Gerrit
		if md {
			f = benchrun.Markdown
		}
		b.WriteString(g.Confirm.String(f))
	}
	b.WriteString("\nSteps:\n\n")
	for i, s := range r.Steps {
		// A bisection stored before steps were numbered has neither.
		s.Number, s.Of = cmp.Or(s.Number, i+1), cmp.Or(s.Of, r.Commits)
		fmt.Fprintf(&b, "- %s\n", s.Line(text, code))
	}
	return b.String()
}

// fmtSec formats a time in seconds with three significant digits.
func fmtSec(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3gs", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3gms", s*1e3)
	case s >= 1e-6:
		return fmt.Sprintf("%.3gµs", s*1e6)
	}
	return fmt.Sprintf("%.3gns", s*1e9)
}
