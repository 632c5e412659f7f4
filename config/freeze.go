package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Freeze is the freeze section: how 'patchbot freeze' tells whether a branch
// is frozen for a release. Its sources, in order of trust, are the calendar
// (dates from public records), the schedule rule (for dates beyond the
// calendar) and live signals from the project's servers.
type Freeze struct {
	// Branches are the branches the release freeze applies to, such as
	// master. Any other branch but a release branch has no freeze policy:
	// it is open, and the answer names these, so that a misspelt branch
	// shows.
	Branches []string `yaml:"branches" json:"branches"`

	// Projects are the repositories the policy is for, each as its host
	// and path ("github.com/golang/go", "go.googlesource.com/go"), or
	// "*" for every repository (a configuration written for one
	// project). A change to any other repository has no freeze policy,
	// whatever its branch: one project's release is not another's. A
	// repository is known by the URL it was fetched from (serve) or by
	// its remote named origin (run); one with neither is governed only
	// by "*".
	Projects []string `yaml:"projects" json:"projects"`

	// ReleaseBranchPrefix starts the name of a release branch, such as
	// release-branch. for release-branch.go1.4: the freeze of the main tree
	// does not apply to those.
	ReleaseBranchPrefix string `yaml:"release_branch_prefix" json:"release_branch_prefix"`

	// Calendar holds the freeze windows that are known: per release, when
	// the freeze began, when the tree reopened and when the release was
	// made. A file given with -config adds releases to it or replaces
	// them one at a time.
	Calendar Calendar `yaml:"calendar" json:"calendar"`

	// Rule is the project's schedule, for releases the calendar lacks.
	Rule FreezeRule `yaml:"rule" json:"rule"`

	// Live says where the live signals come from.
	Live FreezeLive `yaml:"live" json:"live"`
}

// A Date is a calendar day, written YYYY-MM-DD. It is a day, not an
// instant: a freeze that begins on 2014-09-01 covers that whole day
// wherever the reader is, so dates are kept at midnight UTC.
type Date struct{ t time.Time }

// MakeDate returns the Date of year, month and day.
func MakeDate(year int, month time.Month, day int) Date {
	return Date{time.Date(year, month, day, 0, 0, 0, 0, time.UTC)}
}

// ParseDate parses YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("%q is not a date like 2014-12-10", s)
	}
	return Date{t}, nil
}

// Time returns the date as midnight UTC; the zero Time for the zero Date.
func (d Date) Time() time.Time { return d.t }

// IsZero reports whether d is unset.
func (d Date) IsZero() bool { return d.t.IsZero() }

// String returns YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.t.IsZero() {
		return ""
	}
	return d.t.Format(time.DateOnly)
}

func (d *Date) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a date like 2014-12-10, not %s", describe(n))
	}
	v, err := ParseDate(n.Value)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

func (d Date) MarshalYAML() (any, error) { return d.String(), nil }
func (d Date) MarshalJSON() ([]byte, error) {
	return []byte(`"` + d.String() + `"`), nil
}

// A Window is one release's freeze, as the calendar records it.
type Window struct {
	// Freeze is the first day of the freeze.
	Freeze Date `yaml:"freeze" json:"freeze"`
	// Reopen is the first day the tree was open again for general
	// development.
	Reopen Date `yaml:"reopen" json:"reopen"`
	// Release is the day the release was made (or is planned).
	Release Date `yaml:"release" json:"release"`

	// Line is the line of the window in the file it came from, for
	// messages that point at it.
	Line int `yaml:"-" json:"-"`
	// FromOverlay is set for a window written in a file overlaid on the
	// built-in configuration (-config FILE), whose Line is in that file.
	FromOverlay bool `yaml:"-" json:"-"`

	// builtIn is set for the windows of files decoded before the current
	// one, while it is decoded: errors then point at the current file.
	builtIn bool
}

// A Calendar maps release names (go1.4) to their freeze windows. Unlike
// other mappings, a calendar given in a file is merged into the built-in one
// release by release, so a user can add or correct one window without
// copying all of them.
type Calendar map[string]*Window

var releaseNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*$`)

var windowKeys = []string{"freeze", "release", "reopen"}

func (c *Calendar) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("must be a mapping of releases to windows like go1.4: {freeze: 2014-09-01, reopen: 2014-12-10, release: 2014-12-10}, not %s", describe(n))
	}
	if *c == nil {
		*c = make(Calendar)
	}
	overlay := len(*c) > 0
	for _, w := range *c {
		w.builtIn = true
	}
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		if !releaseNameRE.MatchString(name) {
			return fmt.Errorf("%q (line %d) is not a release name like go1.4", name, k.Line)
		}
		if seen[name] {
			return fmt.Errorf("%s (line %d): appears twice", name, k.Line)
		}
		seen[name] = true
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%s (line %d): want {freeze: DATE, reopen: DATE, release: DATE}, not %s", name, v.Line, describe(v))
		}
		w := &Window{Line: k.Line, FromOverlay: overlay}
		for j := 0; j+1 < len(v.Content); j += 2 {
			key, val := v.Content[j], v.Content[j+1]
			var d *Date
			switch key.Value {
			case "freeze":
				d = &w.Freeze
			case "reopen":
				d = &w.Reopen
			case "release":
				d = &w.Release
			default:
				return fmt.Errorf("%s (line %d): %s: unknown key (known keys here: %s)", name, key.Line, key.Value, strings.Join(windowKeys, ", "))
			}
			if !d.IsZero() {
				return fmt.Errorf("%s (line %d): %s: key appears twice", name, key.Line, key.Value)
			}
			if err := d.UnmarshalYAML(val); err != nil {
				return fmt.Errorf("%s (line %d): %s: %v", name, val.Line, key.Value, err)
			}
		}
		(*c)[name] = w
	}
	return nil
}

// MarshalYAML writes the windows in order of their freezes, one flow
// mapping each, as config.yaml has them.
func (c Calendar) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, name := range c.Names() {
		w := c[name]
		v := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for _, kv := range [][2]string{{"freeze", w.Freeze.String()}, {"reopen", w.Reopen.String()}, {"release", w.Release.String()}} {
			v.Content = append(v.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]}, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[1]})
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, v)
	}
	return n, nil
}

// Names returns the releases of the calendar in order of their freezes.
func (c Calendar) Names() []string {
	names := make([]string, 0, len(c))
	for name := range c {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := c[a].Freeze.t.Compare(c[b].Freeze.t); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}

// where says where a window was written, for messages.
func (w *Window) where(name string) string {
	if w.builtIn {
		return name + " (built in)"
	}
	return fmt.Sprintf("%s (line %d)", name, w.Line)
}

// check checks the calendar: every window complete and in order, and no
// two windows overlapping, since a day cannot be frozen for two releases.
func (c Calendar) check() error {
	names := c.Names()
	for _, name := range names {
		w := c[name]
		switch {
		case w.Freeze.IsZero():
			return fmt.Errorf("%s: no freeze date", w.where(name))
		case w.Reopen.IsZero():
			return fmt.Errorf("%s: no reopen date (the first day the tree was open again)", w.where(name))
		case w.Release.IsZero():
			return fmt.Errorf("%s: no release date", w.where(name))
		case !w.Reopen.t.After(w.Freeze.t):
			return fmt.Errorf("%s: inverted window: reopen %s is not after freeze %s", w.where(name), w.Reopen, w.Freeze)
		case !w.Release.t.After(w.Freeze.t):
			return fmt.Errorf("%s: release %s is not after freeze %s", w.where(name), w.Release, w.Freeze)
		}
	}
	for i := 1; i < len(names); i++ {
		if !c[names[i-1]].Reopen.t.After(c[names[i]].Freeze.t) {
			continue
		}
		// Blame the later window, unless only the earlier one is the
		// user's: the message should point into the file being read.
		bad, other := names[i], names[i-1]
		if c[bad].builtIn && !c[other].builtIn {
			bad, other = other, bad
		}
		b, o := c[bad], c[other]
		return fmt.Errorf("%s: window %s..%s overlaps %s's window %s..%s",
			b.where(bad), b.Freeze, b.Reopen, other, o.Freeze, o.Reopen)
	}
	return nil
}

// FreezeRule is a release schedule as data: a cycle of CycleMonths
// months, numbered from the release First whose freeze began in the month
// FirstFreeze, with the freeze, the reopening and the release each in a
// given week of a month counted from the freeze's month. Week N of a month
// is the week that begins on its Nth Monday, as Go's release cycle counts
// them.
type FreezeRule struct {
	// First is the release of the first cycle the rule describes, such as
	// go1.20; later cycles count up its last number.
	First string `yaml:"first" json:"first"`
	// FirstFreeze is the month (YYYY-MM) First's freeze began in.
	FirstFreeze string `yaml:"first_freeze" json:"first_freeze"`
	// CycleMonths is the length of a cycle: 6 for two releases a year.
	CycleMonths int `yaml:"cycle_months" json:"cycle_months"`
	// Freeze, Reopen and Release place the cycle's three events.
	Freeze  RuleWeek `yaml:"freeze" json:"freeze"`
	Reopen  RuleWeek `yaml:"reopen" json:"reopen"`
	Release RuleWeek `yaml:"release" json:"release"`
}

// A RuleWeek places an event of a cycle: week Week of the month that is
// Month months after the month the cycle's freeze begins in.
type RuleWeek struct {
	Month int `yaml:"month" json:"month"`
	Week  int `yaml:"week" json:"week"`
}

var ruleFirstRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*?[0-9]+$`)

// FirstFreezeMonth returns the year and month of FirstFreeze.
func (r *FreezeRule) FirstFreezeMonth() (int, time.Month, error) {
	t, err := time.Parse("2006-01", r.FirstFreeze)
	if err != nil {
		return 0, 0, fmt.Errorf("%q is not a month like 2022-11", r.FirstFreeze)
	}
	return t.Year(), t.Month(), nil
}

func (r *FreezeRule) check() error {
	if r.First == "" {
		return nil // no rule: the calendar alone
	}
	if !ruleFirstRE.MatchString(r.First) {
		return &keyError{"first", fmt.Errorf("%q is not a release name ending in a number, like go1.20", r.First)}
	}
	if _, _, err := r.FirstFreezeMonth(); err != nil {
		return &keyError{"first_freeze", err}
	}
	if r.CycleMonths < 1 || r.CycleMonths > 24 {
		return &keyError{"cycle_months", errors.New("must be from 1 to 24")}
	}
	for _, p := range []struct {
		key string
		w   RuleWeek
	}{{"freeze", r.Freeze}, {"reopen", r.Reopen}, {"release", r.Release}} {
		if p.w.Month < 0 || p.w.Month > 2*r.CycleMonths {
			return &keyError{p.key + ".month", fmt.Errorf("must be from 0 to %d (months after the freeze's month)", 2*r.CycleMonths)}
		}
		if p.w.Week < 1 || p.w.Week > 4 {
			return &keyError{p.key + ".week", errors.New("must be from 1 to 4 (week N begins on the month's Nth Monday)")}
		}
	}
	before := func(a, b RuleWeek) bool { return a.Month < b.Month || a.Month == b.Month && a.Week < b.Week }
	switch {
	case !before(r.Freeze, r.Reopen):
		return &keyError{"reopen", errors.New("inverted rule: the tree must reopen after the freeze begins")}
	case !before(r.Freeze, r.Release):
		return &keyError{"release", errors.New("the release must come after the freeze begins")}
	case !before(r.Reopen, RuleWeek{r.Freeze.Month + r.CycleMonths, r.Freeze.Week}):
		return &keyError{"reopen", errors.New("the tree must reopen before the next cycle's freeze: the windows would overlap")}
	}
	return nil
}

// FreezeLive says where the live signals come from. An empty server is
// not consulted; -offline consults none.
type FreezeLive struct {
	// Gerrit is the Gerrit server whose branches and hashtags are read
	// (anonymously, or with the credentials of docs/review.md).
	Gerrit string `yaml:"gerrit" json:"gerrit"`
	// Project is the Gerrit project the release branches are in.
	Project string `yaml:"project" json:"project"`
	// GitHub is the OWNER/REPO whose milestones and release-blocker issues
	// are read; GITHUB_API_URL points elsewhere than github.com.
	GitHub string `yaml:"github" json:"github"`
	// Downloads is the URL of the release list in go.dev/dl's JSON format.
	Downloads string `yaml:"downloads" json:"downloads"`
	// Timeout bounds each live source: a slow server costs at most this.
	Timeout time.Duration `yaml:"timeout" json:"timeout"`
}

var githubRepoRE = regexp.MustCompile(`^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`)

func (l *FreezeLive) check() error {
	for _, u := range []struct{ key, val string }{{"gerrit", l.Gerrit}, {"downloads", l.Downloads}} {
		if u.val == "" {
			continue
		}
		p, err := url.Parse(u.val)
		switch {
		case err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "":
			return &keyError{u.key, fmt.Errorf("%q is not an http:// or https:// URL", u.val)}
		case p.User != nil:
			return &keyError{u.key, errors.New("must not hold credentials; see 'patchbot doc review' for where they go")}
		}
	}
	if l.Gerrit != "" && l.Project == "" {
		return &keyError{"project", errors.New("must name the Gerrit project of the release branches, like go")}
	}
	if l.GitHub != "" && !githubRepoRE.MatchString(l.GitHub) {
		return &keyError{"github", fmt.Errorf("%q is not a repository like golang/go", l.GitHub)}
	}
	if l.Timeout <= 0 {
		return &keyError{"timeout", errors.New("must be a positive duration like 10s")}
	}
	return nil
}

// projectRE is a host (a name with a dot, or localhost: "golang/go" is
// a path, not a project) and a path, as ProjectOf in package job writes
// them: without a port.
// reset makes a file that names the policy's projects a policy of its
// own: a project's freeze is not Go's, so the built-in calendar, rule and
// live signals (Go's) are dropped, and only what the file gives is kept.
// A file that does not name projects edits the built-in policy: its
// calendar adds or corrects releases, its keys replace one at a time.
func (f *Freeze) reset(n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "projects" {
			f.Calendar = nil
			f.Rule = FreezeRule{}
			f.Live = FreezeLive{Timeout: f.Live.Timeout}
			return
		}
	}
}

var projectRE = regexp.MustCompile(`^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+|localhost)(/[^/\s]+)+$`)

// checkProject checks an entry of freeze.projects: "*", or a host and a
// path, as ProjectOf in package job writes them.
func checkProject(p string) error {
	switch {
	case p == "*":
		return nil
	case strings.Contains(p, "://"):
		return fmt.Errorf("%q: want the repository's host and path without a scheme, like github.com/golang/go", p)
	case strings.HasSuffix(p, ".git"), strings.HasSuffix(p, "/"):
		return fmt.Errorf("%q: want the repository's host and path without .git or a final slash, like github.com/golang/go", p)
	case !projectRE.MatchString(p):
		return fmt.Errorf("%q is not a repository's host and path, like github.com/golang/go (or \"*\" for every repository)", p)
	}
	return nil
}

func (f *Freeze) validate() error {
	if len(f.Branches) == 0 {
		return &keyError{"branches", errors.New("must name at least one branch, like master")}
	}
	for _, b := range f.Branches {
		if b == "" || strings.ContainsAny(b, " \t") {
			return &keyError{"branches", fmt.Errorf("%q is not a branch name", b)}
		}
	}
	if len(f.Projects) == 0 {
		return &keyError{"projects", errors.New(`must name at least one repository, like github.com/golang/go, or "*" for every repository`)}
	}
	for _, p := range f.Projects {
		if err := checkProject(p); err != nil {
			return &keyError{"projects", err}
		}
	}
	if f.ReleaseBranchPrefix == "" {
		return &keyError{"release_branch_prefix", errors.New("must be set, like release-branch.")}
	}
	if err := f.Calendar.check(); err != nil {
		return &keyError{"calendar", err}
	}
	if len(f.Calendar) == 0 && f.Rule.First == "" {
		return &keyError{"projects", errors.New("the policy has neither a calendar nor a rule (freeze.calendar, freeze.rule.first) to answer from: a file that names freeze.projects writes a whole policy, without Go's calendar and rule; give its own")}
	}
	if err := f.Rule.check(); err != nil {
		if ke, ok := errors.AsType[*keyError](err); ok {
			return &keyError{"rule." + ke.key, ke.err}
		}
		return &keyError{"rule", err}
	}
	if err := f.Live.check(); err != nil {
		ke, _ := errors.AsType[*keyError](err)
		return &keyError{"live." + ke.key, ke.err}
	}
	return nil
}
