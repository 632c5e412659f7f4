package review

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The libraries that talk to review servers. Only this package calls
// them, so that every request gets its retries, its errors and its hints.
var serverLibraries = []string{"golang.org/x/build/gerrit", "github.com/google/go-github/"}

// TestOnlyReviewTalksToServers parses the imports of every Go file of the
// module and fails if a package other than step/review (and its
// subpackages, such as reviewtest) imports go-github or x/build/gerrit.
// Test files are no exception: a test that checks what landed on a server
// does it with internal/gerrittest's plain REST calls.
func TestOnlyReviewTalksToServers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	var seen []string // files of this package that import them: the check sees imports at all
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		inReview := dir == "step/review" || strings.HasPrefix(dir, "step/review/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !slices.ContainsFunc(serverLibraries, func(lib string) bool { return p == lib || strings.HasPrefix(p, lib) }) {
				continue
			}
			switch {
			case inReview:
				seen = append(seen, rel)
			case strings.HasSuffix(rel, "_test.go"):
				t.Errorf("%s imports %s: only step/review may; check the server with internal/gerrittest's REST calls (add a helper there if one is missing)", rel, p)
			default:
				t.Errorf("%s imports %s: only step/review may; call its methods (add one there if it is missing)", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"step/review/gerrit.go", "step/review/github.go"} {
		if !slices.Contains(seen, want) {
			t.Errorf("the check did not see %s import a server library: it checks nothing", want)
		}
	}
}
