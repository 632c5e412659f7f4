package benchrun

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// pairs are the committed result files (testdata/NAME-old.txt and
// NAME-new.txt) the format tests read:
//
//   - example: a real run of the built-in example (docs/bench.md shows it):
//     patchbot bench -bench '^Benchmark(Read|Write)Ints$' -o DIR, count 10;
//   - codec: generated, 10 runs a side, with B/op and allocs/op changes;
//   - mixed: generated, 3 runs a side (too few: warnings), two packages, a
//     custom unit, and benchmarks on one side only.
var pairs = []string{"example", "codec", "mixed"}

// aaPairs are the real A/A runs of docs/design/bench.md: codec against itself,
// count 10, -benchtime 100ms, interleaved and sequential.
var aaPairs = []string{"aa-interleaved", "aa-sequential"}

func compareTestdata(t *testing.T, name string) *Result {
	t.Helper()
	r, err := CompareFiles(filepath.Join("testdata", name+"-old.txt"), filepath.Join("testdata", name+"-new.txt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// benchstat runs the real benchstat (the tool dependency in go.mod) with
// args and returns its output.
func benchstat(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"tool", "benchstat"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("go tool benchstat %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// TestBenchstatAgrees checks the benchstat format against the real
// benchstat on the same files, run plainly, as a user would: the same
// tables, medians, intervals, p-values and warnings, byte for byte. Each
// file records its revision (RevisionKey) where benchstat does not split
// tables by it.
func TestBenchstatAgrees(t *testing.T) {
	for _, name := range append(pairs, aaPairs...) {
		t.Run(name, func(t *testing.T) {
			old, new := filepath.Join("testdata", name+"-old.txt"), filepath.Join("testdata", name+"-new.txt")
			want := benchstat(t, old, new)
			got := compareTestdata(t, name).String(Benchstat)
			if got != want {
				t.Errorf("benchstat format differs from benchstat:\n--- got\n%s--- want (benchstat)\n%s", got, want)
			}
		})
	}
}

// Files written before the revision became a comment record it as a
// configuration line, "revision: HASH". patchbot reads them as it always
// did: the same output in every format, the same recorded commits, and
// the tables benchstat prints with -ignore revision.
func TestLegacyRevisionKey(t *testing.T) {
	dir := t.TempDir()
	for _, name := range pairs {
		t.Run(name, func(t *testing.T) {
			var paths [2]string
			for i, side := range []string{"old", "new"} {
				data, err := os.ReadFile(filepath.Join("testdata", name+"-"+side+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				legacy, ok := bytes.CutPrefix(data, []byte(revisionComment))
				if !ok {
					t.Fatalf("testdata/%s-%s.txt does not begin with %q", name, side, revisionComment)
				}
				paths[i] = filepath.Join(dir, name+"-"+side+".txt")
				if err := os.WriteFile(paths[i], append([]byte(RevisionKey+": "), legacy...), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			got, err := CompareFiles(paths[0], paths[1], nil)
			if err != nil {
				t.Fatal(err)
			}
			want := compareTestdata(t, name)
			if got.Base.Commit == "" || got.Base.Commit != want.Base.Commit || got.Head.Commit != want.Head.Commit {
				t.Errorf("commits = %q, %q; want %q, %q", got.Base.Commit, got.Head.Commit, want.Base.Commit, want.Head.Commit)
			}
			if bs, g := benchstat(t, "-ignore", RevisionKey, paths[0], paths[1]), got.String(Benchstat); bs != g {
				t.Errorf("benchstat -ignore revision on legacy files:\n%s\npatchbot:\n%s", bs, g)
			}
			got.Base.Label, got.Head.Label = want.Base.Label, want.Head.Label
			got.Base.File, got.Head.File = want.Base.File, want.Head.File
			for _, f := range Formats {
				if g, w := got.String(f), want.String(f); g != w {
					t.Errorf("%s: legacy files give\n%s\nwant\n%s", f, g, w)
				}
			}
		})
	}
}

// TestGolden checks every format against testdata/NAME.FORMAT; run with
// -update to rewrite them after a deliberate change.
func TestGolden(t *testing.T) {
	for _, name := range pairs {
		r := compareTestdata(t, name)
		for _, f := range Formats {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				got := r.String(f)
				golden := filepath.Join("testdata", name+"."+string(f))
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", f, golden, got, want)
				}
			})
		}
	}
}

// TestJSONRoundTrip checks that 'patchbot post' can read back what -json
// wrote and render the same tables from it.
func TestJSONRoundTrip(t *testing.T) {
	for _, name := range pairs {
		r := compareTestdata(t, name)
		data := r.String(JSON)
		var back Result
		dec := json.NewDecoder(strings.NewReader(data))
		dec.DisallowUnknownFields() // as 'patchbot post' reads it
		if err := dec.Decode(&back); err != nil {
			t.Fatal(err)
		}
		for _, f := range Formats {
			if got, want := back.String(f), r.String(f); got != want {
				t.Errorf("%s: %s after a JSON round trip:\n%s\nwant:\n%s", name, f, got, want)
			}
		}
	}
}

func TestBenchcmpUnits(t *testing.T) {
	out := compareTestdata(t, "codec").String(Benchcmp)
	for _, want := range []string{
		"benchmark                old ns/op     new ns/op     delta",
		"benchmark                old MB/s     new MB/s     speedup",
		"benchmark                old allocs     new allocs     delta",
		"benchmark                old bytes     new bytes     delta",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("benchcmp output lacks %q:\n%s", want, out)
		}
	}
}

func TestRegressions(t *testing.T) {
	// The codec pair read backwards: the fix undone is a regression of
	// WriteInts in time, speed, bytes and allocations, and of nothing else.
	r, err := CompareFiles("testdata/codec-new.txt", "testdata/codec-old.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		threshold float64
		want      []string
	}{
		{0.05, []string{
			"github.com/patchbot/patchbot/codec WriteInts-2: ns/op +50.73% (p=0.000)",
			"github.com/patchbot/patchbot/codec WriteInts-2: MB/s -33.67% (p=0.000)",
			"github.com/patchbot/patchbot/codec WriteInts-2: bytes +75.00% (p=0.000)",
			"github.com/patchbot/patchbot/codec WriteInts-2: allocs +200.00% (p=0.000)",
		}},
		{0.60, []string{
			"github.com/patchbot/patchbot/codec WriteInts-2: bytes +75.00% (p=0.000)",
			"github.com/patchbot/patchbot/codec WriteInts-2: allocs +200.00% (p=0.000)",
		}},
		{3, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, g := range r.Regressions(tt.threshold) {
			got = append(got, g.String())
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Regressions(%v):\n%s\nwant:\n%s", tt.threshold, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	// Forwards, nothing regressed.
	if g := compareTestdata(t, "codec").Regressions(0); len(g) > 0 {
		t.Errorf("forward comparison has regressions: %v", g)
	}
}

// TestAAFigures pins the false-alarm figures docs/design/bench.md quotes: in an
// A/A comparison every significant row is a false alarm.
func TestAAFigures(t *testing.T) {
	want := map[string]int{"aa-interleaved": 1, "aa-sequential": 6}
	for _, name := range aaPairs {
		r := compareTestdata(t, name)
		rows, flagged := 0, 0
		for _, tb := range r.Tables {
			if tb.Unit != "sec/op" {
				continue
			}
			for _, row := range tb.Rows {
				if row.Compare != nil {
					rows++
					if row.Compare.Significant && row.Compare.Verdict != Same {
						flagged++
					}
				}
			}
		}
		if rows != 28 || flagged != want[name] {
			t.Errorf("%s: %d of %d sec/op rows significant; docs/design/bench.md says %d of 28", name, flagged, rows, want[name])
		}
	}
}

// A benchmark that allocated nothing and now allocates is a regression at
// any threshold, though its relative change has no finite value.
func TestRegressionFromZero(t *testing.T) {
	var old, new strings.Builder
	old.WriteString("pkg: example.com/m\n")
	new.WriteString("pkg: example.com/m\n")
	for i := range 6 {
		fmt.Fprintf(&old, "BenchmarkX-2 1000 %d ns/op 0 B/op 0 allocs/op\n", 100+i)
		fmt.Fprintf(&new, "BenchmarkX-2 1000 %d ns/op 16 B/op 1 allocs/op\n", 100+i)
	}
	r, err := Compare(Input{Label: "old", R: strings.NewReader(old.String())}, Input{Label: "new", R: strings.NewReader(new.String())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range r.Regressions(0.99) {
		got = append(got, g.String())
	}
	want := []string{
		"example.com/m X-2: bytes 0 → 16 (p=0.002)",
		"example.com/m X-2: allocs 0 → 1 (p=0.002)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Regressions(0.99):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A failure's output is indented in the text formats, and a code block
// inside its list item in Markdown, where lines would otherwise be joined.
func TestFailureNotes(t *testing.T) {
	r := compareTestdata(t, "codec")
	r.Failures = []*Failure{{Side: "new", Package: "example.com/m", Runs: 2, Error: "exit status 2", Tail: "panic: boom\n\ngoroutine 1"}}
	for f, want := range map[Format]string{
		Benchcmp: "\nFAIL new example.com/m: exit status 2 (2 of its runs)\n    panic: boom\n    \n    goroutine 1\n",
		Gerrit:   "\nFAIL new example.\u2060com/m: exit status 2 (2 of its runs)\n    panic: boom\n    \n    goroutine 1\n",
		Markdown: "\n- FAIL new example.com/m: exit status 2 (2 of its runs)\n  ```\n  panic: boom\n  \n  goroutine 1\n  ```\n- ~ not significant",
	} {
		if got := r.String(f); !strings.Contains(got, want) {
			t.Errorf("%s output lacks %q:\n%s", f, want, got)
		}
	}
}
