package benchrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
)

// A pkg is a package whose benchmarks are compared.
type pkg struct {
	importPath string
	rel        string // directory relative to the module, "./codec"
}

// listed is what 'go list -json' says of a package.
type listed struct {
	ImportPath   string
	Dir          string
	TestGoFiles  []string
	XTestGoFiles []string
	Error        *struct{ Err string }
}

// listPackages runs 'go list' on patterns in the module at modDir, on the
// new side, and returns the packages in order, those with benchmarks
// first. With all, the patterns are the whole module's ("./..."): a
// package go list has an error for is then left to the build when it has
// benchmarks, and left out when it has none, as one whose files the build
// constraints all exclude.
func listPackages(ctx context.Context, pr *procs, modDir string, patterns []string, all bool) (withBench, without []pkg, err error) {
	var stdout, stderr bytes.Buffer
	c := pr.command(ListCommand, 1, "", modDir, &stdout, &stderr,
		"go", append([]string{"list", "-e", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles,Error", "--"}, patterns...)...)
	c.Reads = []string{pr.trees[1]}
	// Even go list runs through the Runner: go.mod may name a
	// toolchain to download and run.
	if err := pr.runner.Run(ctx, c); err != nil {
		msg := fmt.Sprintf("go list %s: %v", strings.Join(patterns, " "), err)
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += "\n" + s
		}
		return nil, nil, errors.New(msg)
	}
	out := stdout.Bytes()
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list: %v", err)
		}
		if p.Error != nil {
			// A directory of tests alone is a package go test can
			// build, though go list calls it an error.
			testOnly := strings.Contains(p.Error.Err, "no non-test Go files") && len(p.TestGoFiles)+len(p.XTestGoFiles) > 0
			switch {
			case testOnly:
			case all && p.Dir != "":
				if has, _ := hasBenchmarks(p.Dir, append(p.TestGoFiles, p.XTestGoFiles...)); !has {
					continue
				}
			case p.Dir != "" && strings.HasPrefix(p.Error.Err, "no Go files in "):
				// A directory of the module, of other files: no
				// package, whatever runs.
				return nil, nil, &PackageError{Pattern: p.ImportPath, Reason: "its directory holds no Go files"}
			default:
				return nil, nil, fmt.Errorf("package %s: %s", p.ImportPath, strings.TrimSpace(p.Error.Err))
			}
		}
		rel, err := filepath.Rel(modDir, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, nil, fmt.Errorf("package %s is outside the module in %s", p.ImportPath, modDir)
		}
		pk := pkg{importPath: p.ImportPath, rel: "./" + filepath.ToSlash(rel)}
		if rel == "." {
			pk.rel = "."
		}
		has, err := hasBenchmarks(p.Dir, append(p.TestGoFiles, p.XTestGoFiles...))
		if err != nil {
			return nil, nil, err
		}
		if has {
			withBench = append(withBench, pk)
		} else {
			without = append(without, pk)
		}
	}
	return withBench, without, nil
}

// A PackageError is a package pattern that names no package of the
// module on the new side: a directory that is not there, or one without
// Go files. It is the same on every run, whatever the machine: the
// pattern is wrong, not the change nor the moment.
type PackageError struct {
	Pattern string // as given: "./nosuch", "./nosuch/..."
	Rev     string // the new side's revision, as given (a hash abbreviated)
	Reason  string // "the module has no directory ./nosuch"
}

func (e *PackageError) Error() string {
	return fmt.Sprintf("package %s does not exist at %s: %s; {bench.packages} must name packages of the module, such as ./...", e.Pattern, e.Rev, e.Reason)
}

// checkPatterns checks that each pattern of a directory (".", "./x",
// "../x", "./x/...") names one that exists in the module at modDir, on
// the new side, rev: go list would say so with the side's temporary
// path, in words that differ for a pattern with "..." and without. Import
// paths and absolute paths are left to go list.
func checkPatterns(modDir string, patterns []string, rev string) error {
	for _, p := range patterns {
		if p != "." && p != ".." && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
			continue
		}
		// The directory before the first element with a wildcard.
		var dir []string
		for e := range strings.SplitSeq(p, "/") {
			if strings.Contains(e, "...") {
				break
			}
			dir = append(dir, e)
		}
		d := path.Join(dir...) // "x", "../x", "."
		fi, err := os.Stat(filepath.Join(modDir, filepath.FromSlash(d)))
		switch {
		case err == nil && fi.IsDir():
		case err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			if d != "." && d != ".." && !strings.HasPrefix(d, "../") {
				d = "./" + d
			}
			return &PackageError{Pattern: p, Rev: rev, Reason: "the module has no directory " + d}
		default:
			return err
		}
	}
	return nil
}

// benchFuncRE matches the declaration of a benchmark function, whose name
// is Benchmark followed by nothing or by a character that is not lower case.
var benchFuncRE = regexp.MustCompile(`(?m)^func Benchmark(\P{Ll}\w*)?\(`)

// hasBenchmarks reports whether one of files, in dir, declares a benchmark.
func hasBenchmarks(dir string, files []string) (bool, error) {
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return false, err
		}
		if benchFuncRE.Match(data) {
			return true, nil
		}
	}
	return false, nil
}

// buildTest builds the test binary of p in the module at modDir, on side,
// into bin and reports whether it wrote one. It builds with -trimpath, so
// that the same code gives the same bytes in any directory, which is how
// a Selection tells an unchanged package. 'go test -c' writes nothing,
// and succeeds, for a package without test files, which on the old side
// is how a change that adds a package's first benchmarks looks. A build
// that fails is a *buildError carrying the compiler's output; any other
// error is the Runner's.
func buildTest(ctx context.Context, pr *procs, side int, modDir string, p pkg, bin string) (bool, error) {
	var out bytes.Buffer
	c := pr.command(BuildCommand, side, p.importPath, modDir, &out, &out, "go", "test", "-c", "-trimpath", "-o", bin, p.rel)
	c.Writes = append(c.Writes, filepath.Dir(bin))
	c.Reads = []string{pr.trees[side]}
	if err := pr.runner.Run(ctx, c); err != nil {
		if ranAndFailed(err) {
			return false, &buildError{strings.TrimSpace(out.String())}
		}
		return false, err
	}
	_, err := os.Stat(bin)
	return err == nil, nil
}

// A buildError is the output of a 'go test -c' that failed.
type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// procs makes the Commands of one Run and runs them through its Runner.
type procs struct {
	runner Runner
	tmp    string    // the processes' TempDir
	env    []string  // their environment (benchEnv)
	trees  [2]string // each side's checkout
}

// GoEnver is a Runner whose processes see modules the go command outside
// it would not: a sandbox with a module cache of its own. GoEnv returns
// the variables that show them (GOMODCACHE=…), for what Run does with
// the go command itself: the call graph of a changed package.
type GoEnver interface {
	Runner
	GoEnv() []string
}

// goEnv returns the environment of the go command Run runs itself, not
// through the Runner: the processes', with the Runner's GoEnv.
func (pr *procs) goEnv() []string {
	env := slices.Clone(pr.env)
	if ge, ok := pr.runner.(GoEnver); ok {
		env = append(env, ge.GoEnv()...)
	}
	return env
}

// command returns a Command of kind for side, writing in its TempDir,
// whose callers add what else it reads and writes.
func (pr *procs) command(kind CommandKind, side int, importPath, dir string, stdout, stderr io.Writer, path string, args ...string) *Command {
	return &Command{
		Kind: kind, Side: sideNames[side], Package: importPath,
		Path: path, Args: args, Dir: dir,
		Env:     slices.Clone(pr.env), // the Runner's to change
		TempDir: pr.tmp, Writes: []string{pr.tmp},
		Stdout: stdout, Stderr: stderr,
	}
}
