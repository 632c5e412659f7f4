package hgpatch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that it fails only with a
// *SyntaxError inside the input, and that what it returns is consistent.
// The seed corpus is the fixtures real Mercurial made.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.patch")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("Index: a\n====\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		patches, err := Parse("fuzz", data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SyntaxError: %v", err, err)
			}
			if n := strings.Count(string(data), "\n") + 1; se.Line < 1 || se.Line > n {
				t.Fatalf("error at line %d of a %d-line input: %v", se.Line, n, err)
			}
			return
		}
		if len(patches) == 0 {
			t.Fatal("no patches and no error")
		}
		for _, p := range patches {
			for _, fd := range p.Files {
				if fd.Name() == "" {
					t.Fatalf("file diff at line %d has no name", fd.Line)
				}
				for _, h := range fd.Hunks {
					var old, new int
					for _, l := range h.Lines {
						switch l.Op {
						case ' ':
							old++
							new++
						case '-':
							old++
						case '+':
							new++
						default:
							t.Fatalf("hunk at line %d: op %q", h.Line, l.Op)
						}
					}
					if old != h.OldLines || new != h.NewLines {
						t.Fatalf("hunk at line %d has %d old and %d new lines, header says %d and %d", h.Line, old, new, h.OldLines, h.NewLines)
					}
				}
			}
		}
	})
}
