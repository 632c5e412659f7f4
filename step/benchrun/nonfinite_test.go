package benchrun

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// sixRuns returns six runs of BenchmarkX-2 in Go benchmark format, the
// values of run i given by line(i).
func sixRuns(line func(i int) string) string {
	var b strings.Builder
	b.WriteString("pkg: example.com/m\n")
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkX-2 1000 %s\n", line(i))
	}
	return b.String()
}

// Non-finite values (a benchmark's b.ReportMetric(math.NaN(), ...), a
// saved file's "NaN ns/op", a MB/s that overflows when tidied into B/s)
// never reach the statistics: each is listed as omitted, naming the side,
// the benchmark, the value and unit and the first line, and the rest of
// the line is still compared. The JSON of the result stays valid.
func TestCompareNonFinite(t *testing.T) {
	finite := sixRuns(func(i int) string { return fmt.Sprintf("%d ns/op 5 x/op", 100+i) })
	tests := []struct {
		name     string
		new      string
		omitted  []string // the omissions, as notes print them
		compared []string // units still compared for X-2
	}{
		{"NaN ns/op", sixRuns(func(i int) string { return fmt.Sprintf("NaN ns/op %d x/op", 5+i) }),
			[]string{"(new) example.com/m X-2: NaN ns/op is not a finite number (new:2, 6 lines)"},
			[]string{"x/op"}},
		{"one NaN", sixRuns(func(i int) string {
			if i == 3 {
				return "NaN ns/op 5 x/op"
			}
			return fmt.Sprintf("%d ns/op 5 x/op", 100+i)
		}),
			[]string{"(new) example.com/m X-2: NaN ns/op is not a finite number (new:5)"},
			[]string{"sec/op", "x/op"}},
		{"ReportMetric NaN", sixRuns(func(i int) string { return fmt.Sprintf("%d ns/op NaN x/op", 100+i) }),
			[]string{"(new) example.com/m X-2: NaN x/op is not a finite number (new:2, 6 lines)"},
			[]string{"sec/op"}},
		{"+Inf", sixRuns(func(i int) string { return fmt.Sprintf("%d ns/op +Inf x/op", 100+i) }),
			[]string{"(new) example.com/m X-2: +Inf x/op is not a finite number (new:2, 6 lines)"},
			[]string{"sec/op"}},
		{"-Inf and Inf", sixRuns(func(int) string { return "-Inf ns/op Inf x/op" }),
			[]string{
				"(new) example.com/m X-2: -Inf ns/op is not a finite number (new:2, 6 lines)",
				"(new) example.com/m X-2: +Inf x/op is not a finite number (new:2, 6 lines)",
			},
			nil},
		{"MB/s out of range", sixRuns(func(i int) string { return fmt.Sprintf("%d ns/op 1e303 MB/s", 100+i) }),
			[]string{"(new) example.com/m X-2: 1e+303 MB/s is out of range in B/s (new:2, 6 lines)"},
			[]string{"sec/op"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(Input{Label: "old", R: strings.NewReader(finite)}, Input{Label: "new", R: strings.NewReader(tt.new)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range r.Omitted {
				got = append(got, o.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.omitted, "\n") {
				t.Errorf("omitted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.omitted, "\n"))
			}
			var units []string
			for _, tb := range r.Tables {
				for _, row := range tb.Rows {
					if row.Compare != nil {
						units = append(units, tb.Unit)
					}
				}
			}
			if strings.Join(units, " ") != strings.Join(tt.compared, " ") {
				t.Errorf("compared units %q, want %q", units, tt.compared)
			}
			data, err := json.Marshal(r)
			if err != nil || !json.Valid(data) {
				t.Errorf("JSON: %v", err)
			}
			for _, f := range Formats {
				out := strings.ReplaceAll(r.String(f), "\u2060", "") // Gerrit's escapes
				if f != JSON && !strings.Contains(out, "omitted "+tt.omitted[0]) {
					t.Errorf("%s output does not list %q:\n%s", f, tt.omitted[0], out)
				}
			}
		})
	}
}

// Finite medians whose ratio overflows have no delta and no geomean ratio
// (JSON has no infinity), yet the change is still a regression, named by
// its two medians.
func TestCompareOverflow(t *testing.T) {
	old := sixRuns(func(i int) string { return fmt.Sprintf("%de-300 B/op", 1+i) })
	new := sixRuns(func(i int) string { return fmt.Sprintf("%de+300 B/op", 1+i) })
	// A second row, Y, the same as X, for a geomean.
	old += strings.ReplaceAll(old, "X-2", "Y-2")
	new += strings.ReplaceAll(new, "X-2", "Y-2")
	r, err := Compare(Input{Label: "old", R: strings.NewReader(old)}, Input{Label: "new", R: strings.NewReader(new)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("JSON: %v", err)
	}
	var got []string
	for _, g := range r.Regressions(0.05) {
		got = append(got, g.String())
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "example.com/m X-2: bytes 0.000") || !strings.Contains(got[0], " → 35") {
		t.Errorf("regressions = %q, want X-2's and Y-2's, old → new", got)
	}
	if g := r.Tables[0].Geomean; g == nil || g.Ratio != nil {
		t.Errorf("geomean = %+v, want one without a ratio", g)
	}
}
