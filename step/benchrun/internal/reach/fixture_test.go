package reach

// fixture is the module of TestCorpusFixture: package a, its benchmarks,
// and the package internal/b it imports.
var fixture = map[string]string{
	"go.mod": "module example.com/fixture\n\ngo 1.26\n",
	"internal/b/b.go": `package b

// Work does n units of work.
func Work(n int) int {
	s := 0
	for i := range n {
		s += i * i
	}
	return s
}

// A Counter counts, behind an interface a uses.
type Counter struct{ n int }

func (c *Counter) Add(k int) { c.n += scale(k) }
func (c *Counter) N() int    { return c.n }

func scale(k int) int { return 2 * k }
`,
	"a/a.go": `package a

import (
	"runtime"
	"sort"
	"sync"

	"example.com/fixture/internal/b"
)

func A() int { return b.Work(100) }

// Shape is an interface; Square's Area is reached only through it.
type Shape interface{ Area() int }

type Square struct{ Side int }

func (s Square) Area() int { return s.Side * s.Side }

type Circle struct{ R int }

func (c Circle) Area() int { return 3 * c.R * c.R }

// Adder is what b.Counter is to a.
type Adder interface {
	Add(int)
	N() int
}

func NewAdder() Adder { return new(b.Counter) }

// Hidden is called only by reflection.
type T struct{ x int }

func (t T) Hidden() int { return t.x + hiddenHelper() }

func hiddenHelper() int { return 7 }

func (t T) Double(k int) int { return 2 * k * (t.x + 1) }

// table is set at init.
var table = initTable()

func initTable() []int {
	t := make([]int, 16)
	for i := range t {
		t[i] = i * i
	}
	return t
}

func Table(i int) int { return table[i%len(table)] }

// Max is generic.
func Max[E int | float64](xs []E) E {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func Sorted(xs []int) []int {
	sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) })
	return xs
}

func less(a, b int) bool { return a < b }

var (
	once  sync.Once
	ready int
)

func setup() { ready = 42 }

func Ready() int {
	once.Do(setup)
	return ready
}

func Spawn() int {
	ch := make(chan int)
	go worker(ch)
	return <-ch
}

func worker(ch chan int) { ch <- b.Work(10) }

type res struct{ buf []byte }

func finalize(r *res) { r.buf = nil }

func Finalized() {
	r := &res{buf: make([]byte, 64)}
	runtime.SetFinalizer(r, finalize)
}

// Money marshals itself; json finds its method by reflection, inside
// an Order.
type Money int

func (m Money) MarshalJSON() ([]byte, error) { return []byte(cents(m)), nil }

func cents(m Money) string { return "1" }

type Order struct{ Price Money }

// Label prints itself; fmt finds its method by reflection, inside a Box.
type Label int

func (l Label) String() string { return "label" }

type Box struct{ L Label }

// Point's method is declared on an alias of it.
type Point struct{ X int }

type PointAlias = Point

func (p PointAlias) Norm() int { return p.X * p.X }

// Inside and Outside are what the two BenchmarkDup run: one in the
// package's tests, one in its external test package.
func Inside() int  { return 1 }
func Outside() int { return 2 }

// Lonely calls nothing else of the module.
func Lonely(k int) int { return k + 1 }

// Unused is reached by no benchmark.
func Unused() int { return b.Work(1) }
`,
	"a/a_test.go": `package a

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

var sink int

func BenchmarkDirect(b *testing.B) {
	for range b.N {
		sink += A()
	}
}

func BenchmarkIface(b *testing.B) {
	shapes := []Shape{Square{3}}
	for range b.N {
		for _, s := range shapes {
			sink += s.Area()
		}
	}
}

func BenchmarkCounter(b *testing.B) {
	c := NewAdder()
	for range b.N {
		c.Add(1)
	}
	sink += c.N()
}

func BenchmarkReflect(b *testing.B) {
	v := reflect.ValueOf(T{1}).MethodByName("Hidden")
	for range b.N {
		sink += int(v.Call(nil)[0].Int())
	}
}

// cases is a table of closures made at init and given to b.Run.
var cases = []struct {
	name string
	fn   func(*testing.B)
}{
	{"square", func(b *testing.B) {
		for range b.N {
			sink += Square{2}.Area()
		}
	}},
	{"lonely", benchLonely},
}

func benchLonely(b *testing.B) {
	for range b.N {
		sink += Lonely(1)
	}
}

func BenchmarkTable(b *testing.B) {
	for _, c := range cases {
		b.Run(c.name, c.fn)
	}
}

func BenchmarkSub(b *testing.B) {
	b.Run("circle", func(b *testing.B) {
		for range b.N {
			sink += Circle{1}.Area()
		}
	})
}

func BenchmarkMethodValue(b *testing.B) {
	f := T{2}.Double
	for range b.N {
		sink += f(3)
	}
}

func BenchmarkGeneric(b *testing.B) {
	xs := []int{3, 1, 2}
	for range b.N {
		sink += Max(xs)
	}
}

func BenchmarkSort(b *testing.B) {
	for range b.N {
		sink += Sorted([]int{3, 1, 2})[0]
	}
}

func BenchmarkOnce(b *testing.B) {
	for range b.N {
		sink += Ready()
	}
}

func BenchmarkGoroutine(b *testing.B) {
	for range b.N {
		sink += Spawn()
	}
}

func BenchmarkFinalizer(b *testing.B) {
	for range b.N {
		Finalized()
	}
	runtime.GC()
	runtime.GC()
}

func BenchmarkInitTable(b *testing.B) {
	for i := range b.N {
		sink += Table(i)
	}
}

func BenchmarkJSON(b *testing.B) {
	for range b.N {
		out, _ := json.Marshal(Order{Price: 3})
		sink += len(out)
	}
}

func BenchmarkPrint(b *testing.B) {
	for range b.N {
		sink += len(fmt.Sprint(Box{L: 1}))
	}
}

func BenchmarkAlias(b *testing.B) {
	for range b.N {
		sink += Point{3}.Norm()
	}
}

func BenchmarkDup(b *testing.B) {
	for range b.N {
		sink += Inside()
	}
}

func BenchmarkLonely(b *testing.B) {
	for range b.N {
		sink += Lonely(2)
	}
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = Lonely(3)
		}
	})
}
`,
	"a/x_test.go": `package a_test

import (
	"testing"

	"example.com/fixture/a"
)

var sink int

// BenchmarkDup has a namesake in package a's own tests: go test runs
// both, and a change to either's code selects the name.
func BenchmarkDup(b *testing.B) {
	for range b.N {
		sink += a.Outside()
	}
}
`,
}
