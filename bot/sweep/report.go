package sweep

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/freeze"
)

// ReportTask tells the state in a few lines: the freeze, and what each
// task run before it did (Report). Its text is the TaskResult's Report,
// for a caller that shows it elsewhere too (a GitHub Actions step
// summary).
func ReportTask(ctx context.Context, s *Sweep) (*TaskResult, error) {
	text := Report(s.Freeze, s.Results, s.DryRun())
	return &TaskResult{Summary: abbrev.FirstLine(text), Report: text}, nil
}

// Report returns the state in a few lines: the freeze's verdict and one
// line a task, with each failure's reason.
func Report(st *freeze.Status, results []*TaskResult, dryRun bool) string {
	var b strings.Builder
	verdict := "open"
	if st.Frozen {
		verdict = "frozen"
	}
	fmt.Fprintf(&b, "%s: %s on %s (%s)", st.Branch, verdict, st.At.Format("2006-01-02"), st.Source)
	if dryRun {
		b.WriteString(", dry run: nothing written")
	}
	fmt.Fprintf(&b, "\n%s\n", st.Line())
	for _, r := range results {
		if r.Task == "report" {
			continue
		}
		state := "ok"
		if r.Error != "" {
			state = "FAILED"
		}
		fmt.Fprintf(&b, "%-7s %-6s %s\n", r.Task, state, r.Summary)
		if r.Error != "" && !strings.Contains(r.Summary, abbrev.FirstLine(r.Error)) {
			fmt.Fprintf(&b, "        %s\n", abbrev.FirstLine(r.Error))
		}
	}
	return b.String()
}

// WriteText writes what each task did as 'patchbot sweep' prints it: a
// line per change, and the report last; without the report task, each
// task's summary instead.
func (res *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	report := ""
	for _, t := range res.Tasks {
		if t.Report != "" {
			report = t.Report
			continue
		}
		for _, a := range t.Actions {
			if a.Change == "" {
				// Not a change's: a track's bisection, say.
				fmt.Fprintf(&b, "%s: %s\n", t.Task, a.What)
				continue
			}
			fmt.Fprintf(&b, "%s: change %s: %s\n", t.Task, a.Change, a.What)
		}
	}
	if report == "" {
		for _, t := range res.Tasks {
			fmt.Fprintf(&b, "%s: %s\n", t.Task, t.Summary)
		}
	} else {
		b.WriteString(report)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
