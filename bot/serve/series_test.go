package serve

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/db"
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
	db, err := db.OpenSQL(ctx, db.Database{Engine: "sqlite", Path: t.TempDir() + "/q.db"})
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
	e := newEnv(t, false, func(c *Config) { c.Tracks = store })
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
// The first series by name, hostile's, changed before the window; the
// second's change, in it, is left out with its series.
func TestSeriesLatest(t *testing.T) {
	store := newTrackStore(t)
	for _, c := range []struct {
		series  int
		more    bool
		changes []string // the states of the change points read
	}{
		{1, true, nil},
		{2, false, []string{track.StateImproved}},
	} {
		h, err := store.History(context.Background(), "example.com/m@main", track.Window{Commits: 4, Unit: track.Unit, Series: c.series})
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, ch := range h.Changes {
			states = append(states, ch.State)
		}
		if h.Recorded != 12 || len(h.Commits) != 4 || len(h.Series) != c.series || len(h.Series[0].Points) != 4 || h.Series[0].Key.Name != hostile ||
			h.MoreSeries != c.more || !slices.Equal(states, c.changes) {
			t.Errorf("latest 4, %d series: recorded %d, %d commits, %d series (more %v), changes %q; want %d series (more %v), changes %q",
				c.series, h.Recorded, len(h.Commits), len(h.Series), h.MoreSeries, states, c.series, c.more, c.changes)
		}
	}
}

// TestSeriesMore: a track with more time series than the page plots says
// so, with a link to /api/series for that track's time series; the track's
// name (a branch's, the pusher's choice) stays one query value, in the
// link as in the page, and the API gives the series of the unit asked.
func TestSeriesMore(t *testing.T) {
	ctx := context.Background()
	db, err := db.OpenSQL(ctx, db.Database{Engine: "sqlite", Path: t.TempDir() + "/q.db"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := track.Open(ctx, db, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	const name = `example.com/m@x"><script>alert(1)</script>&unit=B/op#`
	for i := range 2 {
		var values []track.Value
		for j := range MaxSeriesPlots + 1 {
			bench := fmt.Sprintf("B%03d-2", j)
			values = append(values,
				track.Value{Key: track.SeriesKey{Package: "example.com/m", Name: bench, Unit: "sec/op"}, Value: 1e-6, N: 1},
				track.Value{Key: track.SeriesKey{Package: "example.com/m", Name: bench, Unit: "B/op"}, Value: 8, N: 1})
		}
		if _, err := store.Add(ctx, name, &track.Commit{Hash: strings.Repeat(strconv.Itoa(i+1), 40)}, values); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, false, func(c *Config) { c.Tracks = store })
	page := e.serve(httptest.NewRequest("GET", "/", nil)).Body.String()
	m := regexp.MustCompile(`and more series than these (\d+): <a href="([^"]*)">/api/series</a> gives the first (\d+)`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page does not say there are more series, with a link:\n%s", page)
	}
	if m[1] != strconv.Itoa(MaxSeriesPlots) || m[3] != strconv.Itoa(MaxAPISeries) || strings.Contains(page, "<script") {
		t.Errorf("the page says: %s", m[0])
	}
	link := html.UnescapeString(m[2])
	u, err := url.Parse(link)
	if err != nil || u.IsAbs() || u.Path != "api/series" || u.Query().Get("track") != name || u.Query().Get("unit") != "sec/op" {
		t.Fatalf("link %q: %v; want api/series, this track, sec/op", link, err)
	}
	w := e.serve(httptest.NewRequest("GET", "/"+link, nil))
	var api struct {
		Tracks []track.History `json:"tracks"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &api); err != nil {
		t.Fatalf("%s: %v\n%s", link, err, w.Body)
	}
	if len(api.Tracks) != 1 || api.Tracks[0].Track != name || len(api.Tracks[0].Series) != MaxSeriesPlots+1 || api.Tracks[0].MoreSeries {
		t.Fatalf("%s: %d tracks, want 1 of %d series, all sec/op", link, len(api.Tracks), MaxSeriesPlots+1)
	}
	for _, s := range api.Tracks[0].Series {
		if s.Key.Unit != "sec/op" {
			t.Errorf("%s: a series of %s", link, s.Key)
		}
	}
	if w := e.serve(httptest.NewRequest("GET", "/api/series?unit="+strings.Repeat("x", maxQueryValue+1), nil)); w.Code != http.StatusBadRequest {
		t.Errorf("/api/series with a unit of %d bytes: %d, want 400", maxQueryValue+1, w.Code)
	}
}
