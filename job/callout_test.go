package job

import (
	"reflect"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/step/benchrun"
)

// TestCallouts checks that the review message's words say what the table
// says, in each case a table can hold: a speedup, a change in percent, a
// change from zero (which has no ratio: xxhash's 0 → 112 B/op was once
// called "+0.00%"), a change to zero, a ratio too large to hold, no
// significant change (in the fixed design, whether its interval lies
// within the margin or not: its tables say "~" of both), and benchmarks
// that ran on one side only.
func TestCallouts(t *testing.T) {
	row := func(name string, old, new float64, significant bool, verdict string) *benchrun.Row {
		return &benchrun.Row{Name: name, Old: &benchrun.Summary{Center: old}, New: &benchrun.Summary{Center: new},
			Compare: &benchrun.Comparison{Significant: significant, Verdict: verdict}}
	}
	res := &benchrun.Result{Tables: []*benchrun.Table{
		{Unit: "sec/op", Better: -1, Rows: []*benchrun.Row{
			row("WriteInts-2", 3e-9, 2e-9, true, benchrun.Faster),
			row("ReadInts-2", 2e-9, 2.01e-9, false, benchrun.Same),
			row("Noisy-2", 2e-9, 2.2e-9, false, benchrun.Undecided),
		}},
		{Unit: "B/s", Better: +1, Rows: []*benchrun.Row{
			row("WriteInts-2", 1e9, 1.5e9, true, benchrun.Faster),
		}},
		{Unit: "B/op", Better: -1, Rows: []*benchrun.Row{
			row("Sum64-2", 0, 112, true, benchrun.Slower),
			row("Huge-2", 1e-320, 1e300, true, benchrun.Slower),
		}},
		{Unit: "allocs/op", Better: -1, Rows: []*benchrun.Row{
			row("Sum64-2", 0, 1, true, benchrun.Slower),
			row("Zero-2", 1, 0, true, benchrun.Faster),
		}},
		{Unit: "sec/op", Better: -1, Rows: []*benchrun.Row{
			{Name: "New-2", New: &benchrun.Summary{Center: 1}},
			{Name: "Old-2", Old: &benchrun.Summary{Center: 1}},
		}},
	}}
	got := callouts(res, escape.Markdown)
	want := map[string][]string{
		benchrun.Faster: {"WriteInts-2 (sec/op -33.33%, B/s 1.50x)", "Zero-2 (allocs/op -100.00%)"},
		benchrun.Slower: {"Sum64-2 (B/op 0 → 112, allocs/op 0 → 1)", "Huge-2 (B/op 1e-320 → 1e+300)"},
		notSignificant:  {"ReadInts-2", "Noisy-2"},
		added:           {"New-2"},
		removed:         {"Old-2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("callouts:\ngot  %q\nwant %q", got, want)
	}
}

// TestCalloutsDecided checks the words of a sequential comparison
// (-count auto): a benchmark it found the same within its margin, and one
// it could not decide, are each in a list of their own and not "no
// significant change", which would say neither; each says the bound it
// reached.
func TestCalloutsDecided(t *testing.T) {
	row := func(name string, old, new float64, v string) *benchrun.Row {
		bound := map[string]float64{benchrun.Same: 0.015, benchrun.Undecided: 0.12}[v]
		c := &benchrun.Comparison{Verdict: v, Decision: &benchrun.Decision{Verdict: v, Margin: 0.02, Bound: bound}}
		c.Significant = v == benchrun.Faster || v == benchrun.Slower
		return &benchrun.Row{Name: name, Old: &benchrun.Summary{Center: old}, New: &benchrun.Summary{Center: new}, Compare: c}
	}
	res := &benchrun.Result{Run: &benchrun.RunInfo{Margin: 0.02}, Tables: []*benchrun.Table{
		{Unit: "sec/op", Better: -1, Rows: []*benchrun.Row{
			row("WriteInts-2", 4e-9, 2e-9, benchrun.Faster),
			row("ReadInts-2", 2e-9, 2.01e-9, benchrun.Same),
			row("Noisy-2", 2e-9, 2.2e-9, benchrun.Undecided),
			row("Slow-2", 2e-9, 3e-9, benchrun.Slower),
		}},
		{Unit: "allocs/op", Better: -1, Rows: []*benchrun.Row{
			{Name: "ReadInts-2", Old: &benchrun.Summary{Center: 1}, New: &benchrun.Summary{Center: 1}, Compare: &benchrun.Comparison{Verdict: benchrun.Same}},
		}},
	}}
	got := callouts(res, escape.Markdown)
	want := map[string][]string{
		benchrun.Faster: {"WriteInts-2 (sec/op -50.00%)"},
		benchrun.Slower: {"Slow-2 (sec/op +50.00%)"},
		same:            {"ReadInts-2 (±1.5%)"},
		undecided:       {"Noisy-2 (±12%)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("callouts:\ngot  %q\nwant %q", got, want)
	}
	msg := Compose(&Result{Bench: res}, benchrun.Gerrit)
	for _, line := range []string{"The same, within the bound each states:\n- ReadInts-2 (±1.5%)\n", "Too noisy here to tell (undecided):\n- Noisy-2 (±12%)\n"} {
		if !strings.Contains(msg, line) {
			t.Errorf("the message lacks %q:\n%s", line, msg)
		}
	}
	if strings.Contains(msg, "No significant change") {
		t.Errorf("the message says \"No significant change\" of decided benchmarks:\n%s", msg)
	}
}
