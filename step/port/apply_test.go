package port

import (
	"fmt"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/hgpatch"
)

// hunks parses the hunks of a one-file git-style diff body.
func hunks(t *testing.T, body string) []*hgpatch.Hunk {
	t.Helper()
	ps, err := hgpatch.Parse("t.patch", []byte("diff --git a/f b/f\n--- a/f\n+++ b/f\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	return ps[0].Files[0].Hunks
}

func TestApplyText(t *testing.T) {
	tests := []struct {
		name      string
		old, hunk string
		fuzz      int
		want      string // new content, or "FAIL"
		adj       string // adjustments, joined by ";"
	}{
		{"exact", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, "a\nB\nc\n", ""},
		{"offset down", "x\ny\na\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, "x\ny\na\nB\nc\n", "f: hunk 1 applied at line 3 (offset +2 lines)"},
		{"offset up", "a\nb\nc\n", "@@ -3,3 +3,3 @@\n a\n-b\n+B\n c\n", 0, "a\nB\nc\n", "f: hunk 1 applied at line 1 (offset -2 lines)"},
		{"nearest of two", "a\nb\nc\nq\na\nb\nc\n", "@@ -4,3 +4,3 @@\n a\n-b\n+B\n c\n", 0, "a\nb\nc\nq\na\nB\nc\n", "f: hunk 1 applied at line 5 (offset +1 line)"},
		{"fuzz refused", "a\nb\nZ\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, "FAIL", ""},
		{"fuzz 1", "a\nb\nZ\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 1, "a\nB\nZ\n", "f: hunk 1 applied at line 1 (fuzz 1)"},
		{"changed line never fuzzed", "a\nX\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 3, "FAIL", ""},
		{"crlf kept", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n", 0, "a\r\nB\r\nc\r\n", ""},
		{"crlf is not lf", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 0, "FAIL", ""},
		{"no newline kept", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n", 0, "a\nB", ""},
		{"newline added", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", 0, "a\nb\n", ""},
		{"second hunk after first", "a\nb\na\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -3,2 +3,2 @@\n a\n-b\n+C\n", 0, "a\nB\na\nC\n", ""},
		{"insert at end", "a\n", "@@ -1,0 +2,1 @@\n+b\n", 0, "a\nb\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, adj, fails := applyText("f", []byte(tt.old), hunks(t, tt.hunk), tt.fuzz)
			if tt.want == "FAIL" {
				if len(fails) == 0 {
					t.Fatalf("applied: %q", out)
				}
				return
			}
			if len(fails) > 0 {
				t.Fatalf("failed: %+v", fails)
			}
			if string(out) != tt.want {
				t.Errorf("got %q, want %q", out, tt.want)
			}
			var notes []string
			for _, a := range adj {
				notes = append(notes, a.String())
			}
			if got := strings.Join(notes, ";"); got != tt.adj {
				t.Errorf("adjustments %q, want %q", got, tt.adj)
			}
		})
	}
}

func TestApplyTextReportsEveryHunk(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\n"
	hs := hunks(t, "@@ -1,2 +1,2 @@\n-X\n+Y\n b\n@@ -5,1 +5,1 @@\n-e\n+E\n@@ -8,2 +8,2 @@\n h\n-Z\n+W\n")
	_, _, fails := applyText("f", []byte(old), hs, 0)
	var got []string
	for _, f := range fails {
		got = append(got, fmt.Sprintf("hunk %d: %s", f.Hunk, strings.Join(f.Mismatch, " / ")))
	}
	want := `hunk 1: line 1: want "X\n" / line 1: have "a\n"` + "\n" + `hunk 3: line 9: want "Z\n" / line 9: have "i\n"`
	if strings.Join(got, "\n") != want {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
