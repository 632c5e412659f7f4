package benchrun

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The module of the selection tests: a (with BenchmarkA) imports
// internal/b (no benchmarks); c (with BenchmarkC) stands apart and reads
// testdata.
const (
	selAGo = `package a

import "example.com/bench/internal/b"

func A() int { return b.Work(100) }
`
	selATestGo = `package a

import "testing"

var sink int

func BenchmarkA(b *testing.B) {
	for range b.N {
		sink += A()
	}
}
`
	selBGo = `package b

// Work does n units of work.
func Work(n int) int {
	s := 0
	for i := range n {
		s += i * i
	}
	return s
}
`
	selCGo = `package c

func C(s string) int { return len(s) }
`
	selCTestGo = `package c

import (
	"os"
	"testing"
)

var sink int

func BenchmarkC(b *testing.B) {
	data, _ := os.ReadFile("testdata/in.txt")
	notes, _ := os.ReadFile("notes.md")
	data = append(data, notes...)
	for range b.N {
		sink += C(string(data))
	}
}
`
)

// selDepGo is a module of its own, which the bench module replaces with
// its directory.
var selDepGo = strings.Replace(selBGo, "package b", "package dep", 1)

const selDTestGo = `package d

import (
	"testing"

	"example.com/dep"
)

var sink int

func BenchmarkD(b *testing.B) {
	for range b.N {
		sink += dep.Work(100)
	}
}
`

// Without packages named, Run compares the packages whose test binaries
// differ or which may read a changed file, and says of the rest that they
// are unchanged: a change to an imported package is benchmarked, one to
// docs or a comment is not.
func TestRunSelection(t *testing.T) {
	r := newTestRepo(t)
	r.commit("add a, b, c, d", "a/a.go", selAGo, "a/a_test.go", selATestGo, "internal/b/b.go", selBGo,
		"c/c.go", selCGo, "c/c_test.go", selCTestGo, "c/testdata/in.txt", "hello\n", "README.md", "# bench\n",
		"go.mod", "module example.com/bench\n\ngo 1.26\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n",
		"dep/go.mod", "module example.com/dep\n\ngo 1.26\n", "dep/dep.go", selDepGo, "d/d_test.go", selDTestGo)
	r.commit("b: twice the work", "internal/b/b.go", strings.Replace(selBGo, "range n", "range 2 * n", 1))
	r.commit("docs and a comment", "README.md", "# bench, again\n", ".github/workflows/ci.yml", "on: push\n",
		"a/a.go", strings.Replace(selAGo, "b.Work(100) }", "b.Work(100) } // a comment", 1))
	r.commit("c: new input", "c/testdata/in.txt", "hello, world\n")
	r.commit("c: notes", "c/notes.md", "notes\n")
	r.commit("c: readme", "c/README.md", "# c\n")
	r.commit("dep: twice the work", "dep/dep.go", strings.Replace(selDepGo, "range n", "range 2 * n", 1))

	tests := []struct {
		name      string
		base      string
		head      string
		packages  []string // the selection's, with reasons
		unchanged []string
	}{
		{"imported package", "HEAD~6", "HEAD~5", []string{"./a: " + reasonBinary}, []string{"./c", "./d"}},
		{"docs and a comment", "HEAD~5", "HEAD~4", nil, []string{"./a", "./c", "./d"}},
		{"testdata", "HEAD~4", "HEAD~3", []string{"./c: c/testdata/in.txt" + reasonReads}, []string{"./a", "./d"}},
		{"a file the package names", "HEAD~3", "HEAD~2", []string{"./c: c/notes.md" + reasonReads}, []string{"./a", "./d"}},
		{"a file it does not name", "HEAD~2", "HEAD~1", nil, []string{"./a", "./c", "./d"}},
		{"a replaced module", "HEAD~1", "HEAD", []string{"./d: " + reasonBinary}, []string{"./a", "./c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := quick(r.dir)
			o.Count, o.Benchtime = 2, "1x"
			o.Base, o.Head = tt.base, tt.head
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			sel := res.Run.Selection
			if sel == nil {
				t.Fatal("no selection in the result")
			}
			var got []string
			for _, p := range sel.Packages {
				got = append(got, p.Package+": "+p.Reason)
			}
			if !slices.Equal(got, tt.packages) || !slices.Equal(sel.Unchanged, tt.unchanged) {
				t.Errorf("selected %q, unchanged %q; want %q, %q", got, sel.Unchanged, tt.packages, tt.unchanged)
			}
			if len(tt.packages) == 0 {
				if len(res.Tables) != 0 || res.Run.BenchTime != 0 {
					t.Errorf("nothing affected, yet %d tables and %v of runs", len(res.Tables), res.Run.BenchTime)
				}
			}
			// Every format says what was left out.
			want := "unchanged: identical test binaries: " + strings.Join(tt.unchanged, ", ")
			for _, f := range []Format{Benchcmp, Markdown, Gerrit} {
				if out := res.String(f); !strings.Contains(out, want) {
					t.Errorf("%s does not say %q:\n%s", f, want, out)
				}
			}
			var back Result
			if err := json.Unmarshal([]byte(res.String(JSON)), &back); err != nil {
				t.Fatal(err)
			}
			if back.Run.Selection == nil || !slices.Equal(back.Run.Selection.Unchanged, tt.unchanged) {
				t.Errorf("JSON selection = %+v", back.Run.Selection)
			}
		})
	}
}

func TestDataFile(t *testing.T) {
	for name, want := range map[string]bool{
		"README.md":               true,
		"c/notes.md":              true,
		"c/testdata/in.go":        true, // never built
		"c/testdata/sub/x.s":      true,
		"c/c.go":                  false,
		"c/asm_amd64.s":           false,
		"c/lib.c":                 false,
		"go.mod":                  false,
		"go.sum":                  false,
		"sub/go.mod":              true, // a nested module's: not this build's
		".github/workflows/a.yml": false,
		".gitignore":              false,
		"c/.hidden/x":             false,
	} {
		if got := dataFile(name); got != want {
			t.Errorf("dataFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSelectionSkipped(t *testing.T) {
	s := &Selection{
		Module:    "example.com/m",
		Packages:  []Affected{{Package: "./a", Reason: reasonBinary, LeftOut: []string{"BenchmarkOld", "BenchmarkSub"}}, {Package: ".", Reason: reasonBinary}},
		Unchanged: []string{"./c"},
		Unreached: []string{"./d/e"},
	}
	for _, tt := range []struct {
		pkg, row string
		want     bool
	}{
		{"example.com/m/a", "Old-2", true},
		{"example.com/m/a", "Old", true},
		{"example.com/m/a", "Sub/x-8-2", true},
		{"example.com/m/a", "New-2", false},
		{"example.com/m/a", "Older-2", false},
		{"example.com/m/c", "Any-2", true},
		{"example.com/m/d/e", "Any/x-2", true},
		{"example.com/m", "Old-2", false},
		{"example.com/mother", "Old-2", false},
		{"example.com/m/b", "Old-2", false},
	} {
		if got := s.Skipped(tt.pkg, tt.row); got != tt.want {
			t.Errorf("Skipped(%q, %q) = %v, want %v", tt.pkg, tt.row, got, tt.want)
		}
	}
}
