package hgpatch

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the .golden files from the parser's output")

// TestFixtures parses every patch Mercurial made (testdata/mkfixtures.sh)
// and compares a summary of the result with testdata/NAME.golden.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.patch")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".patch")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			patches, err := Parse(name+".patch", data)
			if err != nil {
				got = "error: " + err.Error() + "\n"
			} else {
				got = dump(patches)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run 'go test -update' to create it)", err)
			}
			if got != string(want) {
				t.Errorf("parse of %s:\n%s\nwant:\n%s", file, got, want)
			}
		})
	}
}

// dump prints patches in a form that shows every parsed field.
func dump(patches []*Patch) string {
	var b strings.Builder
	for _, p := range patches {
		fmt.Fprintf(&b, "patch at line %d git=%v\n", p.Line, p.Git)
		if h := p.Header; h != nil {
			fmt.Fprintf(&b, "  user %q\n  date %s\n  node %s\n  parents %q\n", h.User, h.Date.Format(time.RFC3339), h.Node, h.Parents)
			if h.Branch != "" {
				fmt.Fprintf(&b, "  branch %s\n", h.Branch)
			}
			for _, kv := range h.Extra {
				fmt.Fprintf(&b, "  extra %s=%q\n", kv.Key, kv.Value)
			}
		}
		fmt.Fprintf(&b, "  message %q\n", p.Message)
		for _, f := range p.Files {
			fmt.Fprintf(&b, "  file line %d %s %q -> %q mode %o -> %o\n", f.Line, f.Op, f.OldName, f.NewName, f.OldMode, f.NewMode)
			if f.Binary != nil {
				fmt.Fprintf(&b, "    binary delta=%v size %d\n", f.Binary.Delta, f.Binary.Size)
			}
			for _, h := range f.Hunks {
				fmt.Fprintf(&b, "    hunk line %d -%d,%d +%d,%d\n", h.Line, h.OldStart, h.OldLines, h.NewStart, h.NewLines)
				for _, l := range h.Lines {
					fmt.Fprintf(&b, "      %c%q\n", l.Op, l.Text)
				}
			}
		}
	}
	return b.String()
}

func TestParse(t *testing.T) {
	// Every case is a small patch and the first line of the dump, or the
	// error, expected.
	tests := []struct {
		name, in, want string
	}{
		{"plain one hunk",
			"diff -r 000000000000 x\n--- a/x\tdate\n+++ b/x\tdate\n@@ -1 +1 @@\n-a\n+b\n",
			"patch at line 1 git=false\n  message \"\"\n  file line 1 modify \"x\" -> \"x\" mode 0 -> 0\n    hunk line 4 -1,1 +1,1\n      -\"a\\n\"\n      +\"b\\n\"\n"},
		{"crlf kept",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\r\n+b\r\n",
			"patch at line 1 git=true\n  message \"\"\n  file line 1 modify \"x\" -> \"x\" mode 0 -> 0\n    hunk line 4 -1,1 +1,1\n      -\"a\\r\\n\"\n      +\"b\\r\\n\"\n"},
		{"no newline",
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n",
			"patch at line 1 git=true\n  message \"\"\n  file line 1 modify \"x\" -> \"x\" mode 0 -> 0\n    hunk line 4 -1,1 +1,1\n      -\"a\"\n      +\"b\\n\"\n"},
		{"message before plain diff",
			"fix things\n\ndiff -r 000000000000 x\n--- a/x\tdate\n+++ b/x\tdate\n@@ -1 +1 @@\n-a\n+b\n",
			"patch at line 1 git=false\n  message \"fix things\"\n"},
		{"export zone west", "# HG changeset patch\n# User u\n# Date 1412345678 1800\n# Node ID " + strings.Repeat("a", 40) + "\nmsg\n",
			"patch at line 1 git=false\n  user \"u\"\n  date 2014-10-03T13:44:38-00:30\n"},
		{"export zone +1345", "# HG changeset patch\n# User u\n# Date 1412345678 -49500\nmsg\n",
			"patch at line 1 git=false\n  user \"u\"\n  date 2014-10-04T03:59:38+13:45\n"},
		{"export extra header", "# HG changeset patch\n# User u\n# EXP-Topic fast\n# Branch dev\nmsg\n",
			"patch at line 1 git=false\n  user \"u\"\n  date 0001-01-01T00:00:00Z\n  node \n  parents []\n  branch dev\n  extra EXP-Topic=\"fast\"\n"},
		{"dashes in message", "# HG changeset patch\n# User u\nsubject\n---\nmore\n",
			"patch at line 1 git=false\n  user \"u\"\n  date 0001-01-01T00:00:00Z\n  node \n  parents []\n  message \"subject\\n---\\nmore\"\n"},

		{"empty", "", "error: p:1: no patch found (empty input)"},
		{"no diff", "hello\n", "error: p:1: no diff found (expected 'hg export' or 'hg diff' output)"},
		{"plain binary", "diff -r 0123456789ab bin\nBinary file bin has changed\n",
			"error: p:2: binary file bin changed, but a plain hg diff carries no binary data: re-export the patch with 'hg export --git' (or 'hg diff --git')"},
		{"git binary without data", "diff --git a/b b/b\nBinary files a/b and b/b differ\n",
			"error: p:2: binary file b changed but the patch has no binary data"},
		{"truncated hunk", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n",
			"error: p:6: patch ends inside the hunk at line 4: 1 old and 2 new lines missing (truncated patch?)"},
		{"bad hunk line", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n*b\n",
			"error: p:6: unexpected line \"*b\" in the hunk at line 4 (1 old and 1 new lines still expected)"},
		{"bad date", "# HG changeset patch\n# Date yesterday\n", "error: p:2: bad '# Date' \"yesterday\": want UNIXTIME OFFSET"},
		{"bad node", "# HG changeset patch\n# Node ID xyz\n", "error: p:2: bad '# Node ID' \"xyz\" (want 40 hex digits)"},
		{"three parents", "# HG changeset patch\n# Parent " + strings.Repeat("a", 40) + "\n# Parent " + strings.Repeat("b", 40) + "\n# Parent " + strings.Repeat("c", 40) + "\n",
			"error: p:4: more than two '# Parent' lines"},
		{"gitlink", "diff --git a/m b/m\nnew file mode 160000\n", "error: p:2: unsupported file mode 160000"},
		{"junk between files", "diff --git a/x b/x\nold mode 100644\nnew mode 100755\nhello\n",
			"error: p:4: unexpected line \"hello\" outside any file diff"},
		{"names differ", "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
			"error: p:1: old name x and new name y differ in a plain diff"},
		{"no prefix", "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n", "error: p:1: name \"x\" does not start with \"a/\""},
		{"new file with old lines", "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
			"error: p:5: hunk of new file x has old lines"},
		{"export in the middle", "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n# HG changeset patch\n",
			"error: p:4: \"# HG changeset patch\" after a diff"},
		{"bad binary", "diff --git a/b b/b\nGIT binary patch\nliteral 5\nzzzz\n\n", "error: p:4: binary patch: corrupt data line"},
		{"index disagrees", "Index: a\n====\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n", "error: p:1: 'Index: a' but the diff is about b"},
		{"no newline before context", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n+b\n c\n",
			"error: p:4: '\\ No newline at end of file' in the middle of the hunk"},
		{"no newline on both last lines", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n c\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
			"patch at line 1 git=true\n  message \"\"\n  file line 1 modify \"x\" -> \"x\" mode 0 -> 0\n    hunk line 4 -1,2 +1,2\n       \"c\\n\"\n      -\"a\"\n      +\"b\"\n"},
		{"second diff of a file", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\nold mode 100644\nnew mode 100755\ndiff --git a/x b/x\nold mode 100644\nnew mode 100755\n",
			"error: p:10: second diff of x in one patch (first at line 1)"},
		{"second diff of a renamed file", "diff --git a/x b/y\nrename from x\nrename to y\ndiff --git a/y b/y\nold mode 100644\nnew mode 100755\n",
			"error: p:4: second diff of y in one patch (first at line 1)"},
		{"delete and add again", "diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\ndiff --git a/x b/x\nnew file mode 100755\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n",
			"patch at line 1 git=true\n  message \"\"\n  file line 1 delete \"x\" -> \"\" mode 100644 -> 0\n    hunk line 5 -1,1 +0,0\n      -\"a\\n\"\n  file line 7 add \"\" -> \"x\" mode 0 -> 100755\n"},
		{"mixed styles", "diff --git a/x b/x\nold mode 100644\nnew mode 100755\ndiff -r 0123456789ab y\n--- a/y\td\n+++ b/y\td\n@@ -1 +1 @@\n-a\n+b\n",
			"error: p:4: git-style and plain diffs mixed in one patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patches, err := Parse("p", []byte(tt.in))
			var got string
			if err != nil {
				got = "error: " + err.Error()
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Errorf("error %T is not a *SyntaxError", err)
				}
			} else {
				got = dump(patches)
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("Parse:\n%s\nwant prefix:\n%s", got, tt.want)
			}
		})
	}
}

func TestBinaryApply(t *testing.T) {
	data, err := os.ReadFile("testdata/gitdelta.patch")
	if err != nil {
		t.Fatal(err)
	}
	patches, err := Parse("gitdelta.patch", data)
	if err != nil {
		t.Fatal(err)
	}
	var old bytes.Buffer
	old.Write(make([]byte, 20000))
	for i := 1; i <= 2000; i++ {
		fmt.Fprintln(&old, i)
	}
	got, err := patches[0].Files[0].Binary.Apply(old.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Replace(old.Bytes(), []byte("\n1000\n"), []byte("\none thousand\n"), 1)
	if !bytes.Equal(got, want) {
		t.Errorf("delta applied to the old content gives %d bytes, want %d", len(got), len(want))
	}
	if _, err := patches[0].Files[0].Binary.Apply([]byte("short")); err == nil {
		t.Errorf("delta applied to the wrong content: no error")
	}
}

// BenchmarkParse parses a git-style patch of one one-line hunk per file at
// growing numbers of files. The time per file must stay flat: a check that
// compares each file with every earlier one made 100,000 files take 46 s.
//
//	go test -run XXX -bench Parse ./step/hgpatch
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		var p strings.Builder
		p.WriteString("# HG changeset patch\n# User Gopher <gopher@golang.org>\n# Date 1412345678 0\nall: a wide change\n\n")
		for f := range n {
			name := fmt.Sprintf("pkg%03d/file%06d.go", f%100, f)
			fmt.Fprintf(&p, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,1 +1,1 @@\n-old\n+new\n", name, name, name, name)
		}
		data := []byte(p.String())
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if _, err := Parse("wide.patch", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/file")
		})
	}
}
