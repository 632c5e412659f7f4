package benchrun

import (
	"context"
	"strings"
	"testing"
)

// strayTestGo has benchmarks that print to stdout, report a NaN, skip
// themselves or exit without a result: without -test.v=test2json the
// first two lost their result lines and the last two left no trace.
const strayTestGo = `package stray

import (
	"fmt"
	"math"
	"os"
	"testing"
)

func BenchmarkPrint(b *testing.B) {
	for range b.N {
		fmt.Print("hello")
	}
}

func BenchmarkPrintln(b *testing.B) {
	fmt.Println("a line")
	for range b.N {
	}
}

func BenchmarkNaN(b *testing.B) {
	for range b.N {
	}
	b.ReportMetric(math.NaN(), "x/op")
}

func BenchmarkSkip(b *testing.B) {
	b.Skip("no network")
}

func BenchmarkSub(b *testing.B) {
	b.Run("a", func(b *testing.B) {})
}

func BenchmarkZExit(b *testing.B) {
	os.Exit(0)
}
`

// Every benchmark that ran is in the result: in the tables, or listed as
// omitted with the reason.
func TestRunStrayOutput(t *testing.T) {
	r := newTestRepo(t)
	r.commit("stray: add", "stray/stray.go", "package stray\n", "stray/stray_test.go", strayTestGo)
	r.commit("stray: touch", "stray/stray.go", "package stray\n\nimport \"os\"\n\n// Args changes the test binary.\nvar Args = len(os.Args)\n")
	o := quick(r.dir)
	o.Count, o.Benchtime, o.CPU = 2, "100x", "2"
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Errorf("failures: %+v", res.Failures[0])
	}
	for _, name := range []string{"Print-2", "Println-2", "NaN-2", "Sub/a-2"} {
		if row := findRow(t, res, "sec/op", name); row.Compare == nil || row.Compare.N1 != 2 || row.Compare.N2 != 2 {
			t.Errorf("%s: %+v, want 2 runs a side compared", name, row.Compare)
		}
	}
	var got []string
	for _, om := range res.Omitted {
		got = append(got, om.String())
	}
	want := []string{
		"(old) example.com/bench/stray Skip: skipped: stray_test.go:29: no network (2 runs)",
		"(old) example.com/bench/stray ZExit: ran, but printed no result line (2 runs)",
		"(new) example.com/bench/stray Skip: skipped: stray_test.go:29: no network (2 runs)",
		"(new) example.com/bench/stray ZExit: ran, but printed no result line (2 runs)",
		"(old) example.com/bench/stray NaN-2: NaN x/op is not a finite number (old.txt:8, 2 lines)",
		"(new) example.com/bench/stray NaN-2: NaN x/op is not a finite number (new.txt:8, 2 lines)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("omitted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The output of a test binary, as -test.v=test2json frames it, read whole
// and byte by byte.
func TestRunReader(t *testing.T) {
	const run = "\x16=== RUN   "
	huge := strings.Repeat("hello", 100_000) // a line of 500 kB
	tests := []struct {
		name    string
		out     string
		results []string
		omitted []string // Benchmark: Reason
		failed  bool
		excerpt string
	}{
		{"plain", "goos: linux\n" + run + "BenchmarkX\nBenchmarkX\nBenchmarkX-2 \t 100\t 5 ns/op\n\x16=== NAME  \n\x16PASS\n",
			[]string{"goos: linux", "BenchmarkX-2 \t 100\t 5 ns/op"}, nil, false, "BenchmarkX\nPASS"},
		{"output glued in front", run + "BenchmarkX\nBenchmarkX\nhelloBenchmarkX says hiBenchmarkX-2\t100\t5 ns/op\n",
			[]string{"BenchmarkX-2\t100\t5 ns/op"}, nil, false, "BenchmarkX"},
		{"output ended by a marker", run + "BenchmarkX\nBenchmarkX\nhello" + run + "BenchmarkY\nBenchmarkY\t1\t2 ns/op\n",
			[]string{"BenchmarkY\t1\t2 ns/op"}, []string{"X: ran, but printed no result line"}, false, "BenchmarkX\nhello"},
		{"huge line", run + "BenchmarkX\nBenchmarkX\n" + huge + "BenchmarkX-2\t100\t5 ns/op\n" + huge + "\n",
			[]string{"BenchmarkX-2\t100\t5 ns/op"}, nil, false, "BenchmarkX\n" + huge[:headLen] + "…"},
		{"huge last line", run + "BenchmarkX\n" + huge + "BenchmarkX-2\t100\t5 ns/op",
			[]string{"BenchmarkX-2\t100\t5 ns/op"}, nil, false, ""},
		{"no result line", run + "BenchmarkX\nBenchmarkX\nBenchmarkX-2 \thello\n100 5 ns/op\n",
			nil, []string{"X: ran, but printed no result line"}, false, "BenchmarkX\nBenchmarkX-2 \thello\n100 5 ns/op"},
		{"a result of a benchmark that did not run", run + "BenchmarkX\nBenchmarkY-2\t1\t2 ns/op\n",
			nil, []string{"X: ran, but printed no result line"}, false, "BenchmarkY-2\t1\t2 ns/op"},
		{"skipped", run + "BenchmarkX\nBenchmarkX\n    x_test.go:5: no network\n\x16--- SKIP: BenchmarkX\n",
			nil, []string{"X: skipped: x_test.go:5: no network"}, false, "BenchmarkX\n    x_test.go:5: no network\n--- SKIP: BenchmarkX"},
		{"sub-benchmarks and -cpu", run + "BenchmarkX\nBenchmarkX\n" + run + "BenchmarkX/n=1-5\nBenchmarkX/n=1-5\nBenchmarkX/n=1-5\t1\t2 ns/op\nBenchmarkX/n=1-5-4\t1\t2 ns/op\n",
			[]string{"BenchmarkX/n=1-5\t1\t2 ns/op", "BenchmarkX/n=1-5-4\t1\t2 ns/op"}, nil, false, "BenchmarkX\nBenchmarkX/n=1-5"},
		{"failed", run + "BenchmarkX\nBenchmarkX\n    x_test.go:9: boom\n\x16--- FAIL: BenchmarkX\n\x16FAIL\n\n\n",
			nil, nil, true, "BenchmarkX\n    x_test.go:9: boom\n--- FAIL: BenchmarkX\nFAIL"},
		{"CRLF and Unit lines", "pkg: example.com/m\r\n" + run + "BenchmarkX\r\nUnit x/op better=higher\r\nBenchmarkX\t1\t2 x/op\r\n",
			[]string{"pkg: example.com/m", "Unit x/op better=higher", "BenchmarkX\t1\t2 x/op"}, nil, false, ""},
	}
	for _, tt := range tests {
		for _, chunk := range []int{len(tt.out), 1, 7} {
			r := newRunReader()
			for s := tt.out; len(s) > 0; {
				n := min(chunk, len(s))
				r.Write([]byte(s[:n]))
				s = s[n:]
			}
			r.Close()
			if strings.Join(r.results, "\n") != strings.Join(tt.results, "\n") {
				t.Errorf("%s, in writes of %d: results\n%q\nwant\n%q", tt.name, chunk, r.results, tt.results)
			}
			var omitted []string
			for _, o := range r.omissions(false) {
				omitted = append(omitted, o.Benchmark+": "+o.Reason)
			}
			if strings.Join(omitted, "\n") != strings.Join(tt.omitted, "\n") {
				t.Errorf("%s, in writes of %d: omitted %q, want %q", tt.name, chunk, omitted, tt.omitted)
			}
			if r.failed != tt.failed {
				t.Errorf("%s, in writes of %d: failed = %v", tt.name, chunk, r.failed)
			}
			if got := r.ex.String(); got != tt.excerpt {
				t.Errorf("%s, in writes of %d: excerpt\n%q\nwant\n%q", tt.name, chunk, truncate(got, 300), truncate(tt.excerpt, 300))
			}
			if c := cap(r.line); c > 3*maxLine {
				t.Errorf("%s: line buffer grew to %d bytes", tt.name, c)
			}
		}
	}
}
