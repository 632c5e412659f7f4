package reach

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// A Selection is which benchmarks of one package a change reaches.
type Selection struct {
	// All is why every benchmark of the package is taken, when the
	// call graph cannot tell them apart; "" when it can.
	All string
	// Reached are the benchmark functions, without "Benchmark", from
	// which a changed function is reachable; Unreached the others.
	// Both are empty when All is set.
	Reached, Unreached []string
}

// Options are Select's.
type Options struct {
	Dir       string        // the module's directory at the head
	Env       []string      // the go command's environment, to which Select adds CGO_ENABLED=0, GOTOOLCHAIN=local and GOPROXY=off
	Timeout   time.Duration // how long the load and the analysis may take; 0 means a minute
	ModPrefix string        // the module's path: its packages' functions without code are taken as reached
}

// Select loads the package at pattern ("./a") with its tests from the
// module in o.Dir, and tells which of its benchmarks reach one of
// changes' functions. It fails only when ctx is done; a package it cannot
// load or analyse in time is one whose benchmarks are all taken, with the
// reason.
func Select(ctx context.Context, pattern string, changes *Changes, o Options) (*Selection, error) {
	if why, ok := changes.Whole[Everywhere]; ok {
		return &Selection{All: why}, nil
	}
	p, err := Load(ctx, pattern, o)
	if err != nil {
		return nil, err
	}
	return p.Select(changes), nil
}

// A Program is a package's test program, with its call graph, to ask of
// changes; or, when it could not be loaded, why (Err).
type Program struct {
	Err      string          // why it could not be loaded or analysed; "" when it was
	pkgPaths []string        // the import paths of the program's packages
	cgo      string          // a package of the module that uses cgo, which the program was loaded without
	g        *graph          // the call graph
	roots    []*ssa.Function // what every benchmark shares: the inits and TestMain
	benches  []*ssa.Function // the benchmark functions, by name
	prefix   string          // the module's path
}

// Load loads the test program of the package at pattern, from the module
// in o.Dir, and builds its call graph. It fails only when ctx is done: a
// program it cannot load, or build in time, has Err set.
func Load(ctx context.Context, pattern string, o Options) (*Program, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Type checking and building SSA do not stop on ctx: they run
	// apart, and a program that takes too long is left to them.
	done := make(chan *Program, 1)
	go func() { done <- load(ctx, pattern, o) }()
	select {
	case p := <-done:
		return p, nil
	case <-ctx.Done():
		if err := context.Cause(ctx); !errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return &Program{Err: fmt.Sprintf("its call graph took more than %v to build", timeout)}, nil
	}
}

func load(ctx context.Context, pattern string, o Options) *Program {
	cfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir: o.Dir,
		// Nothing of the patch's runs here, outside the sandbox: no
		// cgo (no C compiler), no toolchain or module downloaded.
		Env:   append(slices.Clone(o.Env), "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOPROXY=off"),
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return &Program{Err: "its call graph could not be built: " + firstLine(err.Error())}
	}
	p := &Program{prefix: o.ModPrefix}
	packages.Visit(pkgs, nil, func(lp *packages.Package) {
		if p.Err != "" {
			return
		}
		if len(lp.Errors) > 0 {
			p.Err = "its call graph could not be built: " + firstLine(lp.Errors[0].Error())
			return
		}
		p.pkgPaths = append(p.pkgPaths, lp.PkgPath)
		// Loaded without cgo, a package of the module with cgo files is
		// not the one the benchmark runs.
		if p.cgo == "" && inModulePath(lp.PkgPath, o.ModPrefix) && usesCgo(lp.IgnoredFiles) {
			p.cgo = lp.PkgPath + " uses cgo"
		}
	})
	if p.Err != "" {
		return p
	}
	prog, spkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()

	// The roots every benchmark shares: each package's init (but the
	// test main's, which takes every test's address), and TestMain.
	for i, sp := range spkgs {
		if sp == nil {
			continue
		}
		if pkgs[i].Name == "main" && strings.HasSuffix(pkgs[i].PkgPath, ".test") {
			continue
		}
		test := strings.Contains(pkgs[i].ID, " [") // a test variant: the package with its _test.go files, or its external test package
		for _, m := range sp.Members {
			fn, ok := m.(*ssa.Function)
			if !ok || !test || !strings.HasSuffix(prog.Fset.Position(fn.Pos()).Filename, "_test.go") {
				continue
			}
			switch {
			case fn.Name() == "TestMain" && takes(fn, "M"):
				p.roots = append(p.roots, fn)
			case isBenchmark(fn):
				p.benches = append(p.benches, fn)
			}
		}
	}
	for _, sp := range prog.AllPackages() {
		if sp.Pkg.Name() == "main" && strings.HasSuffix(sp.Pkg.Path(), ".test") {
			continue
		}
		if fn := sp.Func("init"); fn != nil {
			p.roots = append(p.roots, fn)
		}
	}
	sort.Slice(p.benches, func(i, j int) bool { return p.benches[i].Name() < p.benches[j].Name() })
	p.g = newGraph(prog)
	return p
}

// Benchmarks returns the names of the program's benchmark functions,
// without "Benchmark".
func (p *Program) Benchmarks() []string {
	var names []string
	for _, b := range p.benches {
		if n := strings.TrimPrefix(b.Name(), "Benchmark"); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// Select tells which of the program's benchmarks reach one of changes'
// functions.
func (p *Program) Select(changes *Changes) *Selection {
	if why, ok := changes.Whole[Everywhere]; ok {
		return &Selection{All: why}
	}
	if p.Err != "" {
		return &Selection{All: p.Err}
	}
	for _, path := range p.pkgPaths {
		if why, ok := changes.Whole[path]; ok {
			return &Selection{All: why}
		}
	}
	if p.cgo != "" {
		return &Selection{All: p.cgo}
	}
	hit := func(fn *ssa.Function) bool {
		return changes.Funcs[funcKey(fn)] || changes.Funcs[methodKey(fn)] || (len(fn.Blocks) == 0 && inModule(fn, p.prefix)) || callsByReflection(fn)
	}
	shared := &walk{g: p.g, prefix: p.prefix, seen: map[*ssa.Function]bool{}}
	if shared.run(p.roots, hit) {
		return &Selection{All: "a package's init or TestMain reaches a changed function"}
	}
	made := shared.madeValues()
	s := &Selection{}
	for _, b := range p.benches {
		name := strings.TrimPrefix(b.Name(), "Benchmark")
		if slices.Contains(s.Reached, name) {
			continue // the internal and the external test package may each have one: go test runs both
		}
		w := &walk{g: p.g, prefix: p.prefix, seen: maps.Clone(shared.seen), made: made,
			reflecting: shared.reflecting, types: maps.Clone(shared.types), typeOrder: slices.Clone(shared.typeOrder)}
		if w.run([]*ssa.Function{b}, hit) {
			s.Reached = append(s.Reached, name)
			s.Unreached = slices.DeleteFunc(s.Unreached, func(n string) bool { return n == name })
		} else if !slices.Contains(s.Unreached, name) {
			s.Unreached = append(s.Unreached, name)
		}
	}
	return s
}

// A graph is a program's call graph, by Variable Type Analysis
// (golang.org/x/tools/go/callgraph/vta): a call through an interface or
// a function value goes to the methods and functions whose values can
// flow to it, through variables, fields, slices, maps and channels.
type graph struct {
	prog *ssa.Program
	cg   *callgraph.Graph
}

func newGraph(prog *ssa.Program) *graph {
	return &graph{prog: prog, cg: vta.CallGraph(ssautil.AllFunctions(prog), nil)}
}

// A walk is a search of the functions reachable from some roots.
//
// It follows the graph's calls, but for those of package testing into
// code that is not the standard library's: the graph sends each b.Run,
// and each benchmark's body, to every function any benchmark gave it.
// Instead, a function or closure whose value is made in reachable code is
// reachable (given to b.Run, or made an interface value that the runtime,
// as a finalizer, or reflection may call where the graph sees no call);
// and a function value given to package testing that was not made there
// (one read from a table) may be any function of its type whose value the
// shared roots made (Options: the inits and TestMain).
//
// Reflection turns a value back into an interface (reflect.Value's
// Interface) and calls its methods where the graph sees no value flow:
// json.Marshal calls a field's MarshalJSON, fmt a field's String. So once
// a walk comes to reflect.Value.Interface, every method of every type of
// the module that reachable code made into an interface value, or that
// such a type holds (a field, an element, what a pointer points to), is
// reachable.
type walk struct {
	g      *graph
	prefix string
	seen   map[*ssa.Function]bool
	made   []*ssa.Function // the function values made in the shared roots' reach

	reflecting bool                // reflect.Value.Interface was reached
	types      map[types.Type]bool // the module's types made into interface values, and those they hold
	typeOrder  []types.Type        // the same, in the order found
}

// run walks from roots, and reports whether it came to a function for
// which hit is true.
func (w *walk) run(roots []*ssa.Function, hit func(*ssa.Function) bool) bool {
	work := slices.Clone(roots)
	var ops []*ssa.Value
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		if fn == nil || w.seen[fn] {
			continue
		}
		w.seen[fn] = true
		if hit(fn) {
			return true
		}
		if !w.reflecting && isValueInterface(fn) {
			w.reflecting = true
			for _, t := range w.typeOrder {
				work = w.methods(work, t)
			}
		}
		fromTesting := fn.Pkg != nil && fn.Pkg.Pkg.Path() == "testing"
		if n := w.g.cg.Nodes[fn]; n != nil {
			for _, e := range n.Out {
				if fromTesting && !std(e.Callee.Func, w.prefix) {
					continue
				}
				work = append(work, e.Callee.Func)
			}
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				var callee *ssa.Function
				if c, ok := instr.(ssa.CallInstruction); ok {
					callee = c.Common().StaticCallee()
				}
				toTesting := callee != nil && callee.Pkg != nil && callee.Pkg.Pkg.Path() == "testing"
				if mi, ok := instr.(*ssa.MakeInterface); ok {
					for _, t := range w.held(mi.X.Type()) {
						if w.reflecting {
							work = w.methods(work, t)
						}
					}
				}
				ops = instr.Operands(ops[:0])
				for _, op := range ops {
					if op == nil || *op == nil {
						continue
					}
					_, toIface := instr.(*ssa.MakeInterface)
					switch v := (*op).(type) {
					case *ssa.Function:
						if !isCallValue(instr, op) && (w.made != nil || toIface) {
							work = append(work, v)
						}
					case *ssa.MakeClosure:
						if w.made != nil || toIface {
							work = append(work, v.Fn.(*ssa.Function))
						}
					default:
						if sig, ok := v.Type().Underlying().(*types.Signature); ok && toTesting && w.made != nil {
							for _, m := range w.made {
								if types.Identical(m.Signature, sig) {
									work = append(work, m)
								}
							}
						}
					}
				}
			}
		}
	}
	return false
}

// held records t and the types it holds, of the module's, and returns
// those not recorded before.
func (w *walk) held(t types.Type) []types.Type {
	if w.types == nil {
		w.types = map[types.Type]bool{}
	}
	var found []types.Type
	var visit func(t types.Type)
	visit = func(t types.Type) {
		switch t := t.(type) {
		case *types.Alias:
			visit(types.Unalias(t))
		case *types.Named:
			if w.types[t] || hasTypeParams(t) {
				return
			}
			pkg := t.Obj().Pkg()
			if pkg == nil || !inModulePath(pkg.Path(), w.prefix) {
				return // another module's: its methods are not the change's
			}
			w.types[t] = true
			w.typeOrder = append(w.typeOrder, t)
			found = append(found, t)
			visit(t.Underlying())
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.Struct:
			for i := range t.NumFields() {
				visit(t.Field(i).Type())
			}
		}
	}
	visit(t)
	return found
}

// methods adds to work the methods of t and of *t.
func (w *walk) methods(work []*ssa.Function, t types.Type) []*ssa.Function {
	if types.IsInterface(t) {
		return work
	}
	for _, t := range []types.Type{t, types.NewPointer(t)} {
		ms := w.g.prog.MethodSets.MethodSet(t)
		for i := range ms.Len() {
			if fn := w.g.prog.MethodValue(ms.At(i)); fn != nil {
				work = append(work, fn)
			}
		}
	}
	return work
}

// hasTypeParams reports whether t is a generic type not instantiated,
// or an instance with a type parameter among its arguments: a type no
// value has.
func hasTypeParams(t *types.Named) bool {
	if t.TypeParams().Len() > 0 && t.TypeArgs().Len() == 0 {
		return true
	}
	for i := range t.TypeArgs().Len() {
		if _, ok := t.TypeArgs().At(i).(*types.TypeParam); ok {
			return true
		}
	}
	return false
}

// isValueInterface reports whether fn is reflect.Value's Interface.
func isValueInterface(fn *ssa.Function) bool {
	if fn.Pkg == nil || fn.Pkg.Pkg.Path() != "reflect" || fn.Name() != "Interface" {
		return false
	}
	r := fn.Signature.Recv()
	if r == nil {
		return false
	}
	n, ok := types.Unalias(r.Type()).(*types.Named)
	return ok && n.Obj().Name() == "Value"
}

// madeValues returns the functions whose value is made in the functions
// seen so far.
func (w *walk) madeValues() []*ssa.Function {
	made := []*ssa.Function{}
	var ops []*ssa.Value
	for fn := range w.seen {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				ops = instr.Operands(ops[:0])
				for _, op := range ops {
					if op == nil || *op == nil {
						continue
					}
					switch v := (*op).(type) {
					case *ssa.Function:
						if !isCallValue(instr, op) {
							made = append(made, v)
						}
					case *ssa.MakeClosure:
						made = append(made, v.Fn.(*ssa.Function))
					}
				}
			}
		}
	}
	return made
}

// std reports whether fn is of the standard library: of a package whose
// path's first element has no dot, not of the module at prefix.
func std(fn *ssa.Function, prefix string) bool {
	if fn.Pkg == nil {
		return true // a wrapper, an instance: its callees are checked
	}
	p := fn.Pkg.Pkg.Path()
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && !inModule(fn, prefix)
}

// isCallValue reports whether op is the function instr calls.
func isCallValue(instr ssa.Instruction, op *ssa.Value) bool {
	c, ok := instr.(ssa.CallInstruction)
	return ok && op == &c.Common().Value
}

// callsByReflection reports whether fn is one of reflect's ways to call
// a function or method, which the call graph does not follow: a benchmark
// that reaches one may run any code.
func callsByReflection(fn *ssa.Function) bool {
	if fn.Pkg == nil || fn.Pkg.Pkg.Path() != "reflect" || fn.Signature.Recv() == nil {
		return false
	}
	switch fn.Name() {
	case "Call", "CallSlice", "Method", "MethodByName":
		return true
	}
	return false
}

// isBenchmark reports whether fn is a benchmark function: Benchmark, then
// nothing or a character that is not lower case, taking a *testing.B.
func isBenchmark(fn *ssa.Function) bool {
	name := fn.Name()
	if !strings.HasPrefix(name, "Benchmark") || fn.Signature.Recv() != nil || fn.TypeParams().Len() > 0 {
		return false
	}
	if rest := name[len("Benchmark"):]; rest != "" && strings.ToLower(rest[:1]) == rest[:1] && strings.ToUpper(rest[:1]) != rest[:1] {
		return false
	}
	return takes(fn, "B")
}

// takes reports whether fn takes one *testing.T-like argument, a pointer
// to testing's type called name, and returns nothing.
func takes(fn *ssa.Function, name string) bool {
	sig := fn.Signature
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	ptr, ok := sig.Params().At(0).Type().(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(ptr.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "testing" && n.Obj().Name() == name
}

// funcKey returns the Key of the function or method whose code fn is:
// a closure's is its enclosing function's, an instance's its generic
// function's; "" for code the compiler made (wrappers, package inits).
func funcKey(fn *ssa.Function) string {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Pkg() == nil {
		return ""
	}
	recv := ""
	if r := obj.Signature().Recv(); r != nil {
		t := r.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			recv = t.Obj().Name()
		default:
			return "" // an interface's method: no code
		}
	}
	return Key(obj.Pkg().Path(), recv, obj.Name())
}

// methodKey returns the key that Diff gives a changed method by its name
// alone ("m/a.*.M"), for a receiver Diff may know by an alias; "" for a
// function.
func methodKey(fn *ssa.Function) string {
	k := funcKey(fn)
	if k == "" {
		return ""
	}
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, _ := fn.Object().(*types.Func)
	if obj == nil || obj.Signature().Recv() == nil {
		return ""
	}
	return obj.Pkg().Path() + ".*." + obj.Name()
}

// inModule reports whether fn is of a package of the module at prefix.
func inModule(fn *ssa.Function, prefix string) bool {
	return fn.Pkg != nil && inModulePath(fn.Pkg.Pkg.Path(), prefix)
}

func inModulePath(p, prefix string) bool {
	return prefix != "" && (p == prefix || strings.HasPrefix(p, prefix+"/") || p == prefix+"_test")
}

// usesCgo reports whether one of the Go files imports "C".
func usesCgo(files []string) bool {
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return true
		}
		for _, cg := range file.Comments {
			for _, cm := range cg.List {
				if (strings.HasPrefix(cm.Text, "//go:build") || strings.HasPrefix(cm.Text, "// +build")) && strings.Contains(cm.Text, "cgo") {
					return true
				}
			}
		}
		for _, imp := range file.Imports {
			if imp.Path.Value == `"C"` {
				return true
			}
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
