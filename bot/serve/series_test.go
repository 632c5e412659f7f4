package serve

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/step/track"
)

// newTrackStore opens the track store in the queue's database file (as
// serve does) and records a history in it: 12 commits, the benchmark
// (named hostile) 30% slower from the 6th, whose change point is
// commented on, and a speedup of another series at the 9th with a
// comment URL that is a script. The subjects are hostile too.
func newTrackStore(t *testing.T) *track.Store {
	t.Helper()
	ctx := context.Background()
	db, err := queue.OpenSQL(ctx, queue.DB{Engine: "sqlite", Path: t.TempDir() + "/q.db"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := track.Open(ctx, db, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	const name = "example.com/m@main"
	slow := track.SeriesKey{Package: "example.com/m", Name: hostile, Unit: "sec/op"}
	fast := track.SeriesKey{Package: "example.com/m", Name: "Fast-2", Unit: "sec/op"}
	when := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	var hashes []string
	for i := range 12 {
		h := strings.Repeat(fmt.Sprintf("%02x", i+1), 20)
		hashes = append(hashes, h)
		v, f := 1e-6, 2e-6
		if i >= 6 {
			v = 1.3e-6
		}
		if i >= 9 {
			f = 1e-6
		}
		c := &track.Commit{Hash: h, Subject: `<img src=x onerror=alert(1)> @admin`, Time: when}
		if _, err := s.Add(ctx, name, c, []track.Value{{Key: slow, Value: v, N: 5}, {Key: fast, Value: f, N: 5}, {Key: track.SeriesKey{Package: "example.com/m", Name: "Fast-2", Unit: "B/op"}, Value: 8, N: 5}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*track.Change{
		{Key: slow, Hash: hashes[6], Prev: hashes[5], Good: hashes[4], Bad: hashes[7], Before: 1e-6, After: 1.3e-6, P: 1e-5, Found: when,
			State: track.StateCommented, Culprit: hashes[6], Comment: "https://github.example/o/r/pull/7#issuecomment-9"},
		{Key: fast, Hash: hashes[9], Prev: hashes[8], Good: hashes[7], Bad: hashes[10], Before: 2e-6, After: 1e-6, P: 1e-5, Found: when,
			State: track.StateImproved, Comment: "javascript:alert(1)", Reason: `</title><script>alert(2)</script>`},
	} {
		if _, err := s.AddChange(ctx, name, c); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestSeries: the status page plots each tracked time series with its
// change points, the commented one linked to its comment and the other
// not (its URL is a script); every text escaped, the SVG well-formed.
// /api/series gives the data.
func TestSeries(t *testing.T) {
	store := newTrackStore(t)
	e := newEnv(t, false, func(c *Config) { c.Tracks = TrackStore{store} })
	w := e.serve(httptest.NewRequest("GET", "/", nil))
	page := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("/: %d\n%s", w.Code, page)
	}
	for _, want := range []string{
		"<h2>Tracked branches</h2>",
		"<h3>example.com/m@main: 12 commits recorded</h3>",
		`<a href="https://github.example/o/r/pull/7#issuecomment-9">`,
		"+30.0% 070707070707",
		"-50.0%",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "javascript:", "<img", hostile} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	// Each plot is XML: two, the B/op series not plotted.
	plots := 0
	for rest := page; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		svg := rest[i : i+j+len("</svg>")]
		rest = rest[i+j:]
		plots++
		d := xml.NewDecoder(strings.NewReader(svg))
		circles := 0
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("plot %d: not XML: %v\n%s", plots, err, svg)
			}
			if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "circle" {
				circles++
			}
		}
		if circles != 12 {
			t.Errorf("plot %d: %d points, want 12", plots, circles)
		}
	}
	if plots != 2 {
		t.Errorf("%d plots, want 2 (the time series)", plots)
	}

	w = e.serve(httptest.NewRequest("GET", "/api/series", nil))
	var api struct {
		Tracks []struct {
			Track   string
			Commits []track.Commit
			Series  []track.Series
			Changes []track.Change
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &api); err != nil || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("/api/series: %v, %s\n%s", err, w.Header(), w.Body)
	}
	if len(api.Tracks) != 1 || len(api.Tracks[0].Commits) != 12 || len(api.Tracks[0].Series) != 3 || len(api.Tracks[0].Changes) != 2 || api.Tracks[0].Changes[0].Culprit == "" {
		t.Errorf("/api/series: %+v", api)
	}
	w = e.serve(httptest.NewRequest("GET", "/api/series?track=nope", nil))
	if !strings.Contains(w.Body.String(), `"tracks": []`) {
		t.Errorf("/api/series?track=nope: %s, want no tracks", w.Body)
	}
}

// TestSeriesLatest: a window of a long history: its latest commits, the
// series and change points among them, and whether series were left out.
func TestSeriesLatest(t *testing.T) {
	store := newTrackStore(t)
	h, err := TrackStore{store}.History(context.Background(), "example.com/m@main", track.Window{Commits: 4, Unit: track.Unit, Series: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h.Recorded != 12 || len(h.Commits) != 4 || len(h.Series) != 1 || len(h.Series[0].Points) != 4 || !h.MoreSeries ||
		len(h.Changes) != 1 || h.Changes[0].State != track.StateImproved {
		t.Errorf("latest 4: recorded %d, %d commits, %d series (more %v), changes %+v", h.Recorded, len(h.Commits), len(h.Series), h.MoreSeries, h.Changes)
	}
}
