package track

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
)

// A History is what a store holds of one track, or of a window of it:
// the commits recorded, oldest first, each benchmark's series, and the
// change points with what became of them.
type History struct {
	Track string `json:"track"`
	// Recorded counts the track's commits, in the window or not.
	Recorded int64     `json:"recorded"`
	Commits  []Commit  `json:"commits"`
	Series   []*Series `json:"series"`
	// MoreSeries says that the window left out some series.
	MoreSeries bool      `json:"more_series,omitempty"`
	Changes    []*Change `json:"changes"`
}

// testHookHistory, when set, runs in History once it has read the
// track's last commit: a test records another there.
var testHookHistory func()

// History reads the history of the track called name, the part of it in
// w, ending at the last commit recorded when it begins: a track job
// recording beside it changes none of what it returns.
func (s *Store) History(ctx context.Context, name string, w Window) (*History, error) {
	h := &History{Track: name, Commits: []Commit{}, Series: []*Series{}, Changes: []*Change{}}
	last, err := s.Last(ctx, name)
	if err != nil || last == nil {
		return h, err
	}
	h.Recorded, w.Last = last.Seq, last.Seq
	if testHookHistory != nil {
		testHookHistory()
	}
	if h.Commits, err = s.Commits(ctx, name, w); err != nil {
		return nil, err
	}
	more := w
	if w.Series > 0 {
		more.Series++ // one more, to know whether there are more
	}
	if h.Series, err = s.Series(ctx, name, more); err != nil {
		return nil, err
	}
	if w.Series > 0 && len(h.Series) > w.Series {
		h.Series, h.MoreSeries = h.Series[:w.Series], true
	}
	if h.Changes, err = s.Changes(ctx, name, w); err != nil {
		return nil, err
	}
	h.Commits, h.Series, h.Changes = orEmpty(h.Commits), orEmpty(h.Series), orEmpty(h.Changes)
	return h, nil
}

// orEmpty returns s, or an empty slice for nil: [] in JSON, not null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Write writes h as 'patchbot track -show' prints it: a line for its
// commits and series, then a line for each change point with what became
// of it.
func (h *History) Write(w io.Writer) error {
	if len(h.Commits) == 0 {
		_, err := fmt.Fprintf(w, "%s: nothing recorded yet\n", h.Track)
		return err
	}
	first, last := h.Commits[0], h.Commits[len(h.Commits)-1]
	failed := 0
	for _, c := range h.Commits {
		if c.Error != "" {
			failed++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d commits recorded, %s (%s) to %s (%s), %d without values; %d series\n", h.Track, len(h.Commits),
		abbrev.Hash(first.Hash), first.Time.Format("2006-01-02"), abbrev.Hash(last.Hash), last.Time.Format("2006-01-02"), failed, len(h.Series))
	if len(h.Changes) == 0 {
		b.WriteString("no change points\n")
	}
	for _, c := range h.Changes {
		b.WriteString(c.String() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the change point's line in a history: its series, its size
// and commit, and what became of it.
func (c *Change) String() string {
	s := fmt.Sprintf("%s %s %s: %+.1f%% at %s (after %s): %s", c.Key.Package, c.Key.Name, c.Key.Unit, 100*(c.Ratio()-1), abbrev.Hash(c.Hash), abbrev.Hash(c.Prev), c.State)
	var more []string
	if c.Culprit != "" {
		more = append(more, "culprit "+abbrev.Hash(c.Culprit))
	}
	if c.Comment != "" {
		more = append(more, c.Comment)
	}
	if c.Reason != "" {
		more = append(more, c.Reason)
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, "; ") + ")"
	}
	return s
}
