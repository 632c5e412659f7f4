// Package reach tells which benchmarks of a package a change can reach:
// from the change's Go files, the functions whose code changed (Diff);
// from the package's test program, its call graph, the benchmarks from
// which one of them is reachable (Select).
//
// It is conservative wherever the graph can miss. A change that is not to
// the code of a function (a var, const or type declaration, an import, an
// init function, a method added or removed, a build constraint or other
// //go: directive, assembly, C, cgo, go.mod) makes every benchmark whose
// program holds the package it is in reachable; so does a program that
// cannot be loaded, and a benchmark that reaches a function of the module
// without Go code (assembly, go:linkname), or reflect's ways to call. The
// call graph is Variable Type Analysis (golang.org/x/tools/go/callgraph/vta),
// walked from roots that are the benchmark, every package's init (the
// benchmark runs after them, on what they set up) and TestMain; see walk
// for how calls through package testing are followed.
package reach

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// A File is a changed file of the module: its path relative to the
// module, slash-separated, and its contents at each side, nil where it is
// absent.
type File struct {
	Path     string
	Old, New []byte
}

// Changes are what Diff found: the functions whose code changed, and the
// packages changed in a way no function's code says.
type Changes struct {
	// Funcs holds the changed functions and methods, by Key.
	Funcs map[string]bool
	// Whole maps an import path to why every benchmark whose program
	// holds that package is reached ("var, const or type declarations
	// of a/a.go changed"); the path "" is every package.
	Whole map[string]string
}

// Everywhere is the key of Changes.Whole for a change that reaches every
// package.
const Everywhere = ""

// Key returns the key of the function or method name (with recv, its
// receiver's type name, when it is a method) of the package at importPath.
func Key(importPath, recv, name string) string {
	if recv != "" {
		return importPath + "." + recv + "." + name
	}
	return importPath + "." + name
}

// nonGoBuild are the extensions of the files besides .go files that a
// package's build takes in.
var nonGoBuild = []string{".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".m", ".f", ".F", ".for", ".f90", ".s", ".S", ".sx", ".syso", ".swig", ".swigcxx"}

// Diff compares the sides of the changed files of the module at modPath.
// Files under testdata, and files the build does not take in, are left
// out: what reads them is the caller's to say. A file of another module
// (vendor/, or a directory with a go.mod of its own, which nested names)
// has an import path Diff cannot tell: its change reaches everywhere.
func Diff(modPath string, files []File, nested ...string) *Changes {
	c := &Changes{Funcs: map[string]bool{}, Whole: map[string]string{}}
	for _, f := range files {
		dir := path.Dir(f.Path)
		if slices.Contains(strings.Split(dir, "/"), "testdata") {
			continue
		}
		importPath := modPath
		if dir != "." {
			importPath += "/" + dir
		}
		inNested := slices.ContainsFunc(nested, func(d string) bool { return strings.HasPrefix(f.Path, d+"/") })
		switch base := path.Base(f.Path); {
		case inNested || strings.HasPrefix(f.Path, "vendor/"):
			// Another module's code, by another import path.
			c.whole(Everywhere, f.Path+" changed")
		case base == "go.mod" || base == "go.sum" || base == "go.work" || base == "go.work.sum":
			c.whole(Everywhere, f.Path+" changed")
		case base == "modules.txt" && dir == "vendor":
			c.whole(Everywhere, f.Path+" changed")
		case slices.Contains(nonGoBuild, path.Ext(base)):
			c.whole(importPath, f.Path+" changed (not Go)")
		case path.Ext(base) == ".go":
			c.diffGo(importPath, f)
		}
	}
	return c
}

func (c *Changes) whole(importPath, why string) {
	if _, ok := c.Whole[importPath]; !ok {
		c.Whole[importPath] = why
	}
}

// A parsed is what Diff compares of one side of a Go file.
type parsed struct {
	pkg      string            // the package clause's name
	header   string            // imports, build constraints and //go: directives outside functions
	decls    []string          // the other declarations, printed without comments, sorted
	inits    []string          // the init functions, printed
	funcs    map[string]string // function key (recv.name) to the function, printed with its directives
	methods  []string          // the methods' keys, sorted
	cgo      bool
	cgoTag   bool // a build constraint names cgo: the loader, without cgo, may not see the file
	hasError bool
}

// diffGo compares the two sides of the Go file f of the package at
// importPath.
func (c *Changes) diffGo(importPath string, f File) {
	old, new := parseSide(f.Path, f.Old), parseSide(f.Path, f.New)
	if old.hasError || new.hasError {
		c.whole(importPath, f.Path+" does not parse")
		return
	}
	// An external test package is a package of its own.
	pkg := cmpOr(new.pkg, old.pkg)
	if strings.HasSuffix(pkg, "_test") && strings.HasSuffix(f.Path, "_test.go") {
		importPath += "_test"
	}
	switch {
	case old.cgo || new.cgo:
		c.whole(importPath, f.Path+" uses cgo")
		return
	case f.Old != nil && f.New != nil && old.pkg != new.pkg:
		c.whole(importPath, f.Path+": its package clause changed")
		return
	case old.cgoTag || new.cgoTag:
		c.whole(importPath, f.Path+": its build constraints name cgo")
		return
	case old.header != new.header:
		c.whole(importPath, f.Path+": its imports, build constraints or //go: directives changed")
		return
	case !slices.Equal(old.decls, new.decls):
		c.whole(importPath, f.Path+": a var, const or type declaration changed")
		return
	case !slices.Equal(old.inits, new.inits):
		c.whole(importPath, f.Path+": an init function changed")
		return
	case !slices.Equal(old.methods, new.methods):
		c.whole(importPath, f.Path+": a method was added or removed")
		return
	}
	for k := range old.funcs {
		if _, ok := new.funcs[k]; !ok {
			// Its callers may now call another of its name (a builtin
			// it shadowed, min or max) with no change to their code.
			c.whole(importPath, f.Path+": a function was removed")
			return
		}
	}
	for k, body := range new.funcs {
		if old.funcs[k] != body {
			c.Funcs[importPath+"."+k] = true
			if recv, name, ok := strings.Cut(k, "."); ok && recv != "" {
				// The receiver may be an alias of the type the program
				// names: a method matches by its name too.
				c.Funcs[importPath+".*."+name] = true
			}
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parseSide parses one side of a Go file; an absent side (nil) is an
// empty file.
func parseSide(name string, src []byte) *parsed {
	p := &parsed{funcs: map[string]string{}}
	if src == nil {
		return p
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		p.hasError = true
		return p
	}
	p.pkg = file.Name.Name
	print := func(n ast.Node) string {
		return tokens(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	var header []string
	for _, imp := range file.Imports {
		if imp.Path.Value == `"C"` {
			p.cgo = true
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		header = append(header, "import "+name+" "+imp.Path.Value)
	}
	slices.Sort(header)
	// The directives outside functions: those of a function are part of
	// it (//go:noinline changes its code, not the program's).
	var inFunc []*ast.CommentGroup
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
			inFunc = append(inFunc, fd.Doc)
		}
	}
	for _, cg := range file.Comments {
		if slices.Contains(inFunc, cg) {
			continue
		}
		for _, cm := range cg.List {
			if strings.HasPrefix(cm.Text, "//go:") || strings.HasPrefix(cm.Text, "// +build") || strings.HasPrefix(cm.Text, "//line ") || strings.HasPrefix(cm.Text, "/*line ") {
				header = append(header, cm.Text)
			}
			if (strings.HasPrefix(cm.Text, "//go:build") || strings.HasPrefix(cm.Text, "// +build")) && strings.Contains(cm.Text, "cgo") {
				p.cgoTag = true
			}
		}
	}
	p.header = strings.Join(header, "\n")
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			p.decls = append(p.decls, print(d))
		case *ast.FuncDecl:
			text := print(d)
			if d.Doc != nil {
				for _, cm := range d.Doc.List {
					if strings.HasPrefix(cm.Text, "//go:") {
						text = cm.Text + "\n" + text
					}
				}
			}
			if d.Recv == nil && d.Name.Name == "init" {
				p.inits = append(p.inits, text)
				continue
			}
			key := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				key = recvName(d.Recv.List[0].Type) + "." + key
				p.methods = append(p.methods, key)
			}
			if _, dup := p.funcs[key]; dup {
				// Two of one name do not compile; the other side's
				// text is different all the same.
				key += "#" + strconv.Itoa(len(p.funcs))
			}
			p.funcs[key] = text
		}
	}
	slices.Sort(p.decls)
	slices.Sort(p.methods)
	return p
}

// tokens returns the Go tokens of src, comments left out, one a line:
// what two texts of a declaration that differ only in comments, spaces
// and where they sit in the file have alike. The semicolons the scanner
// inserts at line ends stay: a line break can change a program.
func tokens(src []byte) string {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	var b bytes.Buffer
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return b.String()
		}
		b.WriteString(tok.String())
		if lit != "" {
			b.WriteString(" " + lit)
		}
		b.WriteByte('\n')
	}
}

// recvName returns the name of a receiver's type: T of T, *T, T[K] and
// *T[K, V].
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}
