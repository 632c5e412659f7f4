package track

import (
	"fmt"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/changepoint"
)

// history makes a real Git repository of n commits after a first one,
// and returns its directory and the hashes, the first one's first.
func history(t *testing.T, n int) (string, []string) {
	t.Helper()
	r := gittest.New(t)
	return r.Dir, r.History(n, nil)
}

func TestPending(t *testing.T) {
	dir, hashes := history(t, 20)
	index := map[string]int{}
	for i, h := range hashes {
		index[h] = i
	}
	last := func(i int) *Commit { return &Commit{Hash: hashes[i]} }
	for _, c := range []struct {
		name  string
		o     PlanOptions
		want  string // the commits' indices
		left  int
		fresh int // Plan.New
	}{
		{"first run, every commit", PlanOptions{Every: 1, Max: 5}, "16 17 18 19 20", 0, 5},
		{"first run, every third, ending at the head", PlanOptions{Every: 3, Max: 3}, "14 17 20", 0, 9},
		{"first run, history shorter than asked", PlanOptions{Every: 1, Max: 50}, "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", 0, 21},
		{"after the last recorded", PlanOptions{Every: 1, Max: 5, Last: last(17)}, "18 19 20", 0, 3},
		{"every second after the last", PlanOptions{Every: 2, Max: 5, Last: last(13)}, "15 17 19", 0, 7},
		{"a backlog, oldest first", PlanOptions{Every: 1, Max: 4, Last: last(10)}, "11 12 13 14", 6, 10},
		{"nothing new", PlanOptions{Every: 1, Max: 4, Last: last(20)}, "", 0, 0},
		{"from an older branch point", PlanOptions{Branch: hashes[8], Every: 1, Max: 4, Last: last(5)}, "6 7 8", 0, 3},
	} {
		c.o.Dir = dir
		p, err := Pending(c.o)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, cm := range p.Commits {
			got = append(got, fmt.Sprint(index[cm.Hash]))
			if cm.Subject != "commit "+fmt.Sprint(index[cm.Hash]) || cm.Time.IsZero() {
				t.Errorf("%s: commit %+v, want its subject and time", c.name, cm)
			}
		}
		if strings.Join(got, " ") != c.want || p.Left != c.left || p.New != c.fresh {
			t.Errorf("%s: commits %q, left %d, new %d; want %q, %d, %d", c.name, got, p.Left, p.New, c.want, c.left, c.fresh)
		}
	}

	// The last recorded commit is not in the branch's history: the
	// branch was rewritten, or the track is another branch's.
	_, err := Pending(PlanOptions{Dir: dir, Branch: hashes[5], Every: 1, Max: 4, Last: last(8)})
	if err == nil || !strings.Contains(err.Error(), "was the branch rewritten?") {
		t.Errorf("last recorded commit not in the history: %v", err)
	}
	for _, o := range []PlanOptions{{Dir: dir, Branch: "nope", Every: 1, Max: 1}, {Dir: dir, Every: 0, Max: 1}, {Dir: t.TempDir(), Every: 1, Max: 1}} {
		if _, err := Pending(o); err == nil {
			t.Errorf("Pending(%+v): no error", o)
		}
	}
}

// TestDetect: a slowdown and a speedup of sec/op found, with their range
// to bisect two points before and one after; other units are not searched.
func TestDetect(t *testing.T) {
	var hashes []string
	var xs []float64
	for i := range 30 {
		hashes = append(hashes, fmt.Sprintf("h%02d", i))
		v := 100.0
		if i >= 10 {
			v = 130
		}
		if i >= 20 {
			v = 90
		}
		xs = append(xs, v+float64(i%3)) // a little wobble, no noise
	}
	series := []*Series{
		{Key: SeriesKey{"p", "A-2", "sec/op"}, Hashes: hashes, Points: xs},
		{Key: SeriesKey{"p", "A-2", "B/op"}, Hashes: hashes, Points: xs},
	}
	var got []string
	for _, c := range Detect(series, changepoint.Options{MinChange: 0.05}) {
		got = append(got, fmt.Sprintf("%s %s %s..%s %s", c.State, c.Hash, c.Good, c.Bad, c.Prev))
	}
	want := "found h10 h08..h11 h09|improved h20 h18..h21 h19"
	if strings.Join(got, "|") != want {
		t.Errorf("Detect: %q, want %q", strings.Join(got, "|"), want)
	}
}
