// Package freeze tells whether a branch is frozen for a release on a given
// day, and acts on the answer on a Gerrit change.
//
// A contributor who mails a change during a release freeze waits weeks for
// a review that cannot come; the founding story's change was mailed on
// 2014-11-06, during the Go 1.4 freeze. Check answers the question from
// three kinds of source, in order of trust:
//
//  1. the calendar: windows from public records, in config.yaml;
//  2. the rule: the project's schedule as data, for releases the calendar
//     lacks;
//  3. live signals: a release branch and the wait-release hashtags on
//     Gerrit, the release milestone and its release-blocker issues on
//     GitHub, the latest stable release in go.dev/dl's list.
//
// A live signal overrides the rule but not the calendar, which is a record;
// wherever sources disagree the Status lists it. Without live signals
// (Sources.Offline, or none configured) the answer comes from the calendar
// and the rule alone, so Check works with no network at all.
//
// Apply is the action: it tags a change wait-release (and says why, once)
// while the tree is frozen, and swaps the tag for ex-wait-release when it
// reopens, as Go's release tooling does.
package freeze

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/patchbot/patchbot/config"
)

// Sources are where the answer comes from, in order of trust: the
// calendar, the rule, then the live sources that are set. The zero value
// of a live source's field leaves it out.
type Sources struct {
	Calendar []Window // the calendar's windows, in order
	Rule     *Rule    // nil: the calendar alone

	// Branches are the branches the freeze applies to; a name starting
	// with ReleaseBranchPrefix is a release branch, which it does not
	// apply to. Check refuses any other branch.
	Branches            []string
	ReleaseBranchPrefix string
	// Projects are the repositories the policy is for, as host and path,
	// "*" for every one: CheckProject answers "no freeze policy" for a
	// change to any other.
	Projects []string

	// Offline leaves out every live source, whatever is set below.
	Offline bool

	Gerrit    *GerritSource // branches and hashtags; nil: not consulted
	GitHub    *GitHubSource // milestone and release blockers; nil: not consulted
	Downloads string        // URL of a release list in go.dev/dl's JSON format; "": not consulted

	// HTTPClient carries the requests for the release list (Gerrit and
	// GitHub are read through their review clients); nil means a client
	// with Timeout as its time limit.
	HTTPClient *http.Client
	// Timeout bounds each live source, all its requests and their
	// retries together; 0 means 10s. A source that does not answer in
	// time becomes a fact saying so.
	Timeout time.Duration

	// Now returns the present, for deciding whether live signals, which
	// tell about the present, say anything about the day asked; nil means
	// time.Now.
	Now func() time.Time
}

// FromConfig returns the sources the configuration holds offline: the
// calendar and the rule, and the branches. The live sources are for the
// caller to add from c.Live (the command does, with the credentials of the
// environment), unless offline.
func FromConfig(c *config.Freeze, offline bool) (*Sources, error) {
	rule, err := ruleFromConfig(&c.Rule)
	if err != nil {
		return nil, err
	}
	return &Sources{
		Calendar:            calendarFromConfig(c.Calendar),
		Rule:                rule,
		Branches:            slices.Clone(c.Branches),
		Projects:            slices.Clone(c.Projects),
		ReleaseBranchPrefix: c.ReleaseBranchPrefix,
		Offline:             offline,
		Timeout:             c.Live.Timeout,
	}, nil
}

// A Fact is one thing a source said, for the reader to weigh.
type Fact struct {
	Source string `json:"source"` // "calendar", "rule", "gerrit", "github" or "go.dev/dl"
	Text   string `json:"text"`
}

// Status is the answer of Check.
type Status struct {
	Branch string `json:"branch"`
	// Project is the repository the change is for, as host and path,
	// when CheckProject was asked about one.
	Project string    `json:"project,omitempty"`
	At      time.Time `json:"at"`
	Frozen  bool      `json:"frozen"`

	// Release is the release the freeze is for or, when the tree is open,
	// the release in development; "" when no source knows.
	Release string `json:"release"`
	// ReleaseBranch is set, instead of Release, when Branch is a release
	// branch: the freeze does not apply to it.
	ReleaseBranch bool `json:"release_branch,omitempty"`
	// NoPolicy is set, instead of Release, when no freeze policy governs
	// Branch (it is not among freeze.branches: a project's own branch,
	// main say) or Project (it is not among freeze.projects: another
	// project's repository), which the configured release freeze is not
	// about. It is open, and nothing is tagged on it.
	NoPolicy bool `json:"no_policy,omitempty"`

	// The dates of Release's freeze; zero when unknown. For an open tree
	// they are the next freeze's expected dates.
	FreezeStart time.Time `json:"freeze_start"`
	Reopen      time.Time `json:"reopen"`
	ReleaseDate time.Time `json:"release_date"`

	// Source is the source of the verdict (frozen or open), and
	// ReleaseDateSource that of ReleaseDate.
	Source            string `json:"source"`
	ReleaseDateSource string `json:"release_date_source,omitempty"`

	Facts         []Fact   `json:"facts"`
	Disagreements []string `json:"disagreements"`
}

// Governed reports whether the freeze applies to the status's branch:
// neither a release branch nor one no policy governs.
func (st *Status) Governed() bool { return !st.ReleaseBranch && !st.NoPolicy }

// A DateError is a day Check cannot answer for: one whose answer would
// name a date that no output can show (JSON's times end with the year
// 9999) and that the commands would refuse as input. It is a mistake in
// the question, so commands treat it as a usage error.
type DateError struct {
	At   time.Time // the day asked
	Date time.Time // the first date of the answer out of range
	What string    // which date of the answer it is: "reopens", "release date"
}

func (e *DateError) Error() string {
	return fmt.Sprintf("%s: the answer would name a date after %s (%s %s), which no output can show; ask about an earlier day",
		date(e.At), date(LastDate), e.What, e.Date.Format("+2006-01-02"))
}

// LastDate is the last day Check may name in an answer: the last day of
// the year 9999, which encoding/json (RFC 3339) and the commands' date
// flags can still write.
var LastDate = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// checkRange refuses a status that names a date after LastDate.
func (st *Status) checkRange(day time.Time) error {
	for _, d := range []struct {
		what string
		t    time.Time
	}{{"freeze begins", st.FreezeStart}, {"reopens", st.Reopen}, {"release date", st.ReleaseDate}} {
		if d.t.After(LastDate) {
			return &DateError{At: day, Date: d.t, What: d.what}
		}
	}
	return nil
}

// CheckProject is Check for a change to project's branch: a project the
// policy is not for (Sources.Projects) has no freeze policy, whatever its
// branch, and is open. project is the repository as its host and path,
// "" when it is not known (a repository with no remote to tell), which
// only "*" governs.
func CheckProject(ctx context.Context, s *Sources, project, branch string, at time.Time) (*Status, error) {
	if branch == "" {
		return nil, errors.New("freeze: no branch to check")
	}
	if !s.governs(project) {
		st := &Status{Branch: branch, Project: project, At: at, NoPolicy: true, Source: "config", Facts: []Fact{}, Disagreements: []string{}}
		policy := strings.Join(s.Projects, ", ")
		if project == "" {
			st.fact("config", "no freeze policy governs this repository: it has no remote to tell which project it is, and the freeze policy is for %s (freeze.projects; \"*\" is for every repository)", policy)
		} else {
			st.fact("config", "no freeze policy governs %s: the freeze policy is for %s (freeze.projects)", project, policy)
		}
		return st, nil
	}
	st, err := Check(ctx, s, branch, at)
	if st != nil {
		st.Project = project
	}
	return st, err
}

// governs reports whether the policy is for project.
func (s *Sources) governs(project string) bool {
	for _, p := range s.Projects {
		if p == "*" || project != "" && strings.EqualFold(p, project) {
			return true
		}
	}
	return false
}

// Check returns whether branch is frozen on the day of at (in UTC): what
// the policy says of branch, whatever the project (the built-in example,
// patchbot freeze, which name none).
// A day whose answer would name dates after LastDate is a *DateError.
func Check(ctx context.Context, s *Sources, branch string, at time.Time) (*Status, error) {
	if branch == "" {
		return nil, errors.New("freeze: no branch to check")
	}
	st := &Status{Branch: branch, At: at, Facts: []Fact{}, Disagreements: []string{}}
	if rest, ok := strings.CutPrefix(branch, s.ReleaseBranchPrefix); ok && s.ReleaseBranchPrefix != "" && rest != "" {
		st.ReleaseBranch = true
		st.Release = rest
		st.Source = "config"
		st.fact("config", "%s is a release branch: it takes only approved cherry-picks, and the freeze of %s does not apply to it", branch, strings.Join(s.Branches, ", "))
		return st, nil
	}
	if !slices.Contains(s.Branches, branch) {
		// A branch no policy is about is open, and said so: a project's
		// main is not another project's release (nor is a typo of a
		// governed branch frozen: the line names the governed ones).
		st.NoPolicy = true
		st.Source = "config"
		st.fact("config", "no freeze policy governs %s: the freeze applies to %s (freeze.branches), and branches named %sRELEASE are release branches", branch, strings.Join(s.Branches, ", "), s.ReleaseBranchPrefix)
		return st, nil
	}
	if len(s.Calendar) == 0 && s.Rule == nil {
		return nil, errors.New("the configuration has neither a calendar nor a rule (freeze.calendar, freeze.rule): nothing to answer from")
	}

	day := dayOf(at)
	ws := s.windows(day)
	cur, prev, next := locate(ws, day)
	switch {
	case cur != nil:
		st.Frozen = true
		st.setWindow(cur)
		st.fact(cur.Source, "%s: frozen since %s%s, reopening %s, release %s", cur.Release, date(cur.Freeze), where(cur), date(cur.Reopen), date(cur.ReleaseDate))
	case next != nil:
		st.setWindow(next)
		if prev != nil {
			st.fact(prev.Source, "%s: the tree reopened on %s%s after its freeze (release %s)", prev.Release, date(prev.Reopen), where(prev), date(prev.ReleaseDate))
		}
		st.fact(next.Source, "%s: in development; its freeze is expected from %s%s, reopening %s, release %s", next.Release, date(next.Freeze), where(next), date(next.Reopen), date(next.ReleaseDate))
	default:
		// Beyond every source: only when there is no rule.
		st.Source = "calendar"
		if prev != nil {
			st.fact(prev.Source, "%s: the tree reopened on %s%s; the calendar has no later window and there is no rule", prev.Release, date(prev.Reopen), where(prev))
		}
	}

	if err := st.checkRange(day); err != nil {
		return nil, err
	}
	if s.Offline {
		st.fact("config", "live signals not consulted (offline)")
		return st, nil
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	// Compare days, not instants: a time within 24 hours of now may
	// still be on another day (in UTC), which the signals say nothing of.
	if !dayOf(now()).Equal(day) {
		if s.Gerrit != nil || s.GitHub != nil || s.Downloads != "" {
			st.fact("config", "live signals not consulted: they tell the present, and %s is not today", date(day))
		}
		return st, nil
	}
	s.live(ctx, st, ws, prev)
	return st, nil
}

// locate returns the window that covers day, else the last window that
// ended by day and the first that begins after it.
func locate(ws []Window, day time.Time) (cur, prev, next *Window) {
	for i := range ws {
		w := &ws[i]
		switch {
		case !day.Before(w.Freeze) && day.Before(w.Reopen):
			cur = w
		case !day.Before(w.Reopen):
			prev = w
		case next == nil && day.Before(w.Freeze):
			next = w
		}
	}
	return cur, prev, next
}

func (st *Status) setWindow(w *Window) {
	st.Release = w.Release
	st.FreezeStart, st.Reopen, st.ReleaseDate = w.Freeze, w.Reopen, w.ReleaseDate
	st.Source, st.ReleaseDateSource = w.Source, w.Source
}

func (st *Status) fact(source, format string, args ...any) {
	st.Facts = append(st.Facts, Fact{Source: source, Text: fmt.Sprintf(format, args...)})
}

func where(w *Window) string {
	if w.Line > 0 {
		return fmt.Sprintf(" (%s line %d)", w.File, w.Line)
	}
	return ""
}

// Display returns a release name as people write it: "go1.4" is "Go 1.4".
// Other names are returned as they are.
func Display(release string) string {
	if rest, ok := strings.CutPrefix(release, "go"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return "Go " + rest
	}
	return release
}

// Line says the status in one sentence, for a review message or a log. It
// depends only on the status, not on the time it is called, so the same
// status gives the same message and a message is not posted twice.
func (st *Status) Line() string {
	return st.LineEscaped(func(s string) string { return s })
}

// LineEscaped is Line for a review message: the branch, which is the
// change's, passes through esc (internal/escape's Markdown or Gerrit). The
// release and the sources are the configuration's.
func (st *Status) LineEscaped(esc func(string) string) string {
	rel := Display(st.Release)
	switch {
	case st.ReleaseBranch:
		return fmt.Sprintf("%s is a release branch: the release freeze does not apply to it.", esc(st.Branch))
	case st.NoPolicy:
		return fmt.Sprintf("No freeze policy governs %s: it is open.", esc(st.Branch))
	case st.Frozen:
		s := fmt.Sprintf("The tree is frozen for %s", rel)
		if !st.FreezeStart.IsZero() {
			s += " since " + date(st.FreezeStart)
		}
		s += " (" + st.Source + ")"
		if st.Reopen.IsZero() {
			return s + "; when it reopens is not known."
		}
		return s + fmt.Sprintf("; it is expected to reopen around %s.", date(st.Reopen))
	case st.Release == "":
		return fmt.Sprintf("The tree is open (%s); no source knows of a coming freeze.", st.Source)
	case st.FreezeStart.IsZero():
		return fmt.Sprintf("The tree is open for %s development (%s).", rel, st.Source)
	}
	return fmt.Sprintf("The tree is open for %s development (%s); its freeze is expected to begin around %s.", rel, st.Source, date(st.FreezeStart))
}
