package benchrun

import (
	"fmt"
	"strings"
	"testing"
)

// A line too long for benchfmt's Reader stopped the whole comparison with
// "new:0: bufio.Scanner: token too long". It is now skipped and listed
// with its line, and the lines after it are still read; a line one byte
// shorter is read as any other. Line numbers of later warnings stay right.
func TestCompareLongLines(t *testing.T) {
	runs := func(from int) string {
		var b strings.Builder
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkX-2 1000 %d ns/op\n", from+i)
		}
		return b.String()
	}
	old := "pkg: example.com/m\n" + runs(100)
	// A result line with as many values as fit: maxLine-1 bytes and the
	// newline.
	fits := "BenchmarkX-2 1000 100 ns/op"
	fits += strings.Repeat(" ", maxLine-1-len(fits))
	tests := []struct {
		name     string
		new      string
		omitted  []string
		warnings []string
		n        int // new X-2 sec/op values
	}{
		{"benchmark line too long", "pkg: example.com/m\n" + runs(50) + "BenchmarkX-2 1000 " + strings.Repeat("1", maxLine) + " ns/op\n" + runs(50) + "BenchmarkX-2 z\n",
			[]string{"(new) X-2: line of 65560 bytes, longer than the 65535 a results line may have; skipped (new:8)"},
			[]string{"new:15: parsing iteration count: invalid syntax"}, 12},
		{"name too long, last line", "pkg: example.com/m\n" + runs(50) + "BenchmarkX" + strings.Repeat("é", maxLine),
			[]string{"(new) X" + strings.Repeat("é", (headLen-len("BenchmarkX"))/2) + "…: line of 131082 bytes, longer than the 65535 a results line may have; skipped (new:8)"},
			nil, 6},
		{"other line too long", "pkg: example.com/m\n" + strings.Repeat("x", 3*maxLine) + "\n" + runs(50),
			nil,
			[]string{"new:2: line of 196608 bytes, longer than the 65535 a results line may have; skipped"}, 6},
		{"longest line read", "pkg: example.com/m\n" + runs(50) + fits + "\n", nil, nil, 7},
		{"longest last line read", "pkg: example.com/m\n" + runs(50) + fits, nil, nil, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(Input{Label: "old", R: strings.NewReader(old)}, Input{Label: "new", R: strings.NewReader(tt.new)}, nil)
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
			if strings.Join(r.Warnings, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(r.Warnings, "\n"), strings.Join(tt.warnings, "\n"))
			}
			if row := findRow(t, r, "sec/op", "X-2"); row.New == nil || row.New.N != tt.n {
				t.Errorf("new X-2 has %+v, want %d values", row.New, tt.n)
			}
		})
	}
}
