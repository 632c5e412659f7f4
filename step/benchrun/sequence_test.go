package benchrun

import (
	"context"
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
		{"X/[a/b]/(c/d)", []string{"X.Y", "Z"}, `^Benchmark(X\.Y|Z)$/[a/b]/(c/d)`},
		{`A\/B/c`, []string{"A"}, "^Benchmark(A)$/c"},
	} {
		if got := narrow(tt.bench, tt.names); got != tt.want {
			t.Errorf("narrow(%q, %q) = %q, want %q", tt.bench, tt.names, got, tt.want)
		}
	}
	if got := splitLevels("a/[/]/(b/c)/d"); !slices.Equal(got, []string{"a", "[/]", "(b/c)", "d"}) {
		t.Errorf("splitLevels = %q", got)
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
	r.Run = &RunInfo{Count: 30, Looks: verdict.Looks(5, 30), Margin: 0.02, Order: Interleaved}
	hi := func(x float64) *float64 { return &x }
	decisions := map[string]*Decision{
		"ReadInts-2":  {Verdict: Same, Ratio: 1.004, Lo: 0.991, Hi: hi(1.012), Level: 0.9917, Margin: 0.02, Look: 2, Detectable: hi(0.011)},
		"WriteInts-2": {Verdict: Faster, Ratio: 0.663, Lo: 0.65, Hi: hi(0.68), Level: 0.9917, Margin: 0.02, Look: 1, Detectable: hi(0.02)},
		"Uint64-2":    {Verdict: Undecided, Ratio: 0.99, Lo: 0.9, Hi: hi(1.1), Level: 0.9917, Margin: 0.02, Look: 6, Detectable: hi(0.094)},
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
			"-count auto: each benchmark ran until its time was decided, 5 to 30 runs a side (figures are medians of 10); faster or slower: its 99.2% interval excludes no change; same: within ±2%; undecided: not enough runs to tell.",
		}},
		{Markdown, []string{
			"each benchmark run until decided, up to 30 runs each, interleaved.",
			"| ReadInts-2 | 1832 ± 3% | 1849 ± 1% | same within ±2% (n=10) |",
			"| WriteInts-2 | 4181 ± 2% | 2774 ± 2% | faster: -33.7% [-35.0%, -32.0%] (n=10) |",
			"| Uint64-2 | 21.4 ± 2% | 21.2 ± 1% | not enough runs to tell: too noisy here to tell 2% (it would take 9%) (n=10) |",
		}},
		{Gerrit, []string{"same within ±2% (n=10)", "faster: -33.7% [-35.0%, -32.0%] (n=10)"}},
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
