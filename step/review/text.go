package review

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
)

// DryRun reports whether a is a dry run's: would-post, would-create or
// would-update. Nothing was written then.
func (a Action) DryRun() bool {
	return a == WouldPost || a == WouldCreate || a == WouldUpdate
}

// Describe says in one line what the post did, or would do in a dry run:
// the server, what was done, the kind of the message and where. The line
// of a dry run ends in a colon, for the text it would post to follow, as
// WriteText writes it.
func (r *PostResult) Describe() string {
	where := r.URL
	if r.PatchSet > 0 {
		where += fmt.Sprintf(" (patch set %d)", r.PatchSet)
	}
	if where == "" {
		where = r.Change
	}
	switch r.Action {
	case Posted:
		return fmt.Sprintf("gerrit: posted the %s message on %s", r.Kind, where)
	case AlreadyPosted:
		return fmt.Sprintf("gerrit: the %s message is already on %s; not posted again", r.Kind, where)
	case WouldPost:
		return fmt.Sprintf("gerrit: would post the %s message on %s:", r.Kind, where)
	case Created:
		return fmt.Sprintf("github: created the %s comment %s", r.Kind, where)
	case Updated:
		return fmt.Sprintf("github: updated the %s comment %s", r.Kind, where)
	case Unchanged:
		return fmt.Sprintf("github: the %s comment %s already says this; not changed", r.Kind, where)
	case WouldCreate:
		return fmt.Sprintf("github: would create a %s comment on %s:", r.Kind, r.Change)
	case WouldUpdate:
		return fmt.Sprintf("github: would update the %s comment %s to:", r.Kind, where)
	}
	return fmt.Sprintf("%s: %s %s", r.Server, r.Action, where)
}

// WriteText writes Describe's line and, for a dry run, text, the message
// that would be posted, indented by four spaces, as 'patchbot post'
// prints them. The text is written in one call to w.
func (r *PostResult) WriteText(w io.Writer, text string) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, r.Describe())
	if r.Action.DryRun() {
		writeIndented(&b, text)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeIndented writes text with each line indented by four spaces and
// trailing spaces removed.
func writeIndented(b *bytes.Buffer, text string) {
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintln(b, strings.TrimRight("    "+line, " "))
	}
}

// WriteText writes the push for people: the commit pushed, or that a dry
// run would push, the remote and the magic ref, then the changes Gerrit
// created or updated, one a line with URL, subject and [WIP] and [NEW];
// or that Gerrit had the commit already. The text is written in one call
// to w.
//
// branch, when not "", is the local branch the commit is the tip of, as
// 'patchbot port -push' prints it after the port: each line names the
// branch, a push that reached Gerrit is set off by a blank line, and an
// answer that listed no change is said. With branch "" the lines are those
// of the post step of 'patchbot run'.
func (r *PushResult) WriteText(w io.Writer, branch string) error {
	var b bytes.Buffer
	on, gap := "", ""
	if branch != "" {
		on, gap = " (branch "+branch+")", "\n"
	}
	commit := abbrev.Hash(r.Commit)
	switch {
	case r.DryRun:
		fmt.Fprintf(&b, "dry run: would push %s%s to %s as %s\n", commit, on, r.Remote, r.Ref)
	case r.NoNewChanges:
		fmt.Fprintf(&b, "%sno new changes: Gerrit already has %s%s\n", gap, commit, on)
	default:
		fmt.Fprintf(&b, "%spushed %s%s to %s as %s:\n", gap, commit, on, r.Remote, r.Ref)
		for _, c := range r.Changes {
			flags := ""
			if c.WIP {
				flags += " [WIP]"
			}
			if c.New {
				flags += " [NEW]"
			}
			fmt.Fprintf(&b, "    %s %s%s\n", c.URL, c.Subject, flags)
		}
		if len(r.Changes) == 0 && branch != "" {
			fmt.Fprintln(&b, "    (Gerrit's answer listed no change)")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
