package serve

import (
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/track"
)

// Tracks reads the histories patchbot track keeps, for the status page's
// series and /api/series: a *track.Store.
type Tracks interface {
	// Tracks returns the tracks' names, sorted, at most limit of them.
	Tracks(ctx context.Context, limit int) ([]string, error)
	// History returns the part of the named track's history in w.
	History(ctx context.Context, name string, w track.Window) (*track.History, error)
}

var _ Tracks = (*track.Store)(nil)

// Bounds of what the page and /api/series read and show, whatever the
// database holds (the page is public): tracks, the latest commits of a
// track, and its series, the page's of time only.
const (
	MaxTracks       = 20
	MaxSeriesPoints = 500
	MaxSeriesPlots  = 50
	MaxAPISeries    = 200
)

// histories reads the tracks' histories in w, at most MaxTracks of them;
// only the one named when name is not "".
func (h *Handler) histories(ctx context.Context, name string, w track.Window) ([]*track.History, error) {
	if h.cfg.Tracks == nil {
		return []*track.History{}, nil
	}
	names := []string{name}
	if name == "" {
		var err error
		if names, err = h.cfg.Tracks.Tracks(ctx, MaxTracks); err != nil {
			return nil, err
		}
	}
	out := []*track.History{}
	for _, n := range names {
		hist, err := h.cfg.Tracks.History(ctx, n, w)
		if err != nil {
			return nil, err
		}
		if hist.Recorded > 0 {
			out = append(out, hist)
		}
	}
	return out, nil
}

// apiSeries serves GET /api/series: the tracks' histories as JSON
// ({"tracks": [...]}, each as track.History has it), or one track's with
// ?track=NAME: the latest MaxSeriesPoints commits of each, and of their
// series the first MaxAPISeries by package, name and unit, of one unit
// with ?unit=UNIT ("sec/op": those the page plots, four times as many).
func (h *Handler) apiSeries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, unit := q.Get("track"), q.Get("unit")
	if len(name) > maxQueryValue || len(unit) > maxQueryValue {
		http.Error(w, fmt.Sprintf("track, unit: want at most %d bytes", maxQueryValue), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	hs, err := h.histories(ctx, name, track.Window{Commits: MaxSeriesPoints, Unit: unit, Series: MaxAPISeries})
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "series", slog.String("error", err.Error()))
		http.Error(w, "track history: not answering", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, map[string]any{"tracks": hs})
}

// maxQueryValue bounds /api/series's track and unit: longer than any
// track's name or unit, short enough for a log line.
const maxQueryValue = 512

// pageWindow is the part of a track's history the status page reads and
// plots.
var pageWindow = track.Window{Commits: MaxSeriesPoints, Unit: track.Unit, Series: MaxSeriesPlots}

// A pageTrack is a track on the status page: its plots, one per time
// series.
type pageTrack struct {
	Name     string
	Recorded int64 // commits recorded
	Shown    int   // of them, the latest ones plotted
	Plots    []template.HTML
	More     bool // series not plotted
}

// pageTracks returns the status page's tracks, of histories read in the
// page's window (pageWindow).
func pageTracks(hs []*track.History) []pageTrack {
	var out []pageTrack
	for _, h := range hs {
		pt := pageTrack{Name: h.Track, Recorded: h.Recorded, Shown: len(h.Commits), More: h.MoreSeries}
		subjects := map[string]string{}
		for _, c := range h.Commits {
			subjects[c.Hash] = c.Subject
		}
		for _, s := range h.Series {
			var changes []*track.Change
			for _, c := range h.Changes {
				if c.Key == s.Key {
					changes = append(changes, c)
				}
			}
			pt.Plots = append(pt.Plots, plotSeries(s, changes, subjects))
		}
		out = append(out, pt)
	}
	return out
}

// The series plot's geometry.
const (
	seriesHeight = 170
	seriesTop    = 34
	seriesBottom = 30
	seriesLeft   = 70
)

// plotSeries returns an SVG plot of a benchmark's time along the branch:
// a point per recorded commit (its hash, subject and value in a tooltip),
// and a vertical line at each change point, red for a slowdown and green
// for a speedup, labelled with the change and, once bisected, the culprit,
// linked to its comment when there is one.
//
// The names, subjects and reasons are the history's authors' text, and
// the comment's URL a review server's: every text is escaped (esc), and a
// link is made only of an http or https URL, so the SVG is safe to put
// into the page as it is.
func plotSeries(s *track.Series, changes []*track.Change, subjects map[string]string) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="sans-serif" font-size="12">`,
		plotWidth, seriesHeight, plotWidth, seriesHeight)
	title := s.Key.Package + " " + s.Key.Name
	fmt.Fprintf(&b, `<title>%s</title><text x="0" y="14" font-weight="bold">%s</text>`, esc(title, 200), esc(title, 100))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range s.Points {
		if isFinite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		b.WriteString(`</svg>`)
		return template.HTML(b.String())
	}
	pad := (hi - lo) * 0.1
	if pad == 0 {
		pad = math.Abs(hi)*0.05 + 1e-12
	}
	lo, hi = lo-pad, hi+pad
	x0, x1 := float64(seriesLeft), float64(plotWidth-plotRight)
	y0, y1 := float64(seriesHeight-seriesBottom), float64(seriesTop)
	n := len(s.Points)
	x := func(i int) float64 {
		if n == 1 {
			return (x0 + x1) / 2
		}
		return x0 + float64(i)/float64(n-1)*(x1-x0)
	}
	y := func(v float64) float64 { return y0 - (v-lo)/(hi-lo)*(y0-y1) }
	cls := benchunit.ClassOf(s.Key.Unit)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`, x0, y0, x1, y0)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" fill="#555" text-anchor="end">%s</text>`, x0-4, y1+4, esc(benchunit.Scale(hi, cls)+"s", 20))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" fill="#555" text-anchor="end">%s</text>`, x0-4, y0, esc(benchunit.Scale(lo, cls)+"s", 20))
	index := map[string]int{}
	var pts []string
	for i, v := range s.Points {
		index[s.Hashes[i]] = i
		if isFinite(v) {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
		}
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, strings.Join(pts, " "), colorOld)
	for i, v := range s.Points {
		if isFinite(v) {
			tip := abbrev.Hash(s.Hashes[i]) + " " + subjects[s.Hashes[i]] + ": " + benchunit.Scale(v, cls) + "s"
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s</title></circle>`, x(i), y(v), colorOld, esc(tip, 200))
		}
	}
	fmt.Fprintf(&b, `<text x="%g" y="%d" font-size="10" fill="#555">%s</text>`, x0, seriesHeight-8, esc(abbrev.Hash(s.Hashes[0]), 20))
	fmt.Fprintf(&b, `<text x="%g" y="%d" font-size="10" fill="#555" text-anchor="end">%s</text>`, x1, seriesHeight-8, esc(abbrev.Hash(s.Hashes[n-1]), 20))
	for _, c := range changes {
		i, ok := index[c.Hash]
		if !ok {
			continue
		}
		color := colorNew
		if c.State == track.StateImproved {
			color = "#2ca02c"
		}
		cx := (x(i) + x(max(i-1, 0))) / 2
		label := fmt.Sprintf("%+.1f%%", 100*(c.Ratio()-1))
		if c.Culprit != "" {
			label += " " + abbrev.Hash(c.Culprit)
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="%s" stroke-dasharray="4 3"/>`, cx, y1-8, cx, y0, color)
		tip := fmt.Sprintf("%s at %s (after %s): %s", label, abbrev.Hash(c.Hash), abbrev.Hash(c.Prev), c.State)
		if c.Reason != "" {
			tip += ": " + c.Reason
		}
		text := fmt.Sprintf(`<text x="%.1f" y="%g" font-size="11" fill="%s" text-anchor="middle">%s<title>%s</title></text>`, cx, y1-10, color, esc(label, 40), esc(tip, 400))
		if u := safeURL(c.Comment); u != "" {
			text = fmt.Sprintf(`<a href="%s">%s</a>`, esc(u, 2000), text)
		}
		b.WriteString(text)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text above went through esc
}

// safeURL returns s when it is an absolute http or https URL, "" otherwise.
func safeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}
