package benchrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// listPackages runs 'go list' on patterns in the module at modDir and
// returns the packages in order, those with benchmarks first. tmp is the
// processes' temporary directory (see benchEnv).
func listPackages(ctx context.Context, modDir, tmp string, patterns []string) (withBench, without []pkg, err error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles,Error", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = modDir
	cmd.Env = benchEnv(tmp) // go.mod may name a toolchain to download and run
	ownGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	killGroup(cmd)
	if err != nil {
		return nil, nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(patterns, " "), err, strings.TrimSpace(stderr.String()))
	}
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
			if !testOnly {
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

// buildTest builds the test binary of p in the module at modDir into bin
// and reports whether it wrote one: 'go test -c' writes nothing, and
// succeeds, for a package without test files, which on the old side is
// how a change that adds a package's first benchmarks looks. A build
// failure comes back as the compiler's output.
func buildTest(ctx context.Context, modDir, tmp string, p pkg, bin string) (bool, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, p.rel)
	cmd.Dir = modDir
	cmd.Env = benchEnv(tmp)
	ownGroup(cmd) // an interrupt stops the compilers too
	out, err := cmd.CombinedOutput()
	killGroup(cmd)
	if err != nil {
		return false, errors.New(strings.TrimSpace(string(out)))
	}
	_, err = os.Stat(bin)
	return err == nil, nil
}

// benchEnv returns the environment for builds and benchmarks: the user's,
// less anything that looks like a credential, since the code being built
// and run may be someone else's patch, and with TMPDIR and GOTMPDIR set
// to tmp, a directory inside Run's own temporary directory. A go command
// killed by an interrupt cannot remove its go-build* work directory, nor a
// killed compiler or benchmark its files: there, removing Run's directory
// removes them too.
func benchEnv(tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if strings.Contains(upper, "TOKEN") || strings.Contains(upper, "SECRET") ||
			strings.Contains(upper, "PASSWORD") || strings.Contains(upper, "GERRIT") ||
			upper == "GIT_COOKIES" || name == "TMPDIR" || name == "GOTMPDIR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TMPDIR="+tmp, "GOTMPDIR="+tmp)
}
