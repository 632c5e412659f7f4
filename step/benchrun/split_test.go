package benchrun

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSplit splits a comparison of the packages a change affects into
// one Run a package, as serve does over its workers, and merges them: the
// same packages, tables and selection as one Run, and a part that did
// not run is left out of the merge.
func TestSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchmarks")
	}
	pkg := func(name string, n int) string {
		return fmt.Sprintf("package %s\n\nimport \"testing\"\n\nvar sink int\n\nfunc Benchmark%s(b *testing.B) {\n\tfor range b.N {\n\t\tfor i := range %d {\n\t\t\tsink += i\n\t\t}\n\t}\n}\n", name, strings.ToUpper(name[:1])+name[1:], n)
	}
	r := newTestRepo(t)
	r.commit("three packages", "a/a_test.go", pkg("a", 10), "b/b_test.go", pkg("b", 10), "c/c_test.go", pkg("c", 10))
	r.commit("a and b do more", "a/a_test.go", pkg("a", 20), "b/b_test.go", pkg("b", 20))
	ctx := context.Background()
	base := Options{Dir: r.dir, Base: "HEAD^", Head: "HEAD", Count: 2, Benchtime: "10x"}

	o := base
	o.Split = true
	plan, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tables) != 0 || plan.Run.BenchTime != 0 {
		t.Errorf("a split ran benchmarks: %+v", plan.Run)
	}
	var dirs []string
	for _, p := range plan.Run.Parts {
		dirs = append(dirs, p.Dir)
	}
	if !slices.Equal(dirs, []string{"./a", "./b"}) || plan.Run.Selection == nil || !slices.Equal(plan.Run.Selection.Unchanged, []string{"./c"}) {
		t.Fatalf("split into %v, selection %+v; want ./a and ./b, ./c unchanged", dirs, plan.Run.Selection)
	}

	var parts []*Result
	for _, p := range plan.Run.Parts {
		o := base
		o.Packages, o.Bench, o.Selected = []string{p.Dir}, p.Bench, plan.Run.Selection
		res, err := Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, res)
	}
	merged, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(merged.Run.Packages, []string{"example.com/bench/a", "example.com/bench/b"}) || merged.Run.Selection != plan.Run.Selection {
		t.Errorf("merged: packages %v, selection %p (want %p)", merged.Run.Packages, merged.Run.Selection, plan.Run.Selection)
	}
	var b strings.Builder
	if err := merged.Write(&b, Benchcmp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BenchmarkA", "BenchmarkB", "unchanged: identical test binaries: ./c"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("merged table lacks %q:\n%s", want, b.String())
		}
	}
	if merged.Run.BenchTime != parts[0].Run.BenchTime+parts[1].Run.BenchTime {
		t.Errorf("merged bench time %v, want the parts' sum", merged.Run.BenchTime)
	}

	// A part that failed for good is left out; the rest stays.
	one, err := Merge([]*Result{nil, parts[1]})
	if err != nil || !slices.Equal(one.Run.Packages, []string{"example.com/bench/b"}) {
		t.Errorf("merge without a: %v, %v", one.Run.Packages, err)
	}
	if _, err := Merge([]*Result{nil}); err == nil {
		t.Error("merged no part")
	}
	other := *parts[1]
	other.Head.Commit = "0123"
	if _, err := Merge([]*Result{parts[0], &other}); err == nil {
		t.Error("merged parts of two comparisons")
	}
}
