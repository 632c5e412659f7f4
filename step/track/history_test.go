package track

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHistoryPinned: a commit recorded while History reads (a track job
// beside it) is in none of what it returns, nor its change point.
func TestHistoryPinned(t *testing.T) {
	ctx := context.Background()
	store, err := Open(ctx, engines[0].open(t), "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	const name = "example.com/m@main"
	key := SeriesKey{Package: "example.com/m", Name: "Work-2", Unit: Unit}
	add := func(i int) {
		h := strings.Repeat(strconv.Itoa(i), 40)
		if _, err := store.Add(ctx, name, &Commit{Hash: h}, []Value{{Key: key, Value: float64(i), N: 1}}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.AddChange(ctx, name, &Change{Key: key, Hash: h, Before: 1, After: 2, State: StateFound}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 3; i++ {
		add(i)
	}
	testHookHistory = func() { add(4) }
	defer func() { testHookHistory = nil }()
	h, err := store.History(ctx, name, Window{Commits: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range h.Commits {
		got = append(got, c.Hash[:1])
	}
	for _, s := range h.Series {
		got = append(got, fmt.Sprint(s.Points))
	}
	for _, c := range h.Changes {
		got = append(got, "change at "+c.Hash[:1])
	}
	if want := []string{"2", "3", "[2 3]", "change at 2", "change at 3"}; h.Recorded != 3 || !slices.Equal(got, want) {
		t.Errorf("recorded %d, read %q; want 3, %q", h.Recorded, got, want)
	}
}

func TestHistoryWrite(t *testing.T) {
	day := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	key := SeriesKey{Package: "example.com/m", Name: "Work-2", Unit: Unit}
	h40 := func(c string) string { return strings.Repeat(c, 40) }
	tests := []struct {
		h    *History
		want string
	}{
		{&History{Track: "example.com/m@main"}, "example.com/m@main: nothing recorded yet\n"},
		{&History{Track: "t", Commits: []Commit{{Hash: h40("a"), Time: day}, {Hash: h40("b"), Time: day.AddDate(0, 0, 1), Error: "does not build"}}, Series: []*Series{{Key: key}}},
			"t: 2 commits recorded, aaaaaaaaaaaa (2026-12-01) to bbbbbbbbbbbb (2026-12-02), 1 without values; 1 series\nno change points\n"},
		{&History{Track: "t", Commits: []Commit{{Hash: h40("a"), Time: day}}, Changes: []*Change{
			{Key: key, Hash: h40("c"), Prev: h40("b"), Before: 1, After: 1.25, State: StateCommented, Culprit: h40("d"), Comment: "https://github.com/o/r/pull/7#issuecomment-1"},
			{Key: key, Hash: h40("e"), Prev: h40("c"), Before: 1, After: 0.5, State: StateImproved},
		}},
			"t: 1 commits recorded, aaaaaaaaaaaa (2026-12-01) to aaaaaaaaaaaa (2026-12-01), 0 without values; 0 series\n" +
				"example.com/m Work-2 sec/op: +25.0% at cccccccccccc (after bbbbbbbbbbbb): commented (culprit dddddddddddd; https://github.com/o/r/pull/7#issuecomment-1)\n" +
				"example.com/m Work-2 sec/op: -50.0% at eeeeeeeeeeee (after cccccccccccc): improved\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.h.Write(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("Write:\n%s\nwant:\n%s", b.String(), tt.want)
		}
	}
}
