package job

import (
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/benchrun"
)

// TestComposeNote checks that a note is the message's first line, and
// that without one the message is as before.
func TestComposeNote(t *testing.T) {
	res := &Result{NoBench: "nothing to measure"}
	plain := Compose(res, benchrun.Gerrit)
	res.Note = "Measured patch set 1 (abc); patch set 2 is newer: ask again on it to measure it."
	for _, f := range []benchrun.Format{benchrun.Gerrit, benchrun.Markdown} {
		got := Compose(res, f)
		if want := res.Note + "\n\n"; !strings.HasPrefix(got, want) {
			t.Errorf("message does not start with the note:\n%s", got)
		}
	}
	if got := Compose(res, benchrun.Gerrit); got != res.Note+"\n\n"+plain {
		t.Errorf("with a note:\n%s\nwant the note, then:\n%s", got, plain)
	}
}
