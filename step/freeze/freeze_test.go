package freeze

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/config"
)

// defaultSources returns the built-in configuration's sources, offline.
func defaultSources(t *testing.T) *Sources {
	t.Helper()
	s, err := FromConfig(&config.Default().Freeze, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestCheckCalendarAndRule checks the built-in calendar and rule on the
// founding story's days, inside and on the edges of recent freezes, and
// beyond the calendar, where the rule answers.
func TestCheckCalendarAndRule(t *testing.T) {
	tests := []struct {
		at      string
		frozen  bool
		release string
		source  string
		freeze  string // the freeze of release ("" to skip)
		reopen  string
	}{
		// The founding story: mailed during the Go 1.4 freeze, and the
		// tree open again before Christmas.
		{"2014-11-06", true, "go1.4", "calendar", "2014-09-01", "2014-12-10"},
		{"2014-12-22", false, "go1.5", "calendar", "2015-05-01", "2015-08-19"},
		// Go 1.4's edges: the freeze's first day is frozen, the reopening
		// day open.
		{"2014-08-31", false, "go1.4", "calendar", "2014-09-01", ""},
		{"2014-09-01", true, "go1.4", "calendar", "", ""},
		{"2014-12-09", true, "go1.4", "calendar", "", ""},
		{"2014-12-10", false, "go1.5", "calendar", "", ""},
		// Go 1.18, released late: frozen until its release.
		{"2022-03-14", true, "go1.18", "calendar", "2021-11-01", "2022-03-15"},
		{"2022-03-15", false, "go1.19", "calendar", "", ""},
		// Recent releases: inside each freeze and each open window.
		{"2023-01-02", true, "go1.20", "calendar", "2022-11-28", "2023-01-16"},
		{"2023-03-01", false, "go1.21", "calendar", "2023-05-22", "2023-07-17"},
		{"2023-06-15", true, "go1.21", "calendar", "", ""},
		{"2023-09-01", false, "go1.22", "calendar", "", ""},
		{"2023-12-15", true, "go1.22", "calendar", "2023-11-27", "2024-01-15"},
		{"2024-03-01", false, "go1.23", "calendar", "", ""},
		{"2024-06-15", true, "go1.23", "calendar", "2024-05-27", "2024-07-15"},
		{"2024-09-01", false, "go1.24", "calendar", "", ""},
		{"2024-12-15", true, "go1.24", "calendar", "2024-11-25", "2025-01-20"},
		{"2025-03-01", false, "go1.25", "calendar", "", ""},
		{"2025-06-15", true, "go1.25", "calendar", "2025-05-26", "2025-07-21"},
		{"2025-09-01", false, "go1.26", "calendar", "", ""},
		{"2025-12-15", true, "go1.26", "calendar", "2025-11-24", "2026-01-19"},
		{"2026-06-15", true, "go1.27", "calendar", "2026-05-25", "2026-07-20"},
		// Boundary days of Go 1.25's window.
		{"2025-05-25", false, "go1.25", "calendar", "", ""},
		{"2025-05-26", true, "go1.25", "calendar", "", ""},
		{"2025-07-20", true, "go1.25", "calendar", "", ""},
		{"2025-07-21", false, "go1.26", "calendar", "", ""},
		// Beyond the calendar, the rule: week 4 of November, week 3 of
		// January, and so on.
		{"2026-09-01", false, "go1.28", "rule", "2026-11-23", "2027-01-18"},
		{"2026-11-22", false, "go1.28", "rule", "", ""},
		{"2026-11-23", true, "go1.28", "rule", "", ""},
		{"2026-11-30", true, "go1.28", "rule", "2026-11-23", "2027-01-18"},
		{"2027-01-17", true, "go1.28", "rule", "", ""},
		{"2027-01-18", false, "go1.29", "rule", "2027-05-24", "2027-07-19"},
		{"2027-06-01", true, "go1.29", "rule", "", ""},
		{"2031-12-01", true, "go1.38", "rule", "2031-11-24", "2032-01-19"},
	}
	s := defaultSources(t)
	for _, tt := range tests {
		st, err := Check(context.Background(), s, "master", day(tt.at))
		if err != nil {
			t.Errorf("%s: %v", tt.at, err)
			continue
		}
		if st.Frozen != tt.frozen || st.Release != tt.release || st.Source != tt.source {
			t.Errorf("%s: frozen=%v release=%s source=%s, want %v %s %s", tt.at, st.Frozen, st.Release, st.Source, tt.frozen, tt.release, tt.source)
		}
		if tt.freeze != "" && date(st.FreezeStart) != tt.freeze {
			t.Errorf("%s: freeze start %s, want %s", tt.at, date(st.FreezeStart), tt.freeze)
		}
		if tt.reopen != "" && date(st.Reopen) != tt.reopen {
			t.Errorf("%s: reopen %s, want %s", tt.at, date(st.Reopen), tt.reopen)
		}
	}
}

// TestRuleMatchesCurrentCalendar checks the rule against the calendar's
// windows since Go 1.20, which follow it: the rule as data must say what
// the wiki says.
func TestRuleMatchesCurrentCalendar(t *testing.T) {
	s := defaultSources(t)
	byName := make(map[string]Window)
	for _, w := range s.Calendar {
		byName[w.Release] = w
	}
	for k := range 6 { // go1.20 .. go1.25 (go1.26 and go1.27 are rule dates throughout)
		c := s.Rule.Cycle(k)
		w, ok := byName[c.Release]
		if !ok {
			t.Fatalf("calendar has no %s", c.Release)
		}
		if !c.Freeze.Equal(w.Freeze) || !c.Reopen.Equal(w.Reopen) {
			t.Errorf("%s: rule %s..%s, calendar %s..%s", c.Release, date(c.Freeze), date(c.Reopen), date(w.Freeze), date(w.Reopen))
		}
		for _, d := range []time.Time{c.Freeze, c.Reopen, c.ReleaseDate} {
			if d.Weekday() != time.Monday {
				t.Errorf("%s: rule date %s is a %s, not a Monday", c.Release, date(d), d.Weekday())
			}
		}
	}
}

// TestCheckEveryCalendarWindow walks every window of the built-in
// calendar: its first and last frozen days and the days around them.
func TestCheckEveryCalendarWindow(t *testing.T) {
	s := defaultSources(t)
	for _, w := range s.Calendar {
		for _, c := range []struct {
			at     time.Time
			frozen bool
		}{
			{w.Freeze.AddDate(0, 0, -1), false},
			{w.Freeze, true},
			{w.Reopen.AddDate(0, 0, -1), true},
			{w.Reopen, false},
		} {
			st, err := Check(context.Background(), s, "master", c.at.Add(13*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if st.Frozen != c.frozen || (c.frozen && st.Release != w.Release) {
				t.Errorf("%s on %s: frozen=%v for %s, want %v", w.Release, date(c.at), st.Frozen, st.Release, c.frozen)
			}
		}
	}
}

func TestCheckBranches(t *testing.T) {
	s := defaultSources(t)
	st, err := Check(context.Background(), s, "release-branch.go1.4", day("2014-11-06"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Frozen || !st.ReleaseBranch || st.Release != "go1.4" {
		t.Errorf("release branch: %+v", st)
	}
	if got, want := st.Line(), "release-branch.go1.4 is a release branch: the release freeze does not apply to it."; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	// A branch no policy governs is open, and said so, whatever the
	// day: never another project's release, never an error.
	for _, b := range []string{"main", "dev.typeparams", "release-branch."} {
		st, err := Check(context.Background(), s, b, day("2014-11-06"))
		if err != nil || st.Frozen || !st.NoPolicy || st.Release != "" || st.Governed() {
			t.Errorf("Check(%q) = %+v, %v; want open, no policy", b, st, err)
			continue
		}
		if got, want := st.Line(), "No freeze policy governs "+b+": it is open."; got != want {
			t.Errorf("Line() = %q, want %q", got, want)
		}
	}
	if _, err := Check(context.Background(), s, "", day("2014-11-06")); err == nil {
		t.Error(`Check("") took no branch for one`)
	}
}

// TestCheckProject: Go's policy is for Go's repositories; another
// project's master, or a repository that cannot say which it is, has no
// freeze policy, and "*" governs any.
func TestCheckProject(t *testing.T) {
	s := defaultSources(t)
	at := day("2014-11-06") // in the Go 1.4 freeze
	tests := []struct {
		projects []string // nil: the built-in configuration's
		project  string
		governed bool
		fact     string
	}{
		{nil, "go.googlesource.com/go", true, ""},
		{nil, "github.com/golang/go", true, ""},
		{nil, "GitHub.com/GoLang/Go", true, ""},
		{nil, "go-review.googlesource.com/go", true, ""},
		{nil, "github.com/example/sum", false, "no freeze policy governs github.com/example/sum: the freeze policy is for go.googlesource.com/go, go-review.googlesource.com/go, github.com/golang/go (freeze.projects)"},
		{nil, "go.googlesource.com/go2", false, "no freeze policy governs go.googlesource.com/go2"},
		{nil, "", false, `no freeze policy governs this repository: it has no remote to tell which project it is, and the freeze policy is for go.googlesource.com/go, go-review.googlesource.com/go, github.com/golang/go (freeze.projects; "*" is for every repository)`},
		{[]string{"*"}, "", true, ""},
		{[]string{"*"}, "github.com/example/sum", true, ""},
		{[]string{"github.com/example/sum"}, "github.com/example/sum", true, ""},
		{[]string{"github.com/example/sum"}, "github.com/golang/go", false, "the freeze policy is for github.com/example/sum (freeze.projects)"},
	}
	for _, tt := range tests {
		src := *s
		if tt.projects != nil {
			src.Projects = tt.projects
		}
		st, err := CheckProject(context.Background(), &src, tt.project, "master", at)
		if err != nil {
			t.Fatalf("CheckProject(%v, %q): %v", src.Projects, tt.project, err)
		}
		if st.Project != tt.project || st.Governed() != tt.governed || st.Frozen != tt.governed {
			t.Errorf("CheckProject(%v, %q) = project %q, governed %v, frozen %v; want governed and frozen %v", src.Projects, tt.project, st.Project, st.Governed(), st.Frozen, tt.governed)
			continue
		}
		if tt.governed {
			continue
		}
		if got, want := st.Line(), "No freeze policy governs master: it is open."; got != want {
			t.Errorf("CheckProject(%v, %q): Line() = %q, want %q", src.Projects, tt.project, got, want)
		}
		if len(st.Facts) != 1 || !strings.Contains(st.Facts[0].Text, tt.fact) {
			t.Errorf("CheckProject(%v, %q): facts %+v; want one containing %q", src.Projects, tt.project, st.Facts, tt.fact)
		}
	}
	if _, err := CheckProject(context.Background(), s, "github.com/golang/go", "", at); err == nil {
		t.Error(`CheckProject with no branch took none for one`)
	}
}

func TestLine(t *testing.T) {
	s := defaultSources(t)
	tests := []struct{ at, want string }{
		{"2014-11-06", "The tree is frozen for Go 1.4 since 2014-09-01 (calendar); it is expected to reopen around 2014-12-10."},
		{"2014-12-22", "The tree is open for Go 1.5 development (calendar); its freeze is expected to begin around 2015-05-01."},
		{"2026-11-30", "The tree is frozen for Go 1.28 since 2026-11-23 (rule); it is expected to reopen around 2027-01-18."},
	}
	for _, tt := range tests {
		st, err := Check(context.Background(), s, "master", day(tt.at))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Line(); got != tt.want {
			t.Errorf("%s: Line() =\n%q, want\n%q", tt.at, got, tt.want)
		}
	}
	if got, want := (&Status{Frozen: true, Release: "go1.28", Source: "gerrit"}).Line(), "The tree is frozen for Go 1.28 (gerrit); when it reopens is not known."; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}

// TestCheckUserCalendar checks that a window a user adds takes effect and
// that, where the calendar has a release, the rule's cycle for it is not
// used.
func TestCheckUserCalendar(t *testing.T) {
	c, err := config.Parse("user.yaml", []byte("freeze:\n  calendar:\n    go1.28: {freeze: 2026-12-01, reopen: 2027-01-25, release: 2027-02-10}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromConfig(&c.Freeze, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		at     string
		frozen bool
		source string
	}{
		{"2026-11-30", false, "calendar"}, // the rule said frozen from 2026-11-23
		{"2026-12-01", true, "calendar"},
		{"2027-01-20", true, "calendar"},
		{"2027-01-25", false, "rule"}, // open for go1.29, from the rule
	} {
		st, err := Check(context.Background(), s, "master", day(tt.at))
		if err != nil {
			t.Fatal(err)
		}
		if st.Frozen != tt.frozen || st.Source != tt.source {
			t.Errorf("%s: frozen=%v source=%s, want %v %s", tt.at, st.Frozen, st.Source, tt.frozen, tt.source)
		}
	}
}

func TestCheckNoRule(t *testing.T) {
	c, err := config.Parse("user.yaml", []byte("freeze:\n  rule:\n    first: \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromConfig(&c.Freeze, true)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Check(context.Background(), s, "master", day("2030-01-01"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Frozen || st.Release != "" {
		t.Errorf("beyond the calendar without a rule: %+v", st)
	}
	if got, want := st.Line(), "The tree is open (calendar); no source knows of a coming freeze."; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}

func TestDisplay(t *testing.T) {
	for in, want := range map[string]string{"go1.4": "Go 1.4", "go1.28": "Go 1.28", "v2.3": "v2.3", "gopls": "gopls"} {
		if got := Display(in); got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheckLastDays checks the days at the end of what JSON can write: an
// answer that would name a date after 9999-12-31 is refused with a
// *DateError, and every answer given marshals as JSON.
func TestCheckLastDays(t *testing.T) {
	s := defaultSources(t)
	tests := []struct {
		at   string
		want string // the error, or "" for an answer
	}{
		{"9998-12-31", ""},
		{"9999-06-01", ""}, // frozen; reopens in July 9999
		{"9999-08-31", "9999-08-31: the answer would name a date after 9999-12-31 (reopens +10000-01-17), which no output can show; ask about an earlier day"},
		{"9999-12-31", "9999-12-31: the answer would name a date after 9999-12-31 (reopens +10000-01-17), which no output can show; ask about an earlier day"},
		{"0000-01-01", ""},
	}
	for _, tt := range tests {
		st, err := Check(context.Background(), s, "master", day(tt.at))
		if tt.want != "" {
			if _, ok := errors.AsType[*DateError](err); !ok || err.Error() != tt.want {
				t.Errorf("Check(%s) = %v, want *DateError %q", tt.at, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Check(%s): %v", tt.at, err)
			continue
		}
		if _, err := json.Marshal(st); err != nil {
			t.Errorf("Check(%s): the answer does not marshal: %v", tt.at, err)
		}
	}
}
