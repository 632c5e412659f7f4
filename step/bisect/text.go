package bisect

import (
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/benchrun"
)

// Intro is the line a bisection's report begins with, once its range is
// known: "bisecting v1.0 (good, 1a2b3c4d5e6f) .. HEAD (bad, …): 12
// commits by first parents, at most 5 steps, for a slowdown over 5%".
func (r *Result) Intro() string {
	return fmt.Sprintf("bisecting %s (good, %s) .. %s (bad, %s): %d commits by first parents, at most %d steps, for a slowdown over %s",
		r.Good.Rev, abbrev.Hash(r.Good.Hash), r.Bad.Rev, abbrev.Hash(r.Bad.Hash), r.Commits, MaxSteps(r.Commits), percent(r.Threshold))
}

// percent formats a fraction as bench's flags take it: 0.05 as "5%".
func percent(f float64) string { return fmt.Sprintf("%.3g%%", 100*f) }

// Line is the step's line: "step 2: OLD vs NEW (3 of 8, subject):
// slower", with the commits and the subject passed through code and text,
// which make them inert in the medium the line goes to (a Markdown
// comment's escapers; nil for plain text).
func (s Step) Line(text, code func(string) string) string {
	if text == nil {
		text = plain
	}
	if code == nil {
		code = plain
	}
	what := fmt.Sprintf("step %d", s.Number)
	if s.Confirm {
		what = "confirm"
	}
	return fmt.Sprintf("%s: %s vs %s (%d of %d, %s): %s", what, code(abbrev.Hash(s.Old)), code(abbrev.Hash(s.New)), s.At, s.Of, text(s.Subject), s.Verdict)
}

func plain(s string) string { return s }

// String is the step's line and, indented below it, a line per
// benchmark's verdict.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(s.Line(nil, nil))
	for _, r := range s.Rows {
		b.WriteString("\n    " + r.Text)
	}
	return b.String()
}

// Write writes what the bisection found: the culprit and the confirming
// comparison's table (in benchcmp's format), or why there is none.
func (r *Result) Write(w io.Writer) error {
	if r.Culprit == nil {
		_, err := fmt.Fprintf(w, "no culprit: %s\n", r.Reason)
		return err
	}
	if _, err := fmt.Fprintf(w, "culprit: %s %s\n", abbrev.Hash(r.Culprit.Hash), r.Culprit.Subject); err != nil {
		return err
	}
	if last := r.Steps[len(r.Steps)-1]; last.Result != nil {
		if _, err := fmt.Fprintf(w, "\nthe culprit against its parent:\n"); err != nil {
			return err
		}
		return last.Result.Write(w, benchrun.Benchcmp)
	}
	return nil
}
