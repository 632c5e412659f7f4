package benchrun

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func jobString(jobs []job) string {
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%c%d ", "ON"[j.side], j.pkg)
	}
	return strings.TrimSpace(b.String())
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		order      Order
		count, pkg int
		want       string
	}{
		{Interleaved, 4, 1, "O0 N0 N0 O0 O0 N0 N0 O0"},
		{Interleaved, 2, 2, "O0 N0 O1 N1 N0 O0 N1 O1"},
		{Interleaved, 3, 1, "O0 N0 N0 O0 O0 N0"},
		{Sequential, 2, 2, "O0 O1 O0 O1 N0 N1 N0 N1"},
		{Sequential, 1, 1, "O0 N0"},
	}
	for _, tt := range tests {
		if got := jobString(schedule(tt.order, tt.count, tt.pkg, 1)); got != tt.want {
			t.Errorf("schedule(%s, %d, %d) = %s, want %s", tt.order, tt.count, tt.pkg, got, tt.want)
		}
	}
}

// A shuffled schedule has the same runs as the interleaved one, in an
// order that the seed alone decides.
func TestScheduleShuffled(t *testing.T) {
	sorted := func(jobs []job) string {
		s := strings.Fields(jobString(jobs))
		slices.Sort(s)
		return strings.Join(s, " ")
	}
	a := schedule(Shuffled, 10, 3, 42)
	if got, want := sorted(a), sorted(schedule(Interleaved, 10, 3, 0)); got != want {
		t.Errorf("shuffled runs %s, want %s", got, want)
	}
	if b := schedule(Shuffled, 10, 3, 42); jobString(a) != jobString(b) {
		t.Errorf("same seed, different orders:\n%s\n%s", jobString(a), jobString(b))
	}
	if c := schedule(Shuffled, 10, 3, 43); jobString(a) == jobString(c) {
		t.Errorf("seeds 42 and 43 give the same order %s", jobString(a))
	}
}

func TestParseOrderFormat(t *testing.T) {
	for _, name := range []string{"interleaved", "shuffled", "sequential"} {
		if o, err := ParseOrder(name); err != nil || string(o) != name {
			t.Errorf("ParseOrder(%q) = %q, %v", name, o, err)
		}
	}
	if _, err := ParseOrder("abba"); err == nil {
		t.Error("ParseOrder(abba) succeeded")
	}
	for _, f := range Formats {
		if g, err := ParseFormat(string(f)); err != nil || g != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, g, err)
		}
	}
	if _, err := ParseFormat("html"); err == nil {
		t.Error("ParseFormat(html) succeeded")
	}
}
