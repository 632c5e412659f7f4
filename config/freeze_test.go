package config

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestFreezeDefault(t *testing.T) {
	f := Default().Freeze
	if len(f.Branches) != 1 || f.Branches[0] != "master" || f.ReleaseBranchPrefix != "release-branch." {
		t.Errorf("branches = %v, prefix %q", f.Branches, f.ReleaseBranchPrefix)
	}
	names := f.Calendar.Names()
	if len(names) < 24 || names[0] != "go1.4" {
		t.Fatalf("calendar = %v, want go1.4 first and every release since", names)
	}
	for i, name := range names {
		if want := "go1." + strconv.Itoa(4+i); name != want {
			t.Errorf("calendar[%d] = %s, want %s", i, name, want)
		}
	}
	w := f.Calendar["go1.4"]
	if w.Freeze.String() != "2014-09-01" || w.Reopen.String() != "2014-12-10" || w.Release.String() != "2014-12-10" || w.Line == 0 {
		t.Errorf("go1.4 = %+v", w)
	}
	if f.Calendar["go1.18"].Release.String() != "2022-03-15" {
		t.Errorf("go1.18 release = %s, want 2022-03-15 (late)", f.Calendar["go1.18"].Release)
	}
	r := f.Rule
	if r.First != "go1.20" || r.FirstFreeze != "2022-11" || r.CycleMonths != 6 || r.Freeze != (RuleWeek{0, 4}) || r.Reopen != (RuleWeek{2, 3}) || r.Release != (RuleWeek{3, 2}) {
		t.Errorf("rule = %+v", r)
	}
	if f.Live.Timeout != 10*time.Second || f.Live.Project != "go" || f.Live.GitHub != "golang/go" {
		t.Errorf("live = %+v", f.Live)
	}
	if got := strings.Join(f.Projects, " "); got != "go.googlesource.com/go go-review.googlesource.com/go github.com/golang/go" {
		t.Errorf("projects = %s; want Go's repositories", got)
	}
}

// TestFreezeProjectPolicy: a file that names its projects writes a policy
// of its own, Go's calendar, rule and live signals left out; one that
// does not edits Go's.
func TestFreezeProjectPolicy(t *testing.T) {
	own, err := Parse("own.yaml", []byte("freeze:\n  projects: [github.com/you/sum]\n  branches: [main]\n  calendar:\n    v2.0: {freeze: 2026-11-16, reopen: 2027-01-11, release: 2027-01-11}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := own.Freeze
	if got := strings.Join(f.Calendar.Names(), " "); got != "v2.0" {
		t.Errorf("a project's own calendar: %s; want v2.0 alone", got)
	}
	if f.Rule != (FreezeRule{}) || f.Live.Gerrit != "" || f.Live.GitHub != "" || f.Live.Downloads != "" || f.Live.Timeout != 10*time.Second {
		t.Errorf("a project's own policy kept Go's: rule %+v, live %+v", f.Rule, f.Live)
	}
	if f.ReleaseBranchPrefix != "release-branch." || strings.Join(f.Branches, " ") != "main" {
		t.Errorf("branches %v, prefix %q", f.Branches, f.ReleaseBranchPrefix)
	}
	ruled, err := Parse("ruled.yaml", []byte("freeze:\n  projects: [\"*\"]\n  rule: {first: v1.0, first_freeze: 2025-01, cycle_months: 12, freeze: {month: 0, week: 1}, reopen: {month: 1, week: 1}, release: {month: 1, week: 1}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ruled.Freeze.Calendar) != 0 || ruled.Freeze.Rule.First != "v1.0" {
		t.Errorf("a project's own rule: calendar %v, rule %+v; want the rule alone", ruled.Freeze.Calendar.Names(), ruled.Freeze.Rule)
	}
	edit, err := Parse("edit.yaml", []byte("freeze:\n  calendar:\n    go1.99: {freeze: 2030-01-01, reopen: 2030-02-01, release: 2030-02-01}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(edit.Freeze.Calendar); n != len(Default().Freeze.Calendar)+1 || edit.Freeze.Rule.First != "go1.20" || len(edit.Freeze.Projects) != 3 {
		t.Errorf("an edit of Go's policy: %d releases, rule %q, projects %v; want Go's and go1.99", n, edit.Freeze.Rule.First, edit.Freeze.Projects)
	}
}

// TestFreezeCalendarMerge checks that a user's calendar adds and replaces
// releases one at a time instead of replacing the whole calendar.
func TestFreezeCalendarMerge(t *testing.T) {
	c, err := Parse("user.yaml", []byte("freeze:\n  calendar:\n    go1.27: {freeze: 2026-05-26, reopen: 2026-07-21, release: 2026-08-11}\n    go1.28: {freeze: 2026-11-24, reopen: 2027-01-19, release: 2027-02-09}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cal := c.Freeze.Calendar
	if cal["go1.4"] == nil || cal["go1.4"].FromOverlay {
		t.Errorf("go1.4 lost or marked as the user's: %+v", cal["go1.4"])
	}
	if w := cal["go1.27"]; w.Freeze.String() != "2026-05-26" || !w.FromOverlay || w.Line != 3 {
		t.Errorf("go1.27 = %+v", w)
	}
	if w := cal["go1.28"]; w == nil || w.Release.String() != "2027-02-09" || w.Line != 4 {
		t.Errorf("go1.28 = %+v", w)
	}
	// The built-in configuration is untouched.
	if Default().Freeze.Calendar["go1.28"] != nil {
		t.Error("Default() has the user's go1.28")
	}
}

func TestFreezeErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// Inverted and overlapping windows name the calendar's line and
		// the window's own.
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-05-01, reopen: 2027-04-01, release: 2027-08-01}\n",
			"user.yaml:2: freeze.calendar: go1.30 (line 3): inverted window: reopen 2027-04-01 is not after freeze 2027-05-01"},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-05-01, reopen: 2027-05-01, release: 2027-08-01}\n",
			"user.yaml:2: freeze.calendar: go1.30 (line 3): inverted window: reopen 2027-05-01 is not after freeze 2027-05-01"},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-05-01, reopen: 2027-07-01, release: 2027-04-01}\n",
			"user.yaml:2: freeze.calendar: go1.30 (line 3): release 2027-04-01 is not after freeze 2027-05-01"},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2026-06-01, reopen: 2026-09-01, release: 2026-09-10}\n",
			"user.yaml:2: freeze.calendar: go1.30 (line 3): window 2026-06-01..2026-09-01 overlaps go1.27's window 2026-05-25..2026-07-20"},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-05-01, reopen: 2027-07-01, release: 2027-08-01}\n    go1.31: {freeze: 2027-06-01, reopen: 2027-09-01, release: 2027-10-01}\n",
			"user.yaml:2: freeze.calendar: go1.31 (line 4): window 2027-06-01..2027-09-01 overlaps go1.30's window 2027-05-01..2027-07-01"},
		// A window the user wrote is blamed, not the built-in one it hits.
		{"freeze:\n  calendar:\n    go1.3: {freeze: 2014-08-01, reopen: 2014-09-15, release: 2014-09-15}\n",
			"user.yaml:2: freeze.calendar: go1.3 (line 3): window 2014-08-01..2014-09-15 overlaps go1.4's window 2014-09-01..2014-12-10"},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-13-01, reopen: 2027-04-01, release: 2027-08-01}\n",
			`user.yaml:3: freeze.calendar: go1.30 (line 3): freeze: "2027-13-01" is not a date like 2014-12-10`},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-05-01, reopen: 2027-07-01}\n",
			"user.yaml:2: freeze.calendar: go1.30 (line 3): no release date"},
		{"freeze:\n  calendar:\n    go1.30: {freeze: 2027-05-01, reopn: 2027-07-01}\n",
			"user.yaml:3: freeze.calendar: go1.30 (line 3): reopn: unknown key (known keys here: freeze, release, reopen)"},
		{"freeze:\n  calendar:\n    go 1.30: {freeze: 2027-05-01}\n",
			`user.yaml:3: freeze.calendar: "go 1.30" (line 3) is not a release name like go1.4`},
		{"freeze:\n  calendar:\n    - go1.30\n",
			"user.yaml:3: freeze.calendar: must be a mapping of releases to windows like go1.4: {freeze: 2014-09-01, reopen: 2014-12-10, release: 2014-12-10}, not a list"},
		{"freeze:\n  branches: []\n", "user.yaml:2: freeze.branches: must name at least one branch, like master"},
		{"freeze:\n  projects: [\"*\"]\n", `user.yaml:2: freeze.projects: the policy has neither a calendar nor a rule (freeze.calendar, freeze.rule.first) to answer from: a file that names freeze.projects writes a whole policy, without Go's calendar and rule; give its own`},
		{"freeze:\n  projects: []\n", `user.yaml:2: freeze.projects: must name at least one repository, like github.com/golang/go, or "*" for every repository`},
		{"freeze:\n  projects: [https://github.com/golang/go]\n", `user.yaml:2: freeze.projects: "https://github.com/golang/go": want the repository's host and path without a scheme, like github.com/golang/go`},
		{"freeze:\n  projects: [github.com/golang/go.git]\n", `user.yaml:2: freeze.projects: "github.com/golang/go.git": want the repository's host and path without .git or a final slash, like github.com/golang/go`},
		{"freeze:\n  projects: [golang/go]\n", `user.yaml:2: freeze.projects: "golang/go" is not a repository's host and path, like github.com/golang/go (or "*" for every repository)`},
		{"freeze:\n  projects: [github.com]\n", `user.yaml:2: freeze.projects: "github.com" is not a repository's host and path, like github.com/golang/go (or "*" for every repository)`},
		{"freeze:\n  projects: [\"github.com:8443/golang/go\"]\n", `user.yaml:2: freeze.projects: "github.com:8443/golang/go" is not a repository's host and path, like github.com/golang/go (or "*" for every repository)`},
		{"freeze:\n  rule:\n    first: go\n", `user.yaml:3: freeze.rule.first: "go" is not a release name ending in a number, like go1.20`},
		{"freeze:\n  rule:\n    first_freeze: November\n", `user.yaml:3: freeze.rule.first_freeze: "November" is not a month like 2022-11`},
		{"freeze:\n  rule:\n    cycle_months: 0\n", "user.yaml:3: freeze.rule.cycle_months: must be from 1 to 24"},
		{"freeze:\n  rule:\n    freeze: {month: 0, week: 5}\n", "user.yaml:3: freeze.rule.freeze.week: must be from 1 to 4 (week N begins on the month's Nth Monday)"},
		{"freeze:\n  rule:\n    reopen: {month: 0, week: 2}\n", "user.yaml:3: freeze.rule.reopen: inverted rule: the tree must reopen after the freeze begins"},
		{"freeze:\n  rule:\n    reopen: {month: 7, week: 3}\n", "user.yaml:3: freeze.rule.reopen: the tree must reopen before the next cycle's freeze: the windows would overlap"},
		{"freeze:\n  rule:\n    release: {month: 0, week: 1}\n", "user.yaml:3: freeze.rule.release: the release must come after the freeze begins"},
		{"freeze:\n  rule:\n    every: 6\n", "user.yaml:3: freeze.rule.every: unknown key (known keys here: cycle_months, first, first_freeze, freeze, release, reopen)"},
		{"freeze:\n  live:\n    gerrit: go-review.googlesource.com\n", `user.yaml:3: freeze.live.gerrit: "go-review.googlesource.com" is not an http:// or https:// URL`},
		{"freeze:\n  live:\n    downloads: https://me:pw@go.dev/dl/\n", "user.yaml:3: freeze.live.downloads: must not hold credentials; see 'patchbot doc review' for where they go"},
		{"freeze:\n  live:\n    project: \"\"\n", "user.yaml:3: freeze.live.project: must name the Gerrit project of the release branches, like go"},
		{"freeze:\n  live:\n    github: golang\n", `user.yaml:3: freeze.live.github: "golang" is not a repository like golang/go`},
		{"freeze:\n  live:\n    timeout: 0s\n", "user.yaml:3: freeze.live.timeout: must be a positive duration like 10s"},
	}
	for _, tt := range tests {
		_, err := Parse("user.yaml", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

// TestFreezeRoundTrip checks that the freeze section prints as it is
// read, so that 'patchbot config' output is a valid configuration.
func TestFreezeRoundTrip(t *testing.T) {
	def := Default()
	out, err := yaml.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "go1.4: {freeze: 2014-09-01, reopen: 2014-12-10, release: 2014-12-10}") {
		t.Errorf("printed calendar:\n%s", out)
	}
	c, err := Parse("printed.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	got, want := c.Freeze.Calendar, def.Freeze.Calendar
	if len(got) != len(want) {
		t.Fatalf("%d windows read back, want %d", len(got), len(want))
	}
	for name, w := range want {
		g := got[name]
		if g == nil || g.Freeze != w.Freeze || g.Reopen != w.Reopen || g.Release != w.Release {
			t.Errorf("%s read back as %+v, want %+v", name, g, w)
		}
	}
	if c.Freeze.Rule != def.Freeze.Rule || c.Freeze.Live != def.Freeze.Live {
		t.Errorf("rule or live changed: %+v %+v", c.Freeze.Rule, c.Freeze.Live)
	}
}
