package tablefmt

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// at is a cell placed at a column, for building test tables.
type at struct {
	col int
	Cell
}

func build(fixed []int, rows ...[]at) *Table {
	var t Table
	t.Fix(fixed...)
	for _, r := range rows {
		t.Row()
		for _, c := range r {
			t.Put(c.col, c.Cell)
		}
	}
	return &t
}

func TestLayout(t *testing.T) {
	tests := []struct {
		name  string
		fixed []int
		rows  [][]at
		want  string
	}{{
		name: "empty",
		want: "",
	}, {
		name: "row without cells",
		rows: [][]at{{}},
		want: "\n",
	}, {
		name: "left and right alignment",
		rows: [][]at{
			{{0, Cell{Text: "name"}}, {1, Cell{Text: "1", Align: Right, Margin: " "}}, {2, Cell{Text: "x", Margin: " "}}},
			{{0, Cell{Text: "n"}}, {1, Cell{Text: "123", Align: Right, Margin: " "}}, {2, Cell{Text: "yyy", Margin: " "}}},
		},
		want: "" +
			"name   1 x\n" +
			"n    123 yyy\n",
	}, {
		name: "center puts the odd space on the right",
		rows: [][]at{
			{{0, Cell{Text: "abcde"}}},
			{{0, Cell{Text: "a", Align: Center}}},
			{{0, Cell{Text: "ab", Align: Center}}},
		},
		want: "" +
			"abcde\n" +
			"  a\n" +
			" ab\n",
	}, {
		name: "gap is the widest margin, a shorter one padded on its left",
		rows: [][]at{
			{{0, Cell{Text: "a"}}, {1, Cell{Text: "b", Margin: " | "}}},
			{{0, Cell{Text: "a"}}, {1, Cell{Text: "c", Margin: "|"}}},
		},
		want: "" +
			"a | b\n" +
			"a  |c\n",
	}, {
		name: "widths count runes",
		rows: [][]at{
			{{0, Cell{Text: "1.5µs", Align: Right}}, {1, Cell{Text: "±", Margin: " "}}},
			{{0, Cell{Text: "10ns", Align: Right}}, {1, Cell{Text: "∞", Margin: " "}}},
		},
		want: "" +
			"1.5µs ±\n" +
			" 10ns ∞\n",
	}, {
		name: "skipped and unused columns, empty text keeps its margin, no trailing spaces",
		rows: [][]at{
			{{0, Cell{Text: "a"}}, {3, Cell{Margin: " │"}}},
			{{0, Cell{Text: "abc"}}, {1, Cell{Text: "x", Margin: " "}}},
		},
		want: "" +
			"a     │\n" +
			"abc x\n",
	}, {
		name:  "a span widens only its columns that are not fixed",
		fixed: []int{2},
		rows: [][]at{
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "wide-header", Align: Center, Margin: " ", Span: 2}}},
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "1", Align: Right, Margin: " "}}, {2, Cell{Text: "2", Align: Right, Margin: " "}}},
		},
		want: "" +
			"x wide-header\n" +
			"x         1 2\n",
	}, {
		name: "a span that fits is centered in its columns and their gaps",
		rows: [][]at{
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "ab", Align: Center, Margin: " ", Span: 2}}, {3, Cell{Text: "|", Margin: " "}}},
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "111", Margin: " "}}, {2, Cell{Text: "222", Margin: " "}}, {3, Cell{Text: "|", Margin: " "}}},
		},
		want: "" +
			"x   ab    |\n" +
			"x 111 222 |\n",
	}, {
		name: "widening is spread evenly, leftmost first",
		rows: [][]at{
			{{0, Cell{Text: "abcdefghi", Span: 3}}},
			{{0, Cell{Text: "a"}}, {1, Cell{Text: "b", Margin: " "}}, {2, Cell{Text: "c", Margin: " "}}},
		},
		want: "" +
			"abcdefghi\n" +
			"a   b  c\n",
	}, {
		// The 6 widens columns 1-2 to 3, 2, then the 10 columns 1-3 to
		// 4, 3, 1. Wide first, the 10 would have widened them to 3, 3, 2
		// and left nothing for the 6 to do.
		name: "narrower spans are applied first",
		rows: [][]at{
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "0123456789", Align: Center, Margin: " ", Span: 3}}},
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "abcdef", Align: Center, Margin: " ", Span: 2}}},
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "1", Align: Right, Margin: " "}}, {2, Cell{Text: "2", Align: Right, Margin: " "}}, {3, Cell{Text: "3", Align: Right, Margin: " "}}},
		},
		want: "" +
			"x 0123456789\n" +
			"x  abcdef\n" +
			"x    1   2 3\n",
	}, {
		name:  "overflow when every column is fixed moves the rest of the row by twice as much",
		fixed: []int{1, 2},
		rows: [][]at{
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "toolong", Margin: " ", Span: 2}}, {3, Cell{Text: "|", Margin: " "}}},
			{{0, Cell{Text: "x"}}, {1, Cell{Text: "a", Margin: " "}}, {2, Cell{Text: "b", Margin: " "}}, {3, Cell{Text: "|", Margin: " "}}},
		},
		want: "" +
			"x toolong     |\n" +
			"x a b |\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := build(tt.fixed, tt.rows...)
			if got := tab.String(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", show(got), show(tt.want))
			}
			var b strings.Builder
			n, err := tab.WriteTo(&b)
			if err != nil || n != int64(len(tt.want)) || b.String() != tt.want {
				t.Errorf("WriteTo = %d, %v, %q; want %d, nil, %q", n, err, b.String(), len(tt.want), tt.want)
			}
		})
	}
}

// show makes line ends visible, so that trailing spaces show.
func show(s string) string {
	return strings.ReplaceAll(s, "\n", "$\n")
}

func TestPutReturnsNextColumn(t *testing.T) {
	var tab Table
	tab.Row()
	if got := tab.Put(2, Cell{Text: "a"}); got != 3 {
		t.Errorf("Put(2, one column) = %d, want 3", got)
	}
	if got := tab.Put(3, Cell{Text: "b", Span: 3}); got != 6 {
		t.Errorf("Put(3, span 3) = %d, want 6", got)
	}
}

func TestPutPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(*Table)
	}{
		{"before Row", func(t *Table) { t.Put(0, Cell{}) }},
		{"overlap", func(t *Table) { t.Row(); t.Put(1, Cell{Span: 2}); t.Put(2, Cell{}) }},
		{"negative span", func(t *Table) { t.Row(); t.Put(0, Cell{Span: -1}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f(new(Table))
		})
	}
}

// A benchstat-like table: each side a group of columns under a centered
// label, only the group's first column widening for it.
func ExampleTable() {
	var t Table
	t.Fix(2, 3, 5, 6)
	t.Row()
	t.Put(1, Cell{Text: "old", Align: Center, Margin: " │ ", Span: 2})
	t.Put(3, Cell{Text: "new", Align: Center, Margin: " │ ", Span: 4})
	t.Put(7, Cell{Margin: " │"})
	t.Row()
	t.Put(1, Cell{Text: "sec/op", Align: Center, Margin: " │ ", Span: 2})
	t.Put(3, Cell{Text: "sec/op", Align: Center, Margin: " │ ", Span: 2})
	t.Put(5, Cell{Text: "vs base", Margin: "  ", Span: 2})
	t.Put(7, Cell{Margin: " │"})
	for _, r := range [][]string{
		{"Read", "1.832µ", "3%", "1.849µ", "1%", "~", "(p=0.684 n=10)"},
		{"WriteAll", "4.181µ", "2%", "2.774µ", "2%", "-33.66%", "(p=0.000 n=10)"},
	} {
		t.Row()
		t.Put(0, Cell{Text: r[0]})
		t.Put(1, Cell{Text: r[1], Align: Right, Margin: " "})
		t.Put(2, Cell{Text: r[2], Align: Right, Margin: " ± "})
		t.Put(3, Cell{Text: r[3], Align: Right, Margin: " "})
		t.Put(4, Cell{Text: r[4], Align: Right, Margin: " ± "})
		t.Put(5, Cell{Text: r[5], Align: Right, Margin: " "})
		t.Put(6, Cell{Text: r[6], Margin: " "})
	}
	fmt.Println("pkg: example.com/m")
	t.WriteTo(os.Stdout)
	// Output:
	// pkg: example.com/m
	//          │     old     │                 new                 │
	//          │   sec/op    │   sec/op     vs base                │
	// Read       1.832µ ± 3%   1.849µ ± 1%        ~ (p=0.684 n=10)
	// WriteAll   4.181µ ± 2%   2.774µ ± 2%  -33.66% (p=0.000 n=10)
}
