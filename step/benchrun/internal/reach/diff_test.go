package reach

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

const diffBase = `package a

import "fmt"

// F does things.
func F() int {
	x := 1 // one
	return x
}

func (t *T[K]) M() { fmt.Println(t) }

type T[K any] struct{}

var V = 1
`

func TestDiff(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		old   string
		new   string
		funcs []string // the changed functions' keys
		whole string   // the package whose whole is reached, and part of why
	}{
		{"comments and spaces", "a/a.go", diffBase, strings.NewReplacer("// one", "// uno", "// F does things.", "// F does other things.\n", "\tx := 1", "\n\n\tx  :=  1").Replace(diffBase), nil, ""},
		{"a function's body", "a/a.go", diffBase, strings.Replace(diffBase, "x := 1", "x := 2", 1), []string{"m/a.F"}, ""},
		{"a generic type's method", "a/a.go", diffBase, strings.Replace(diffBase, "Println(t)", "Print(t)", 1), []string{"m/a.*.M", "m/a.T.M"}, ""}, // by name too: the receiver may be an alias
		{"a function added", "a/a.go", diffBase, diffBase + "\nfunc G() {}\n", []string{"m/a.G"}, ""},
		{"a function removed", "a/a.go", diffBase + "\nfunc G() {}\n", diffBase, nil, "m/a: a/a.go: a function was removed"}, // its callers may call a builtin of its name now
		{"a cgo build constraint", "a/a.go", "//go:build cgo\n\n" + diffBase, "//go:build cgo\n\n" + strings.Replace(diffBase, "x := 1", "x := 2", 1), nil, "m/a: a/a.go: its build constraints name cgo"},
		{"a directive on a function", "a/a.go", diffBase, strings.Replace(diffBase, "// F does things.", "//go:noinline", 1), []string{"m/a.F"}, ""},
		{"a line break", "a/a.go", "package a\n\nfunc F() { x := a\n(b) }\n", "package a\n\nfunc F() { x := a(b) }\n", []string{"m/a.F"}, ""},
		{"a var", "a/a.go", diffBase, strings.Replace(diffBase, "V = 1", "V = 2", 1), nil, "m/a: a/a.go: a var, const or type"},
		{"a type", "a/a.go", diffBase, strings.Replace(diffBase, "struct{}", "struct{ x int }", 1), nil, "m/a: a/a.go: a var, const or type"},
		{"an import", "a/a.go", diffBase, strings.Replace(diffBase, `import "fmt"`, "import (\n\t\"fmt\"\n\t_ \"image/png\"\n)", 1), nil, "m/a: a/a.go: its imports"},
		{"a build constraint", "a/a.go", diffBase, "//go:build linux\n\n" + diffBase, nil, "m/a: a/a.go: its imports, build constraints"},
		{"an embed directive", "a/a.go", "package a\n\nimport _ \"embed\"\n\n//go:embed x.txt\nvar s string\n", "package a\n\nimport _ \"embed\"\n\n//go:embed y.txt\nvar s string\n", nil, "m/a: a/a.go: its imports, build constraints"},
		{"a linkname", "a/a.go", diffBase, diffBase + "\n//go:linkname f runtime.f\n", nil, "m/a: a/a.go: its imports, build constraints"},
		{"an init", "a/a.go", diffBase, diffBase + "\nfunc init() { V = 3 }\n", nil, "m/a: a/a.go: an init function"},
		{"a method added", "a/a.go", diffBase, diffBase + "\nfunc (T[K]) String() string { return \"\" }\n", nil, "m/a: a/a.go: a method was added"},
		{"cgo", "a/c.go", "package a\n\nimport \"C\"\n\nfunc F() {}\n", "package a\n\nimport \"C\"\n\nfunc F() { F() }\n", nil, "m/a: a/c.go uses cgo"},
		{"does not parse", "a/a.go", diffBase, diffBase + "\nfunc {\n", nil, "m/a: a/a.go does not parse"},
		{"a new file", "a/b.go", "", "package a\n\nfunc G() {}\n", []string{"m/a.G"}, ""},
		{"an external test", "a/a_test.go", "package a_test\n\nfunc h() {}\n", "package a_test\n\nfunc h() { h() }\n", []string{"m/a_test.h"}, ""},
		{"assembly", "a/a_amd64.s", "TEXT ·f(SB),0,$0\n", "TEXT ·f(SB),0,$8\n", nil, "m/a: a/a_amd64.s changed"},
		{"go.mod (a replace, a bump)", "go.mod", "module m\n", "module m\n\nreplace x => ./x\n", nil, ": go.mod changed"},
		{"a vendored module", "vendor/x.org/y/y.go", "package y\n\nfunc F() {}\n", "package y\n\nfunc F() { F() }\n", nil, ": vendor/x.org/y/y.go changed"},
		{"a nested module", "dep/dep.go", "package dep\n\nfunc F() {}\n", "package dep\n\nfunc F() { F() }\n", nil, ": dep/dep.go changed"},
		{"testdata", "a/testdata/x.go", "package x\n", "package y\n", nil, ""},
		{"the module's root", "root.go", "package m\n\nfunc R() {}\n", "package m\n\nfunc R() { R() }\n", []string{"m.R"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Path: tt.path, Old: []byte(tt.old), New: []byte(tt.new)}
			if tt.old == "" {
				f.Old = nil
			}
			c := Diff("m", []File{f}, "dep")
			funcs := slices.Sorted(maps.Keys(c.Funcs))
			if !slices.Equal(funcs, tt.funcs) {
				t.Errorf("funcs = %q, want %q", funcs, tt.funcs)
			}
			var whole []string
			for p, why := range c.Whole {
				whole = append(whole, p+": "+why)
			}
			switch {
			case tt.whole == "" && len(whole) > 0:
				t.Errorf("whole = %q, want none", whole)
			case tt.whole != "" && (len(whole) != 1 || !strings.HasPrefix(whole[0], tt.whole) && !strings.Contains(whole[0], tt.whole)):
				t.Errorf("whole = %q, want %q", whole, tt.whole)
			}
		})
	}
}
