package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/verdict"
)

// TestDecide checks each design's verdict on series whose answer is
// known: a benchmark twice as slow (both flag it; the sequential design
// after one look), one that did not move on a machine with no noise (the
// same), and one recorded too short for the fixed design (not counted).
func TestDecide(t *testing.T) {
	runs := func(n int, v, step float64) []float64 {
		var xs []float64
		for i := range n {
			xs = append(xs, v+float64(i%7)*step)
		}
		return xs
	}
	plan := verdict.DefaultPlan()
	for _, tt := range []struct {
		name string
		s    series
		want tally
	}{
		{"twice as slow", series{runs: [2][]float64{runs(30, 100, 1), runs(30, 200, 2)}},
			tally{rows: 1, fixedFlagged: 1, slower: 1, runs: 6}},
		{"no change, no noise", series{runs: [2][]float64{runs(30, 100, 0), runs(30, 100, 0)}},
			tally{rows: 1, same: 1, runs: 6}},
		{"too short", series{runs: [2][]float64{runs(12, 100, 1), runs(12, 200, 2)}}, tally{}},
		// The order the runs came in is the sequential design's: its
		// first look sees six equal runs a side, whatever came after.
		// (Sorted first, as the fixed design's sample is, it would see
		// the old side's 90s and call the new slower.)
		{"in run order", series{runs: [2][]float64{slices.Concat(runs(6, 100, 0), runs(14, 90, 0), runs(10, 100, 0)), runs(30, 100, 0)}},
			tally{rows: 1, fixedFlagged: 1, same: 1, runs: 6}},
	} {
		if got := decide(&tt.s, plan); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestReplayDir replays a recording as bench -o keeps it and checks the
// table: one benchmark that doubled, one that did not move.
func TestReplayDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	os.Mkdir(dir, 0o755)
	for side, file := range []string{"old.txt", "new.txt"} {
		var b strings.Builder
		fmt.Fprintf(&b, "# revision: %040d\ngoos: linux\npkg: example.com/m\n", 1)
		for i := range 30 {
			fmt.Fprintf(&b, "BenchmarkDoubled-2 1000 %d ns/op\n", (100+i%5)*(1+side))
			fmt.Fprintf(&b, "BenchmarkFlat-2 1000 100 ns/op\n")
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tl, err := replayDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	write(&out, []tally{tl})
	want := "  recording  rows  fixed 20+20 flagged  auto flagged  auto same  auto undecided  auto runs/side  opposite\n" +
		"        rec     2            1 (50.0%)     1 (50.0%)  1 (50.0%)        0 (0.0%)             6.0         0\n"
	if got := out.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	if _, err := replayDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "old.txt") {
		t.Errorf("an empty directory: %v, want an error naming old.txt", err)
	}
}

// TestWidths checks that pairing narrows the interval where the runs
// share the machine's drift (each round's speed, on both sides) and
// leaves it about the same where they do not.
func TestWidths(t *testing.T) {
	drift := func(i int) float64 { return 1 + 0.3*float64((i*7)%11)/10 } // slow rounds and fast ones
	own := func(i, side int) float64 { return 1 + 0.01*float64((i*3+side*5)%7) }
	var shared, apart series
	for i := range 20 {
		for side := range 2 {
			shared.runs[side] = append(shared.runs[side], 100*drift(i)*own(i, side))
			apart.runs[side] = append(apart.runs[side], 100*drift(i+side*3)*own(i, side))
		}
	}
	ws, wa := widthsOf([]*series{&shared}), widthsOf([]*series{&apart})
	if ws.rows != 1 || ws.n != 20 || !(ws.ratio < 0.3) || !(ws.ratio2 < 0.4) {
		t.Errorf("shared drift: %+v, want the paired and the combined intervals well under the unpaired one", ws)
	}
	if wa.rows != 1 || !(wa.ratio > 0.5) || !(wa.ratio2 <= 1.2) {
		t.Errorf("drift apart: %+v, want no great gain from pairing, and the combined interval not much wider", wa)
	}
}
