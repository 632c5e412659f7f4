package freeze

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/patchbot/patchbot/config"
)

// A Window is one release's freeze: the tree is frozen on the days d with
// Freeze <= d < Reopen. Dates are days at midnight UTC.
type Window struct {
	Release     string    // "go1.4"
	Freeze      time.Time // first day of the freeze
	Reopen      time.Time // first day the tree is open again
	ReleaseDate time.Time // the day of the release
	Source      string    // "calendar" or "rule"
	Line        int       // for the calendar: the line in the configuration; 0 if unknown
	File        string    // for the calendar: the file of Line, as Load names it
}

// A Week places an event of a rule's cycle: week Week (the week that
// begins on the Nth Monday) of the month that is Month months after the
// month the cycle's freeze begins in.
type Week struct{ Month, Week int }

// A Rule is a project's release schedule: cycles of CycleMonths months,
// the first for release Prefix+First, whose freeze began in the month of
// FirstFreeze. Go's rule is the default configuration's.
type Rule struct {
	Prefix      string    // "go1."
	First       int       // 20, for go1.20
	FirstFreeze time.Time // the first day of the month First's freeze began in
	CycleMonths int
	Freeze      Week
	Reopen      Week
	Release     Week
}

var trailingNumberRE = regexp.MustCompile(`^(.*?)([0-9]+)$`)

// splitRelease splits a release name into its prefix and trailing number:
// "go1.20" is "go1." and 20.
func splitRelease(name string) (string, int, bool) {
	m := trailingNumberRE.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	return m[1], n, err == nil
}

// ruleFromConfig turns the configuration's rule, already checked, into a
// Rule; nil when the configuration has none.
func ruleFromConfig(c *config.FreezeRule) (*Rule, error) {
	if c.First == "" {
		return nil, nil
	}
	prefix, first, ok := splitRelease(c.First)
	if !ok {
		return nil, fmt.Errorf("freeze.rule.first: %q does not end in a number", c.First)
	}
	y, m, err := c.FirstFreezeMonth()
	if err != nil {
		return nil, fmt.Errorf("freeze.rule.first_freeze: %v", err)
	}
	return &Rule{
		Prefix:      prefix,
		First:       first,
		FirstFreeze: time.Date(y, m, 1, 0, 0, 0, 0, time.UTC),
		CycleMonths: c.CycleMonths,
		Freeze:      Week(c.Freeze),
		Reopen:      Week(c.Reopen),
		Release:     Week(c.Release),
	}, nil
}

// nthMonday returns the day week w of the month m months after base
// begins on: its w-th Monday.
func nthMonday(base time.Time, w Week) time.Time {
	first := base.AddDate(0, w.Month, 0) // base is the 1st, so this is exact
	offset := (int(time.Monday) - int(first.Weekday()) + 7) % 7
	return first.AddDate(0, 0, offset+7*(w.Week-1))
}

// Cycle returns the window of the k-th cycle of the rule (k = 0 is First).
func (r *Rule) Cycle(k int) Window {
	base := r.FirstFreeze.AddDate(0, k*r.CycleMonths, 0)
	return Window{
		Release:     r.Prefix + strconv.Itoa(r.First+k),
		Freeze:      nthMonday(base, r.Freeze),
		Reopen:      nthMonday(base, r.Reopen),
		ReleaseDate: nthMonday(base, r.Release),
		Source:      "rule",
	}
}

// cyclesAround returns the rule's cycles from the first up to two past
// the one that covers day.
func (r *Rule) cyclesAround(day time.Time) []Window {
	months := (day.Year()-r.FirstFreeze.Year())*12 + int(day.Month()-r.FirstFreeze.Month())
	last := max(months/r.CycleMonths+2, 1)
	var ws []Window
	for k := 0; k <= last; k++ {
		ws = append(ws, r.Cycle(k))
	}
	return ws
}

// windows returns the windows that describe day, in order: the calendar's,
// and the rule's for the releases the calendar lacks and where they do not
// overlap a calendar window (the calendar is the record; the rule only a
// plan).
func (s *Sources) windows(day time.Time) []Window {
	ws := slices.Clone(s.Calendar)
	if s.Rule != nil {
	cycles:
		for _, c := range s.Rule.cyclesAround(day) {
			for _, w := range s.Calendar {
				if w.Release == c.Release || (c.Freeze.Before(w.Reopen) && w.Freeze.Before(c.Reopen)) {
					continue cycles
				}
			}
			ws = append(ws, c)
		}
	}
	slices.SortFunc(ws, func(a, b Window) int { return a.Freeze.Compare(b.Freeze) })
	return ws
}

// calendarFromConfig returns the configuration's calendar as windows.
func calendarFromConfig(c config.Calendar) []Window {
	var ws []Window
	for _, name := range c.Names() {
		w := c[name]
		file := "config.yaml"
		if w.FromOverlay {
			file = "the -config file"
		}
		ws = append(ws, Window{
			Release:     name,
			Freeze:      w.Freeze.Time(),
			Reopen:      w.Reopen.Time(),
			ReleaseDate: w.Release.Time(),
			Source:      "calendar",
			Line:        w.Line,
			File:        file,
		})
	}
	return ws
}

// dayOf returns the day of t, in UTC, as midnight UTC.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// date formats a day as YYYY-MM-DD.
func date(t time.Time) string { return t.Format(time.DateOnly) }
