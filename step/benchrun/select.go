package benchrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/benchrun/internal/reach"
)

// A Selection says which of the module's packages with benchmarks a run
// compared, when it was not told which (Options.Packages), and why the
// others were left out.
//
// A package's benchmarks can see a change only through their test binary,
// which holds every line of Go, assembly and C they run, of the package,
// of what it imports and of the module's dependencies, and through the
// files they read as they run. So every package with benchmarks at the
// head is built at both revisions, reproducibly (-trimpath: the same code
// gives the same bytes in any directory), and a package is affected when
// its two test binaries differ, when it has none at the base, or when a
// file changed that it may read: one in its directory, or in a directory
// under it that is no package of its own (testdata, say), that the build
// does not take in. The rest are unchanged: nothing the change did can
// show in their benchmarks, and none of them runs.
type Selection struct {
	// Module is the module's path, to which the packages' are relative.
	Module string `json:"module"`
	// Packages are the packages compared, each with why.
	Packages []Affected `json:"packages"`
	// Unchanged are the packages with benchmarks whose test binaries
	// are identical at both revisions and which read no changed file.
	Unchanged []string `json:"unchanged,omitempty"`
	// Unreached are the packages whose test binaries differ but from
	// none of whose benchmarks a changed function is reachable.
	Unreached []string `json:"unreached,omitempty"`
	// Broken are the packages with benchmarks that build at neither
	// revision, with the same error: the change did not break them, and
	// they cannot be compared.
	Broken []string `json:"broken,omitempty"`
}

// An Affected package is one a Selection compares, and why.
type Affected struct {
	Package string `json:"package"` // relative to the module: "./codec", "."
	Reason  string `json:"reason"`  // "its test binary differs", …

	// All says why every benchmark of the package runs, when its test
	// binary differs and the call graph could not tell its benchmarks
	// apart ("a/a.go: a var, const or type declaration changed"); "" when
	// it could, or was not asked.
	All string `json:"all,omitempty"`
	// LeftOut are the benchmark functions of the package, without
	// "Benchmark", from which no changed function is reachable: they do
	// not run.
	LeftOut []string `json:"left_out,omitempty"`
}

// Skipped reports whether the selection left out the benchmark that a
// result row names (row, "Sum64/4B-2") in the package at importPath: its
// package unchanged or unreached, or its function left out. Its code is
// then the same at both revisions.
func (s *Selection) Skipped(importPath, row string) bool {
	rel := "."
	if importPath != s.Module {
		if !strings.HasPrefix(importPath, s.Module+"/") {
			return false
		}
		rel = "./" + strings.TrimPrefix(importPath, s.Module+"/")
	}
	if slices.Contains(s.Unchanged, rel) || slices.Contains(s.Unreached, rel) {
		return true
	}
	a := s.find(rel)
	if a == nil {
		return false
	}
	name, _, sub := strings.Cut(row, "/")
	if !sub {
		// The GOMAXPROCS suffix ends the name: "Sum-2".
		if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" {
			name = name[:i]
		}
	}
	return slices.Contains(a.LeftOut, "Benchmark"+name)
}

// The reasons of an Affected package.
const (
	reasonBinary = "its test binary differs"
	reasonNew    = "it has no test binary at the base"
	reasonReads  = " changed, which its benchmarks may read" // after a file's name
)

// String says the selection in a line, for a reply: what was left out
// and why; "" when nothing was.
func (s *Selection) String() string {
	var parts []string
	if len(s.Unchanged) > 0 {
		parts = append(parts, "unchanged: identical test binaries: "+strings.Join(s.Unchanged, ", "))
	}
	if len(s.Unreached) > 0 {
		parts = append(parts, "no benchmark reaches a changed function: "+strings.Join(s.Unreached, ", "))
	}
	for _, p := range s.Packages {
		if len(p.LeftOut) > 0 {
			parts = append(parts, fmt.Sprintf("left out of %s, as no changed function is reachable from them: %s", p.Package, strings.Join(p.LeftOut, ", ")))
		}
	}
	if len(s.Broken) > 0 {
		parts = append(parts, "not compared: builds at neither revision: "+strings.Join(s.Broken, ", "))
	}
	return strings.Join(parts, "; ")
}

// buildExts are the extensions of the files that a package's build takes
// in besides .go files: what they change is in the test binary.
var buildExts = []string{".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".m", ".f", ".F", ".for", ".f90", ".s", ".S", ".sx", ".syso", ".swig", ".swigcxx"}

// buildFiles are the module's own files that its builds read.
var buildFiles = []string{"go.mod", "go.sum", "go.work", "go.work.sum"}

// dataFile reports whether name, a changed file relative to the module, is
// one the build does not take in, which a benchmark may read as it runs: a
// file that is not Go, assembly, C or the like, or any file under a
// testdata directory (which the go command never builds). A name with an
// element that begins with a dot (.github/, .gitignore) is taken for the
// tools' own, as the go command takes such a directory for none of its
// packages.
func dataFile(name string) bool {
	elems := strings.Split(name, "/")
	for _, e := range elems {
		if strings.HasPrefix(e, ".") {
			return false
		}
	}
	if slices.Contains(elems[:len(elems)-1], "testdata") {
		return true
	}
	if slices.Contains(buildFiles, name) {
		return false
	}
	ext := path.Ext(name)
	return ext != ".go" && !slices.Contains(buildExts, ext)
}

// readers maps each changed data file (dataFile) to the package that may
// read it: the one of the nearest directory, at or above the file's, that
// holds Go files at the head (isPkg). A file of no package's directory
// tree (a module whose root is no package) maps to none.
func readers(changed []string, isPkg func(dir string) bool) map[string]string {
	m := make(map[string]string)
	for _, f := range changed {
		if !dataFile(f) {
			continue
		}
		for dir := path.Dir(f); ; dir = path.Dir(dir) {
			if path.Base(dir) != "testdata" && isPkg(dir) {
				m[f] = dir
				break
			}
			if dir == "." {
				break
			}
		}
	}
	return m
}

// listing are the calls by which a benchmark can read files it does not
// name.
var listing = []string{"ReadDir", "Readdir", "Glob", "Walk", "DirFS", "Open(\".\")", "Open(\"\")"}

// mayRead reports whether the package in the directory pkgDir (dir,
// relative to the module) may read the changed file name, relative to
// the module: one under a testdata directory, always; any other, when
// the package's Go files (its tests' too) name it or list a directory.
// A README beside a package's code is no input of its benchmarks unless
// they say so.
func mayRead(pkgDir, dir, name string) bool {
	rel := strings.TrimPrefix(name, dir+"/")
	if dir == "." {
		rel = name
	}
	if slices.Contains(strings.Split(path.Dir(rel), "/"), "testdata") {
		return true
	}
	files, _ := filepath.Glob(filepath.Join(pkgDir, "*.go"))
	for _, f := range files {
		data, err := readSource(f)
		if err != nil {
			return true
		}
		if bytes.Contains(data, []byte(path.Base(name))) {
			return true
		}
		for _, l := range listing {
			if bytes.Contains(data, []byte(l)) {
				return true
			}
		}
	}
	return false
}

// relDir returns a package's directory relative to the module as path.Dir
// gives it ("." or "a/b"), from its pkg.rel ("." or "./a/b").
func relDir(rel string) string {
	if rel == "." {
		return "."
	}
	return strings.TrimPrefix(rel, "./")
}

// sameFile reports whether the files a and b hold the same bytes.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	sa, err := fa.Stat()
	if err != nil {
		return false, err
	}
	sb, err := fb.Stat()
	if err != nil {
		return false, err
	}
	if sa.Size() != sb.Size() {
		return false, nil
	}
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == ea, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}

// changedFiles returns the files that differ between base and head,
// relative to the module and slash-separated, in order: both names of a
// file renamed, and none outside the module; outside reports whether
// some were (a replace of ../dep, a go.work above the module).
func (r *repo) changedFiles(base, head *object.Commit) (files []string, outside bool, err error) {
	bt, err := base.Tree()
	if err != nil {
		return nil, false, err
	}
	ht, err := head.Tree()
	if err != nil {
		return nil, false, err
	}
	changes, err := object.DiffTree(bt, ht)
	if err != nil {
		return nil, false, err
	}
	for _, ch := range changes {
		for _, name := range []string{ch.From.Name, ch.To.Name} {
			if name == "" {
				continue
			}
			if r.modRel != "" {
				if !strings.HasPrefix(name, r.modRel+"/") {
					outside = true
					continue
				}
				name = strings.TrimPrefix(name, r.modRel+"/")
			}
			if !slices.Contains(files, name) {
				files = append(files, name)
			}
		}
	}
	slices.Sort(files)
	return files, outside, nil
}

// selectAffected judges each package of pkgs, built at both sides into
// bins (a side without a binary has "", one whose build failed its
// compiler's output in buildErrs), against the changed files, and
// returns the Selection and which packages to keep. modDir is the head's
// module directory, where a data file's package is looked for.
func selectAffected(pkgs []pkg, bins [2][]string, buildErrs [2][]string, changed []string, modDir string) (*Selection, []bool, error) {
	sel := &Selection{Packages: []Affected{}}
	keep := make([]bool, len(pkgs))
	byDir := make(map[string]int)
	for i, p := range pkgs {
		byDir[relDir(p.rel)] = i
	}
	reads := readers(changed, func(dir string) bool {
		if _, ok := byDir[dir]; ok {
			return true
		}
		return goFiles(modDir + "/" + dir)
	})
	readBy := make(map[int][]string)
	for _, f := range changed {
		if dir, ok := reads[f]; ok {
			if i, ok := byDir[dir]; ok && mayRead(filepath.Join(modDir, filepath.FromSlash(dir)), dir, f) {
				readBy[i] = append(readBy[i], f)
			}
		}
	}
	for i, p := range pkgs {
		var reason string
		switch {
		case buildErrs[0][i] != "" && buildErrs[0][i] == buildErrs[1][i]:
			sel.Broken = append(sel.Broken, p.rel)
			continue
		case buildErrs[0][i] != "" || buildErrs[1][i] != "":
			keep[i] = true // buildFailure reports it
			continue
		case bins[0][i] == "" && bins[1][i] != "":
			reason = reasonNew
		case bins[1][i] == "":
			// No test binary at the head: 'go test -c' wrote none.
			sel.Unchanged = append(sel.Unchanged, p.rel)
			continue
		default:
			same, err := sameFile(bins[0][i], bins[1][i])
			if err != nil {
				return nil, nil, err
			}
			if !same {
				reason = reasonBinary
			}
		}
		if reason == "" && len(readBy[i]) > 0 {
			files := readBy[i]
			reason = files[0]
			if len(files) > 1 {
				reason += fmt.Sprintf(" and %d more", len(files)-1)
			}
			reason += reasonReads
		}
		if reason == "" {
			sel.Unchanged = append(sel.Unchanged, p.rel)
			continue
		}
		keep[i] = true
		sel.Packages = append(sel.Packages, Affected{Package: p.rel, Reason: reason})
	}
	return sel, keep, nil
}

// buildFailure returns the error of the first package of pkgs that builds
// on one side only (buildErrs), as Run words a side that does not build.
func buildFailure(pkgs []pkg, buildErrs [2][]string, revs, commits [2]string) error {
	for i, p := range pkgs {
		if buildErrs[0][i] == buildErrs[1][i] {
			continue
		}
		side := 1
		if buildErrs[1][i] == "" {
			side = 0
		}
		return sideErrorf(side, "%s side (%s, %s): %s does not build; fix it or pick another revision:\n%s",
			sideNames[side], revs[side], abbrev.Hash(commits[side]), p.rel, buildErrs[side][i])
	}
	return nil
}

// filterIndex returns the elements of s whose keep is true.
func filterIndex[T any](s []T, keep []bool) []T {
	var out []T
	for i, v := range s {
		if keep[i] {
			out = append(out, v)
		}
	}
	return out
}

// narrowByReach asks the call graph which benchmarks of each package sel
// took for its test binary reach a changed function, and narrows them:
// benches[i], pkgs[i]'s -test.bench, to those; keep[i] false for a
// package none of whose benchmarks does. trees are the sides' module
// directories, changed the changed files, modPath the module's path.
func narrowByReach(ctx context.Context, sel *Selection, pkgs []pkg, keep []bool, benches []string, trees [2]string, changed []string, outside bool, modPath string, env []string) error {
	var files []reach.File
	// A file no function's code says: an embedded file, or one read as
	// the benchmarks run, may be what changed the binary, or what they
	// read; a file outside the module, a replaced module's or a go.work's.
	whole := ""
	if outside {
		whole = "files outside the module changed"
	}
	for _, f := range changed {
		if path.Ext(f) != ".go" && dataFile(f) {
			if whole == "" {
				whole = f + " changed, which a benchmark may embed or read"
			}
			continue
		}
		rf := reach.File{Path: f}
		for side, dst := range []*[]byte{&rf.Old, &rf.New} {
			data, err := readSource(filepath.Join(trees[side], filepath.FromSlash(f)))
			switch {
			case err == nil:
				*dst = data
			case errors.Is(err, fs.ErrNotExist):
			case errors.Is(err, errNotSource):
				whole = f + " is not a regular file of at most 4 MiB"
			default:
				return err
			}
		}
		files = append(files, rf)
	}
	changes := reach.Diff(modPath, files, nestedModules(trees, changed)...)
	if whole != "" {
		changes.Whole[reach.Everywhere] = whole
	}
	for i, p := range pkgs {
		a := sel.find(p.rel)
		if !keep[i] || a == nil || a.Reason != reasonBinary {
			continue
		}
		s, err := reach.Select(ctx, p.rel, changes, reach.Options{Dir: trees[1], Env: env, ModPrefix: modPath})
		if err != nil {
			return err
		}
		if s.All != "" {
			a.All = s.All
			continue
		}
		if len(s.Reached) == 0 {
			keep[i] = false
			sel.Unreached = append(sel.Unreached, p.rel)
			sel.remove(p.rel)
			continue
		}
		names := matching(benches[i], s.Reached)
		if len(names) == 0 {
			continue // -test.bench matches none of them: the run says so
		}
		for _, n := range s.Unreached {
			a.LeftOut = append(a.LeftOut, "Benchmark"+n)
		}
		if len(a.LeftOut) > 0 {
			benches[i] = narrow(benches[i], names)
		}
	}
	return nil
}

// nestedModules returns the directories, relative to the module, of the
// modules nested in it (a go.mod of their own, at either side) that hold
// one of the changed files.
func nestedModules(trees [2]string, changed []string) []string {
	var dirs []string
	for _, f := range changed {
		for dir := path.Dir(f); dir != "."; dir = path.Dir(dir) {
			if slices.Contains(dirs, dir) {
				break
			}
			for _, t := range trees {
				if _, err := os.Stat(filepath.Join(t, filepath.FromSlash(dir), "go.mod")); err == nil {
					dirs = append(dirs, dir)
					break
				}
			}
		}
	}
	return dirs
}

// errNotSource is readSource's error for a file that is not a regular
// file of at most maxSource bytes: a symbolic link, a device, a FIFO, or
// something too big to be a change's source to read.
var errNotSource = errors.New("not a regular file of at most 4 MiB")

const maxSource = 4 << 20

// readSource reads the file name of a checkout, which the change wrote:
// only a regular file (not a link out of it, to /dev/zero or a FIFO), and
// only up to maxSource bytes.
func readSource(name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxSource {
		return nil, errNotSource
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSource+1))
	if err == nil && len(data) > maxSource {
		return nil, errNotSource
	}
	return data, err
}

// matching returns the names (of benchmark functions, without
// "Benchmark") that the first level of one of the -test.bench regexp
// bench's alternatives matches, as go test matches it.
func matching(bench string, names []string) []string {
	var matched []string
	for _, alt := range splitBench(bench) {
		matched = append(matched, matchingLevel(alt[0], names)...)
	}
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !slices.Contains(matched, n) })
}

func (s *Selection) find(rel string) *Affected {
	for i := range s.Packages {
		if s.Packages[i].Package == rel {
			return &s.Packages[i]
		}
	}
	return nil
}

func (s *Selection) remove(rel string) {
	s.Packages = slices.DeleteFunc(s.Packages, func(a Affected) bool { return a.Package == rel })
}

// modulePath returns the path of the module whose package p is.
func modulePath(p pkg) string {
	if p.rel == "." {
		return p.importPath
	}
	return strings.TrimSuffix(p.importPath, strings.TrimPrefix(p.rel, "."))
}
