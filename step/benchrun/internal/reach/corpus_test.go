package reach

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// A mutation inserts a statement at the top of one function's body.
type mutation struct {
	file   string // relative to the module
	key    string // the function's Key
	offset int    // in the file: just after the body's {
}

const marker = "patchbot-mutation:"

// mutations returns a mutation of every function and method with a body
// in the Go files of dir (relative to the module root root), in the
// package at importPath.
func mutations(t *testing.T, root, dir, importPath string) []mutation {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var muts []mutation
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		path := importPath
		if strings.HasSuffix(f.Name.Name, "_test") {
			path += "_test"
		}
		rel, _ := filepath.Rel(root, name)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			recv := ""
			if fd.Recv != nil {
				recv = recvName(fd.Recv.List[0].Type)
			}
			muts = append(muts, mutation{file: filepath.ToSlash(rel), key: Key(path, recv, fd.Name.Name), offset: fset.Position(fd.Body.Lbrace).Offset + 1})
		}
	}
	return muts
}

// apply returns src with the mutations of its file made, each a print of
// its marker and some real work, on the line of the body's brace (so that
// no line moves).
func apply(src []byte, muts []mutation) []byte {
	muts = slices.Clone(muts)
	sort.Slice(muts, func(i, j int) bool { return muts[i].offset > muts[j].offset })
	out := slices.Clone(src)
	for _, m := range muts {
		stmt := fmt.Sprintf(` println(%q); for i := 0; i < 1000; i++ { mutationSink++ };`, marker+m.key)
		out = slices.Concat(out[:m.offset], []byte(stmt), out[m.offset:])
	}
	return out
}

// copyTree copies the files of the directory from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o777)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// truth instruments every mutation at once in a copy of the module at
// root, builds the package at dir's test binary, runs each of its
// benchmarks alone, once, and returns the functions each one ran: the
// mutations that slow it.
func truth(t *testing.T, root, dir string, muts []mutation, benchmarks []string) map[string][]string {
	t.Helper()
	inst := t.TempDir()
	copyTree(t, root, inst)
	byFile := map[string][]mutation{}
	for _, m := range muts {
		byFile[m.file] = append(byFile[m.file], m)
	}
	pkgNames := map[string]bool{}
	for file, ms := range byFile {
		name := filepath.Join(inst, filepath.FromSlash(file))
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		out := apply(src, ms)
		if !pkgNames[f.Name.Name] {
			// The sink the work adds to, once a package.
			pkgNames[f.Name.Name] = true
			out = append(out, "\nvar mutationSink int\n"...)
		}
		if err := os.WriteFile(name, out, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "x.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./"+dir)
	build.Dir = inst
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the instrumented package: %v\n%s", err, out)
	}
	ran := map[string][]string{}
	re := regexp.MustCompile(regexp.QuoteMeta(marker) + `(\S+)`)
	for _, b := range benchmarks {
		cmd := exec.Command(bin, "-test.run=^$", "-test.bench=^Benchmark"+regexp.QuoteMeta(b)+"$", "-test.benchtime=1x")
		cmd.Dir = filepath.Join(inst, dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("Benchmark%s: %v\n%s", b, err, out)
		}
		for _, m := range re.FindAllSubmatch(out, -1) {
			if k := string(m[1]); !slices.Contains(ran[b], k) {
				ran[b] = append(ran[b], k)
			}
		}
	}
	return ran
}

// checkCorpus mutates each function of the package at dir of the module
// at root (modPath), and of the packages at others, in turn, and fails on any benchmark that runs the
// mutated function (truth) but that Select leaves out: a false skip. It
// returns the mutations and how many benchmark runs selection saved.
func checkCorpus(t *testing.T, root, modPath, dir string, others ...string) {
	importPath := modPath
	if dir != "." {
		importPath += "/" + dir
	}
	t0 := time.Now()
	prog, err := Load(context.Background(), "./"+dir, Options{Dir: root, Env: os.Environ(), ModPrefix: modPath})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Err != "" {
		t.Fatalf("loading: %s", prog.Err)
	}
	loaded := time.Since(t0)
	benchmarks := prog.Benchmarks()
	muts := mutations(t, root, dir, importPath)
	for _, o := range others {
		muts = append(muts, mutations(t, root, o, modPath+"/"+o)...)
	}
	ran := truth(t, root, dir, muts, benchmarks)

	falseSkips, selected, reached, all := 0, 0, 0, 0
	for _, m := range muts {
		name := filepath.Join(root, filepath.FromSlash(m.file))
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ch := Diff(modPath, []File{{Path: m.file, Old: src, New: apply(src, []mutation{m})}})
		if len(ch.Whole) == 0 && !ch.Funcs[m.key] {
			t.Errorf("%s: Diff found %v, want the one function", m.key, ch.Funcs)
		}
		sel := prog.Select(ch)
		for _, b := range benchmarks {
			runs := slices.Contains(ran[b], m.key)
			if runs {
				reached++
			}
			in := sel.All != "" || slices.Contains(sel.Reached, b)
			if in {
				selected++
			}
			if runs && !in {
				falseSkips++
				t.Errorf("false skip: Benchmark%s runs %s, which Select left out of %v", b, m.key, sel.Reached)
			}
		}
		all += len(benchmarks)
	}
	t.Logf("%s: %d mutations × %d benchmarks: %d run the mutated code, %d selected, %d false skips; %d of %d benchmark runs saved (%.0f%%); loaded in %v",
		importPath, len(muts), len(benchmarks), reached, selected, falseSkips, all-selected, all, 100*float64(all-selected)/float64(all), loaded.Round(time.Millisecond))
}

// The mutation corpus on codec: each function and method of the package
// and of its tests, mutated in turn to do more work, is run by a set of
// benchmarks (measured: the mutated code prints a marker), every one of
// which Select must take.
func TestCorpusCodec(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs codec's benchmarks")
	}
	root := t.TempDir()
	copyTree(t, "../../../../codec", filepath.Join(root, "codec"))
	write(t, root, "go.mod", "module github.com/patchbot/patchbot\n\ngo 1.26\n")
	checkCorpus(t, root, "github.com/patchbot/patchbot", "codec")
}

// The mutation corpus on a module made for it: code reached only through
// an interface, by reflection, from an init, through a table of closures
// given to b.Run, a finalizer, a goroutine, a method value, a generic
// function, a sort callback, sync.Once, and a package imported from
// another of the module.
func TestCorpusFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the fixture's benchmarks")
	}
	root := t.TempDir()
	for name, src := range fixture {
		write(t, root, name, src)
	}
	checkCorpus(t, root, "example.com/fixture", "a", "internal/b")
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	name = filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}
