package freeze

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

// WriteText writes the status for people, as 'patchbot freeze' prints it:
// the verdict, the sentence a review message carries (Line), the release
// and its dates with their sources, the facts and the disagreements. The
// text is written in one call to w.
func (st *Status) WriteText(w io.Writer) error {
	var b bytes.Buffer
	verdict := "open"
	if st.Frozen {
		verdict = "frozen"
	}
	fmt.Fprintf(&b, "%s: %s on %s\n", st.Branch, verdict, st.At.UTC().Format(time.DateOnly))
	fmt.Fprintln(&b, st.Line())
	if st.Release != "" && st.Governed() {
		fmt.Fprintf(&b, "\nrelease       %s\n", st.Release)
		writeDate(&b, "freeze begins", st.FreezeStart, st.Source)
		writeDate(&b, "reopens", st.Reopen, st.Source)
		writeDate(&b, "release date", st.ReleaseDate, st.ReleaseDateSource)
	}
	if len(st.Facts) > 0 {
		fmt.Fprintln(&b, "\nfacts:")
		for _, f := range st.Facts {
			fmt.Fprintf(&b, "  %-10s %s\n", f.Source, f.Text)
		}
	}
	if len(st.Disagreements) > 0 {
		fmt.Fprintln(&b, "\ndisagreements:")
		for _, d := range st.Disagreements {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeDate writes one labelled date with its source, or "unknown".
func writeDate(b *bytes.Buffer, label string, t time.Time, source string) {
	if t.IsZero() {
		fmt.Fprintf(b, "%-13s unknown\n", label)
		return
	}
	fmt.Fprintf(b, "%-13s %s (%s)\n", label, t.Format(time.DateOnly), source)
}

// WriteText writes what Apply did, or would do in a dry run, as 'patchbot
// freeze -apply' prints it after the status: a blank line, then nothing
// to do, or the hashtags it would change and the message it would post,
// or the post and the hashtags now. The text is written in one call to w.
func (r *ApplyResult) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintln(&b)
	switch {
	case r.Message == "":
		what := "is not tagged " + WaitRelease
		if r.Frozen {
			what = "is already tagged " + WaitRelease
		}
		fmt.Fprintf(&b, "change %s %s: nothing to do\n", r.Change, what)
	case r.DryRun:
		fmt.Fprintf(&b, "change %s: would add %v, remove %v, and post:\n    %s\n", r.Change, r.Add, r.Remove, r.Message)
	default:
		fmt.Fprintln(&b, r.Post.Describe())
		fmt.Fprintf(&b, "change %s: hashtags now %v\n", r.Change, r.After)
	}
	_, err := w.Write(b.Bytes())
	return err
}
