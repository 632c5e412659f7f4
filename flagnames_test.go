package patchbot

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cliFlags returns the names of the flags cmd/patchbot defines, read from
// its source: fs.String("name", …), fs.Var(v, "name", …) and the like.
func cliFlags(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	var names []string
	files, _ := filepath.Glob("cmd/patchbot/*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			arg := call.Args[0]
			switch sel.Sel.Name {
			case "String", "Int", "Bool", "Duration", "Uint64", "Float64":
			case "Var":
				arg = call.Args[1]
			default:
				return true
			}
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(names, s) {
					names = append(names, s)
				}
			}
			return true
		})
	}
	return names
}

// allowedFlagText are library strings that name a flag by design: the
// sequential mode's name, which the CLI, a review comment's command and
// config.yaml ("count: auto") all spell so; and the overlay a calendar's
// line is in, which every command that reads one (run, freeze, sweep,
// serve) takes with -config.
var allowedFlagText = []string{"-count auto", "the -config file"}

// TestLibrariesNameNoFlag holds the libraries (job and step) to their
// callers' vocabularies: a library's message names what to change by its
// request field ({bench.count}, a *remedy.FieldError), which the CLI words
// as its flag and sweep or serve as theirs; a literal "-repo" in a library
// is wrong wherever it is not the CLI that shows it.
func TestLibrariesNameNoFlag(t *testing.T) {
	flags := cliFlags(t)
	if len(flags) < 30 {
		t.Fatalf("found %d flags in cmd/patchbot: the parse missed them", len(flags))
	}
	var quoted []string
	for _, f := range flags {
		// One letter (-q, -o, -n) is as often git's, go's or hg's
		// ("diff -r"), which libraries do pass.
		if len(f) > 1 {
			quoted = append(quoted, regexp.QuoteMeta(f))
		}
	}
	flagRE := regexp.MustCompile(`(^|[\s(\[,;:'"])-(` + strings.Join(quoted, "|") + `)\b([^-]|$)`)
	fset := token.NewFileSet()
	for _, root := range []string{"job", "step"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
				return err
			}
			file, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || strings.HasPrefix(s, "-") {
					return true // an argument of a program run, not a message
				}
				for _, a := range allowedFlagText {
					s = strings.ReplaceAll(s, a, "")
				}
				if m := flagRE.FindStringSubmatch(s); m != nil {
					t.Errorf("%s: %q names the CLI's flag -%s: name the request's field in braces ({field}) or return a *remedy.FieldError", fset.Position(lit.Pos()), s, m[2])
				}
				return true
			})
			return nil
		})
	}
}
