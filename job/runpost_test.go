package job

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/escape/escapetest"
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

var update = flag.Bool("update", false, "rewrite testdata/compose-hostile.*")

// hostileBench is the header of the results of hostileLines.
const hostileBench = `goos: linux
pkg: example.com/m
`

// hostileLines returns benchmark results of names that would act if
// echoed raw, n runs each, at ns ns/op for the first and 100 for the rest.
func hostileLines(ns int) string {
	var b strings.Builder
	b.WriteString(hostileBench)
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "BenchmarkX/@org/team-2 1000 %d ns/op\n", ns+i)
		fmt.Fprintf(&b, "BenchmarkX/[x](https://evil.example)-2 1000 %d ns/op\n", 100+i%2)
		fmt.Fprintf(&b, "BenchmarkX/<img_src=x>-2 1000 %d ns/op\n", 100+i%2)
		fmt.Fprintf(&b, "BenchmarkX/#123-2 1000 100 ns/op %d @octocat/op\n", 7+i%2)
	}
	return b.String()
}

// TestComposeEscapes checks a review message whose benchmark names and
// units, and the command it answers, would mention, link and render if
// echoed raw, in both media,
// against testdata/compose-hostile.FORMAT (go test -update rewrites them):
// nothing in it acts, in the lists ("Significantly better", "No
// significant change") as in the tables.
func TestComposeEscapes(t *testing.T) {
	dir := t.TempDir()
	oldFile, newFile := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	if err := os.WriteFile(oldFile, []byte(hostileLines(200)), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newFile, []byte(hostileLines(100)), 0o666); err != nil {
		t.Fatal(err)
	}
	r, err := benchrun.CompareFiles(oldFile, newFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Base.File, r.Head.File = "old.txt", "new.txt"
	r.Base.Label, r.Head.Label = "old", "new"
	res := &Result{Bench: r, Asked: &Asked{Command: "/patchbot bench -bench @org/team|[x](https://evil.example)|<img_src=x>|#123", Who: "mallory"}}
	for _, f := range []benchrun.Format{benchrun.Markdown, benchrun.Gerrit} {
		got := Compose(res, f)
		var acts []string
		if f == benchrun.Markdown {
			acts = escapetest.MarkdownActs(got)
		} else {
			acts = escapetest.GerritActs(got)
		}
		if len(acts) > 0 {
			t.Errorf("%s message: %q act:\n%s", f, acts, got)
		}
		for _, list := range []string{"Answering /patchbot bench -bench ", ", asked by mallory.\n\n", "Significantly better:\n- X/", "No significant change:\n- X/"} {
			if !strings.Contains(got, list) {
				t.Errorf("%s message lacks %q:\n%s", f, list, got)
			}
		}
		golden := filepath.Join("testdata", "compose-hostile."+string(f))
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s message:\n%s\nwant (%s):\n%s", f, got, golden, want)
		}
	}
}
