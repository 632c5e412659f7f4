package job

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review"
)

// WriteStep writes what step did for people, as 'patchbot run' prints it
// when the step ends: a header line ("== port", and so on), then the
// step's own result as its command prints it: the port's, the freeze
// status in a sentence, the benchcmp table, and for the post step the
// push, the freeze hashtags, each post and the message where it was not
// posted. It depends on r alone, so a result read back from JSON is
// written the same way. The text is written in one call to w.
func (r *Result) WriteStep(w io.Writer, step string) error {
	var b bytes.Buffer
	switch step {
	case StepPort:
		switch {
		case r.Example:
			fmt.Fprintf(&b, "== port: the built-in example, in %s\n", r.Port.Repo)
		case r.Scratch != "":
			fmt.Fprintf(&b, "== port: dry run: in a scratch clone of %s, %s\n", r.Repo, r.Port.Repo)
		default:
			fmt.Fprintf(&b, "== port\n")
		}
		if err := r.Port.WriteText(&b); err != nil {
			return err
		}
	case StepFreeze:
		st := r.Freeze
		fmt.Fprintf(&b, "\n== freeze\n%s: %s\n", st.Branch, st.Line())
		for _, d := range st.Disagreements {
			fmt.Fprintf(&b, "    note: %s\n", d)
		}
	case StepBench:
		if err := r.writeBench(&b); err != nil {
			return err
		}
	case StepPost:
		if err := r.Post.writeText(&b); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown step %q", step)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeBench writes the bench step: the packages, runs per side and the
// time it took, then the benchcmp table; or why nothing ran.
func (r *Result) writeBench(b *bytes.Buffer) error {
	br := r.Bench
	if br == nil {
		fmt.Fprintf(b, "\n== bench\nnothing to run: %s\n", r.NoBench)
		return nil
	}
	if len(br.Run.Packages) == 0 {
		// The change affects no benchmark: the result says which
		// packages it left out, and why.
		fmt.Fprintf(b, "\n== bench: nothing to run, %s\n", br.Run.Wall.Round(time.Second))
		return br.Write(b, benchrun.Benchcmp)
	}
	runs := fmt.Sprintf("%d runs per side", br.Run.Count)
	if len(br.Run.Looks) > 0 {
		runs = fmt.Sprintf("up to %d runs per side (-count auto)", br.Run.Count)
	}
	fmt.Fprintf(b, "\n== bench: %s, %s", strings.Join(br.Run.Packages, " "), runs)
	if br.Run.Benchtime != "" {
		fmt.Fprintf(b, " of %s", br.Run.Benchtime)
	}
	fmt.Fprintf(b, ", %s\n", br.Run.Wall.Round(time.Second))
	return br.Write(b, benchrun.Benchcmp)
}

// writeText writes the post step: the push, the hashtags, each post, and
// the message when it was not posted.
func (p *PostRecord) writeText(b *bytes.Buffer) error {
	fmt.Fprintf(b, "\n== post\n")
	if p.Push != nil {
		if err := p.Push.WriteText(b, ""); err != nil {
			return err
		}
	}
	if err := p.writeHashtags(b); err != nil {
		return err
	}
	for _, r := range p.Posts {
		text := p.Message
		if r.Action == review.WouldCreate || r.Action == review.WouldUpdate {
			text = p.MarkdownMessage
		}
		if err := r.WriteText(b, text); err != nil {
			return err
		}
	}
	if p.Printed {
		why := "no review target ({gerrit.push}, {gerrit.change} or {github})"
		if p.Push != nil {
			why = "dry run: nothing was pushed, so there is no change to post to"
		}
		fmt.Fprintf(b, "%s; the message it would post:\n", why)
		writeIndented(b, p.Message)
	}
	return nil
}

// writeHashtags writes what the post step did to the change's hashtags
// for the freeze, if anything.
func (p *PostRecord) writeHashtags(b *bytes.Buffer) error {
	h := p.Hashtags
	if h == nil || len(h.Add)+len(h.Remove) == 0 {
		return nil
	}
	verb := "set"
	if h.DryRun {
		verb = "dry run: would set"
	}
	var what []string
	if len(h.Add) > 0 {
		what = append(what, "add "+strings.Join(h.Add, " "))
	}
	if len(h.Remove) > 0 {
		what = append(what, "remove "+strings.Join(h.Remove, " "))
	}
	fmt.Fprintf(b, "%s hashtags on %s: %s\n", verb, h.Change, strings.Join(what, ", "))
	switch {
	case h.Post != nil:
		fmt.Fprintln(b, h.Post.Describe())
	case h.DryRun && h.Message != "":
		fmt.Fprintf(b, "dry run: would post the %s message:\n", freeze.MessageKind)
		writeIndented(b, h.Message)
	}
	return nil
}

// writeIndented writes text with each line indented by four spaces and
// trailing spaces removed.
func writeIndented(b *bytes.Buffer, text string) {
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintln(b, strings.TrimRight("    "+line, " "))
	}
}
