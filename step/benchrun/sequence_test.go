package benchrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/verdict"
)

// TestNarrow checks the -test.bench of a sequential comparison's next
// round: its first level the undecided functions, the rest as given.
func TestNarrow(t *testing.T) {
	for _, tt := range []struct {
		bench string
		names []string
		want  string
	}{
		{".", []string{"Sum"}, "^Benchmark(Sum)$"},
		{"^Benchmark(Read|Write)Ints$/^impl=codec$", []string{"ReadInts"}, "^Benchmark(ReadInts)$/^impl=codec$"},
		{"X/[a/b]/(c/d)", []string{"X.Y", "Z"}, `^Benchmark(X\.Y)$/[a/b]/(c/d)`},
		{`A\/B/c`, []string{"A"}, ""}, // no name of a function holds a slash
		{"Sum/[", []string{"Sum", "Other"}, "^Benchmark(Sum)$/["},
		// Alternatives are matched apart, each keeping its levels.
		{"Read/x|Write/y", []string{"ReadInts", "WriteInts"}, "^Benchmark(ReadInts)$/x|^Benchmark(WriteInts)$/y"},
		{"Read/x|Write/y", []string{"WriteInts"}, "^Benchmark(WriteInts)$/y"},
		{"(Read|Write)/x", []string{"WriteInts"}, "^Benchmark(WriteInts)$/x"},
		{"Read", []string{"WriteInts"}, ""},
	} {
		if got := narrow(tt.bench, tt.names); got != tt.want {
			t.Errorf("narrow(%q, %q) = %q, want %q", tt.bench, tt.names, got, tt.want)
		}
	}
	for _, tt := range []struct {
		re   string
		want [][]string
	}{
		{"a/[/]/(b/c)/d", [][]string{{"a", "[/]", "(b/c)", "d"}}},
		{"a|b/c", [][]string{{"a"}, {"b", "c"}}},
		{"(a|b)/[|]|c", [][]string{{"(a|b)", "[|]"}, {"c"}}},
		{`a\|b`, [][]string{{`a\|b`}}},
	} {
		if got := splitBench(tt.re); !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("splitBench(%q) = %q, want %q", tt.re, got, tt.want)
		}
	}
}

// TestRowsPattern checks the -test.bench of a round that runs only the
// rows still undecided: a function with all its rows left runs as asked,
// one with some decided runs only the others, anchored at each level.
func TestRowsPattern(t *testing.T) {
	all := []string{"Sum64/4B-2", "Sum64/100B-2", "Sum64/1KB-2", "Write-2", "Deep/a/x-2", "Deep/a/y-2", "Deep/b/x-2", "Odd.Name/[x]-2"}
	for _, tt := range []struct {
		bench string
		left  []string
		want  string
	}{
		{".", []string{"Write-2"}, "^Benchmark(Write)$"},
		{".", []string{"Sum64/4B-2", "Sum64/1KB-2"}, `^BenchmarkSum64$/^(4B|1KB)(-[0-9]+)?$`},
		{"./100B", []string{"Sum64/100B-2"}, "^Benchmark(Sum64)$/100B"}, // every row of Sum64 that ran
		{".", []string{"Deep/a/y-2", "Deep/b/x-2", "Write-2"}, `^Benchmark(Write)$|^BenchmarkDeep$/^a$/^(y)(-[0-9]+)?$|^BenchmarkDeep$/^b$/^(x)(-[0-9]+)?$`},
		{".", []string{"Odd.Name/[x]-2"}, `^Benchmark(Odd\.Name)$`},
	} {
		seen := all
		if tt.bench == "./100B" {
			seen = []string{"Sum64/100B-2"}
		}
		if got := rowsPattern(tt.bench, tt.left, seen); got != tt.want {
			t.Errorf("rowsPattern(%q, %q) = %q, want %q", tt.bench, tt.left, got, tt.want)
		}
	}
	if got := trimProcs("Sum64/4B-2"); got != "Sum64/4B" {
		t.Errorf("trimProcs = %q", got)
	}
	if got := trimProcs("Sum64/4B"); got != "Sum64/4B" {
		t.Errorf("trimProcs = %q", got)
	}
}

// TestRunAuto runs a sequential comparison on a real repository: Sum,
// a hundredfold faster, is decided after the first round and not run
// again; Alloc, unchanged, runs on until it is decided. Every time row
// says its verdict, and its significance follows it.
func TestRunAuto(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	plan := &verdict.Plan{Looks: []int{5, 10, 15}, Alpha: 0.05, Margin: 0.02}
	res, err := Run(context.Background(), Options{Dir: r.dir, Benchtime: "200x", Plan: plan, Packages: []string{"./sum"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Run.Looks, plan.Looks) || res.Run.Count != 15 || res.Run.Margin != 0.02 {
		t.Errorf("run info: looks %v, count %d, margin %v", res.Run.Looks, res.Run.Count, res.Run.Margin)
	}
	sum := findRow(t, res, "sec/op", "Sum")
	d := sum.Compare.Decision
	if d == nil {
		t.Fatal("Sum has no decision")
	}
	// A hundred times faster: the five runs a side of the first look
	// cannot overlap (see TestRun on the gap between the two sides).
	if d.Verdict != Faster || d.Look != 1 || sum.Old.N != 5 || sum.New.N != 5 {
		t.Errorf("Sum: %s at look %d with %d+%d runs, want faster at look 1 with 5+5", d.Verdict, d.Look, sum.Old.N, sum.New.N)
	}
	if !sum.Compare.Significant || sum.Compare.Verdict != Faster {
		t.Errorf("Sum: significant %v, verdict %s; want the decision's", sum.Compare.Significant, sum.Compare.Verdict)
	}
	if tp := findRow(t, res, "B/s", "Sum").Compare.Decision; tp == nil || tp.Verdict != Faster || !(tp.Ratio > 1) {
		t.Errorf("Sum's throughput: %+v, want faster with a ratio above 1", tp)
	}
	alloc := findRow(t, res, "sec/op", "Alloc")
	ad := alloc.Compare.Decision
	if ad == nil {
		t.Fatal("Alloc has no decision")
	}
	// Alloc ran as long as it was undecided: to its look's runs.
	if want := plan.Looks[ad.Look-1]; alloc.Old.N != want || alloc.New.N != want {
		t.Errorf("Alloc: %s at look %d with %d+%d runs, want %d a side", ad.Verdict, ad.Look, alloc.Old.N, alloc.New.N, want)
	}
	if !slices.Contains([]string{Same, Undecided, Faster, Slower}, ad.Verdict) {
		t.Errorf("Alloc's verdict %q", ad.Verdict)
	}
	if a := findRow(t, res, "allocs/op", "Alloc").Compare; a.Decision != nil {
		t.Errorf("allocations got a decision: %+v; only time and throughput rows have one", a.Decision)
	}
}

// autoResult is a result of -count auto as Run makes it, for the
// formats: one benchmark faster at the first look, one the same, one
// undecided at the cap, too noisy to tell 2%.
func autoResult(t *testing.T) *Result {
	t.Helper()
	r, err := CompareFiles("testdata/codec-old.txt", "testdata/codec-new.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Run = &RunInfo{Count: 30, Looks: verdict.Looks(5, 30), Margin: 0.02, MarginMax: 0.05, Order: Interleaved}
	hi := func(x float64) *float64 { return &x }
	decisions := map[string]*Decision{
		"ReadInts-2":  {Verdict: Same, Ratio: 1.004, Lo: 0.991, Hi: hi(1.012), Level: 0.9917, Margin: 0.02, Bound: 0.015, Paired: true, Look: 2, Detectable: hi(0.011)},
		"WriteInts-2": {Verdict: Faster, Ratio: 0.663, Lo: 0.65, Hi: hi(0.68), Level: 0.9917, Margin: 0.02, Bound: 0.35, Look: 1, Detectable: hi(0.02)},
		"Uint64-2":    {Verdict: Undecided, Ratio: 0.99, Lo: 0.9, Hi: hi(1.1), Level: 0.9917, Margin: 0.02, Bound: 0.1, Look: 6, Detectable: hi(0.094)},
	}
	for _, tab := range r.Tables {
		if tab.Unit != "sec/op" {
			continue
		}
		for _, row := range tab.Rows {
			d := decisions[row.Name]
			if d == nil {
				t.Fatalf("no decision for %s", row.Name)
			}
			row.Compare.Decision = d
			row.Compare.Significant = d.Verdict == Faster || d.Verdict == Slower
		}
	}
	return r
}

// TestAutoFormats checks what a reviewer reads of a sequential
// comparison: each time row's verdict in words, with its runs, and the
// key that says what the words mean; and that JSON carries it all.
func TestAutoFormats(t *testing.T) {
	r := autoResult(t)
	for _, tt := range []struct {
		f    Format
		want []string
	}{
		{Benchcmp, []string{
			"BenchmarkReadInts-2      1832          1849          +0.93% same",
			"BenchmarkWriteInts-2     4181          2774          -33.66% faster",
			"BenchmarkUint64-2        21.4          21.2          -0.70% undecided",
			"-count auto: each benchmark ran until its time was decided, 5 to 30 runs a side (figures are medians of 10); faster or slower: its 99.2% interval excludes no change; same within ±X: the interval lies within ±X (at most ±5%); undecided: too noisy here to bound within ±5%.",
		}},
		{Markdown, []string{
			"each benchmark run until decided, up to 30 runs each, interleaved.",
			"| ReadInts-2 | 1832 ± 3% | 1849 ± 1% | same within ±1.5% (n=10, paired) |",
			"| WriteInts-2 | 4181 ± 2% | 2774 ± 2% | faster: -33.7% [-35.0%, -32.0%] (n=10) |",
			"| Uint64-2 | 21.4 ± 2% | 21.2 ± 1% | too noisy here to bound below ±10% (n=10) |",
		}},
		{Gerrit, []string{"same within ±1.5% (n=10, paired)", "faster: -33.7% [-35.0%, -32.0%] (n=10)"}},
	} {
		out := r.String(tt.f)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s output has no %q:\n%s", tt.f, w, out)
			}
		}
	}
	back, err := DecodeJSON([]byte(r.String(JSON)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Formats {
		if got, want := back.String(f), r.String(f); got != want {
			t.Errorf("%s after a JSON round trip:\n%s\nwant:\n%s", f, got, want)
		}
	}
	// A decision JSON cannot hold is refused.
	js := r.String(JSON)
	i := strings.Index(js, `"decision": {`)
	bad := js[:i] + strings.Replace(js[i:], `"verdict": "undecided"`, `"verdict": "probably"`, 1)
	if _, err := DecodeJSON([]byte(bad)); err == nil || !strings.Contains(err.Error(), `a decision "probably"`) {
		t.Errorf("a decision with the verdict probably: %v", err)
	}
}

// TestRunAA checks an A/A run: the head against itself, each package's
// test binary built once and run as both sides, and the note that counts
// the false alarms.
func TestRunAA(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	head := r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	var builds int
	var bins [2][]string
	o := quick(r.dir)
	o.AA = true
	o.Base = "nosuch" // ignored: both sides are the head
	o.Runner = RunnerFunc(func(ctx context.Context, c *Command) error {
		switch c.Kind {
		case BuildCommand:
			builds++
		case BenchCommand:
			side := 0
			if c.Side == "new" {
				side = 1
			}
			bins[side] = append(bins[side], c.Path)
		}
		return Direct(ctx, c)
	})
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Commit != head || res.Head.Commit != head || !res.Run.AA {
		t.Errorf("sides %s and %s, aa %v; want the head on both", res.Base.Commit, res.Head.Commit, res.Run.AA)
	}
	if builds != 1 || len(bins[0]) != 4 || len(bins[1]) != 4 || bins[0][0] != bins[1][0] {
		t.Errorf("%d builds, runs %q and %q; want one binary run 4 times a side", builds, bins[0], bins[1])
	}
	if out := res.String(Benchcmp); !strings.Contains(out, "A/A: one binary on both sides, so every change flagged is a false alarm: ") ||
		!strings.Contains(out, " of 2 time rows flagged (") {
		t.Errorf("no A/A note:\n%s", out)
	}
}

// TestRowsPatternRuns gives rowsPattern's regexps to a real test binary:
// it runs exactly the rows named, however the rows' names nest.
func TestRowsPatternRuns(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/rows\n\ngo 1.26\n",
		"rows_test.go": `package rows

import "testing"

func run(b *testing.B, names ...string) {
	for _, n := range names {
		b.Run(n, func(b *testing.B) {})
	}
}

func BenchmarkSum64(b *testing.B) { run(b, "4B", "100B", "1KB") }
func BenchmarkSum64String(b *testing.B) { run(b, "4B", "100B") }
func BenchmarkWrite(b *testing.B) {}
func BenchmarkDeep(b *testing.B) {
	b.Run("a", func(b *testing.B) { run(b, "x", "y") })
	b.Run("b", func(b *testing.B) { run(b, "x", "y") })
}
func BenchmarkOdd(b *testing.B) { run(b, "size=(1)", "size-3", "x|y") }
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "rows.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	ran := func(pattern string) []string {
		out, err := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime=1x", "-test.cpu=2").Output()
		if err != nil {
			t.Fatalf("-test.bench=%s: %v\n%s", pattern, err, out)
		}
		var names []string
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 2 && strings.HasPrefix(f[0], "Benchmark") {
				names = append(names, strings.TrimPrefix(f[0], "Benchmark"))
			}
		}
		slices.Sort(names)
		return names
	}
	all := ran(".")
	if len(all) != 13 {
		t.Fatalf("all rows: %q, want 13", all)
	}
	for _, left := range [][]string{
		{"Sum64/4B-2", "Sum64/1KB-2"},
		{"Sum64/100B-2", "Sum64String/4B-2", "Write-2"},
		{"Deep/a/y-2", "Deep/b/x-2"},
		{"Odd/size=(1)-2", "Odd/size-3-2", "Odd/x|y-2"},
		{"Odd/x|y-2", "Sum64String/100B-2"},
		all,
	} {
		p := rowsPattern(".", left, all)
		if got := ran(p); !slices.Equal(got, slices.Sorted(slices.Values(left))) {
			t.Errorf("rows %q: pattern %q ran %q", left, p, got)
		}
	}
}

// TestRunAutoRows runs a sequential comparison whose rows are
// sub-benchmarks of one function: the row decided at the first look runs
// no more, while its siblings run on. The benchmarks report their own
// ns/op, so that the verdicts are known: changed is twice as slow at
// HEAD, and a and b alternate between 100 and 150 ns/op, process by
// process, on both sides alike (a counter in a file), which no look can
// tell from no change, nor bound within 2%.
func TestRunAutoRows(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "counter")
	src := func(factor int) string {
		return fmt.Sprintf(`package rows

import (
	"os"
	"strconv"
	"testing"
)

var run = next()

func next() int {
	data, _ := os.ReadFile(%q)
	n, _ := strconv.Atoi(string(data))
	os.WriteFile(%[1]q, []byte(strconv.Itoa(n+1)), 0o666)
	return n
}

func BenchmarkRows(b *testing.B) {
	b.Run("changed", func(b *testing.B) {
		for range b.N {
		}
		b.ReportMetric(%d, "ns/op")
	})
	for _, name := range []string{"a", "b"} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
			}
			b.ReportMetric(float64(100+50*(run%%2)), "ns/op")
		})
	}
}
`, counter, 100*factor)
	}
	r := newTestRepo(t)
	r.commit("rows: add", "rows/rows_test.go", src(1))
	r.commit("rows: slower", "rows/rows_test.go", src(2))
	plan := &verdict.Plan{Looks: []int{6, 12}, Alpha: 0.05, Margin: 0.02, NoFutility: true}
	res, err := Run(context.Background(), Options{Dir: r.dir, Benchtime: "10x", Plan: plan, Packages: []string{"./rows"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		row     string
		verdict string
		n       int
	}{
		{"Rows/changed", Slower, 6},
		{"Rows/a", Undecided, 12},
		{"Rows/b", Undecided, 12},
	} {
		row := findRow(t, res, "sec/op", tt.row)
		d := row.Compare.Decision
		if d == nil || d.Verdict != tt.verdict || row.Old.N != tt.n || row.New.N != tt.n {
			t.Errorf("%s: decision %+v with %d+%d runs, want %s with %d a side", tt.row, d, row.Old.N, row.New.N, tt.verdict, tt.n)
		}
	}
}
