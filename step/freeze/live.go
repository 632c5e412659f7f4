package freeze

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/step/review"
)

// A GerritSource is a Gerrit server read for live signals: whether the
// release branch exists, and whether open changes carry wait-release or
// ex-wait-release. The reads go through review.Gerrit, with its retries
// and its errors; they need no credentials on a public server.
type GerritSource struct {
	Gerrit  *review.Gerrit // the server: https://go-review.googlesource.com
	Project string         // the project of the release branches: go

	// Filter, if set, is added to the change queries, such as -is:wip, to
	// narrow the changes whose hashtags count.
	Filter string
}

// NewGerritSource returns the GerritSource of project on the server g
// reads.
func NewGerritSource(g *review.Gerrit, project string) *GerritSource {
	return &GerritSource{Gerrit: g, Project: project}
}

// A GitHubSource is a GitHub repository read for live signals: the open
// milestone of the release (Go1.N), its due date, and its open
// release-blocker issues. The reads go through review.GitHub, with its
// retries and its errors; they need no token on a public repository.
type GitHubSource struct {
	GitHub *review.GitHub
	Owner  string // golang
	Repo   string // go
}

// NewGitHubSource returns the GitHubSource of repo (OWNER/REPO), read
// with gh.
func NewGitHubSource(repo string, gh *review.GitHub) (*GitHubSource, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("%q is not a repository like golang/go", repo)
	}
	return &GitHubSource{GitHub: gh, Owner: owner, Repo: name}, nil
}

// AddLive adds to s the live sources that c names, read with the
// process's review clients (their credentials, retries and timeouts).
// gerritURL, if not "", replaces c.Gerrit: a command acting on a change of
// one server reads that server's signals. With s.Offline, the sources are
// added but Check does not read them.
func (s *Sources) AddLive(c *config.FreezeLive, gerritURL string, clients *review.Clients) error {
	server := c.Gerrit
	if gerritURL != "" {
		server = gerritURL
	}
	if server != "" {
		g, err := clients.Gerrit(server)
		if err != nil {
			return err
		}
		s.Gerrit = NewGerritSource(g, c.Project)
	}
	if c.GitHub != "" {
		gh, err := clients.GitHub()
		if err != nil {
			return err
		}
		if s.GitHub, err = NewGitHubSource(c.GitHub, gh); err != nil {
			return err
		}
	}
	s.Downloads = c.Downloads
	if c.Timeout > 0 {
		s.Timeout = c.Timeout
	}
	return nil
}

// A vote is a live signal's verdict on whether the tree is frozen.
type vote struct {
	source string
	frozen bool
	why    string
}

// A signal is what one live source said.
type signal struct {
	source      string
	facts       []string
	votes       []vote
	releaseDate time.Time // the release's expected or actual date, if the source knows it
	disagree    []string  // with the schedule, not about the verdict
	err         error
}

func (s *signal) factf(format string, args ...any) {
	s.facts = append(s.facts, fmt.Sprintf(format, args...))
}

// live consults the live sources, each bounded by the timeout and all at
// once, and folds their answers into st: a signal overrides the rule, never
// the calendar, and every disagreement is listed.
func (s *Sources) live(ctx context.Context, st *Status, ws []Window, prev *Window) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	client := s.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: timeout}
	}
	q := query{status: *st, prev: prev, client: client}
	// The cause is what a source out of time says: review's errors
	// name it ("out of time (limit 10s)").
	limit := fmt.Errorf("limit %v", timeout)

	var fns []func(context.Context, *query) *signal
	if s.Gerrit != nil {
		g := s.Gerrit
		pfx := s.ReleaseBranchPrefix
		fns = append(fns, func(ctx context.Context, q *query) *signal { return g.read(ctx, q, pfx) })
	}
	if s.GitHub != nil {
		fns = append(fns, s.GitHub.read)
	}
	if s.Downloads != "" {
		u := s.Downloads
		fns = append(fns, func(ctx context.Context, q *query) *signal { return readDownloads(ctx, q, u) })
	}
	if len(fns) == 0 {
		return
	}
	sigs := make([]*signal, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			ctx, cancel := context.WithTimeoutCause(ctx, timeout, limit)
			defer cancel()
			sigs[i] = fn(ctx, &q)
		})
	}
	wg.Wait()

	for _, sig := range sigs {
		for _, f := range sig.facts {
			st.fact(sig.source, "%s", f)
		}
		if sig.err != nil {
			st.fact(sig.source, "not consulted: %v", sig.err)
			continue
		}
		st.Disagreements = append(st.Disagreements, sig.disagree...)
		if !sig.releaseDate.IsZero() && !sig.releaseDate.Equal(st.ReleaseDate) {
			d := sig.releaseDate.Sub(st.ReleaseDate)
			switch {
			case st.ReleaseDateSource == "calendar":
				if st.ReleaseDate.IsZero() || d > 72*time.Hour || d < -72*time.Hour {
					st.Disagreements = append(st.Disagreements, fmt.Sprintf("%s: %s is due %s, but the calendar says %s; the calendar wins",
						sig.source, Display(st.Release), date(sig.releaseDate), date(st.ReleaseDate)))
				}
			default:
				if !st.ReleaseDate.IsZero() && (d > 72*time.Hour || d < -72*time.Hour) {
					st.Disagreements = append(st.Disagreements, fmt.Sprintf("%s: %s is due %s, but the %s says %s; the live signal wins",
						sig.source, Display(st.Release), date(sig.releaseDate), st.ReleaseDateSource, date(st.ReleaseDate)))
				}
				st.ReleaseDate, st.ReleaseDateSource = sig.releaseDate, sig.source
			}
		}
		for _, v := range sig.votes {
			if v.frozen == st.Frozen {
				continue
			}
			was := st.Source
			msg := fmt.Sprintf("%s says the tree is %s (%s), but the %s says %s", v.source, frozenWord(v.frozen), v.why, was, frozenWord(st.Frozen))
			if was != "rule" {
				st.Disagreements = append(st.Disagreements, msg+"; the "+was+" wins")
				continue
			}
			st.Disagreements = append(st.Disagreements, msg+"; the live signal wins over the rule")
			st.override(v, ws, prev)
		}
	}
}

func frozenWord(frozen bool) string {
	if frozen {
		return "frozen"
	}
	return "open"
}

// override turns the rule's verdict into the vote's. A tree the rule
// thought frozen has reopened early: it is open for the next release. A
// tree the rule thought open is still frozen for the previous release,
// whose reopening is now unknown.
func (st *Status) override(v vote, ws []Window, prev *Window) {
	if v.frozen {
		if prev != nil {
			st.setWindow(prev)
		}
		st.Frozen, st.Reopen = true, time.Time{}
	} else {
		st.Frozen = false
		for i := range ws {
			if ws[i].Release == st.Release && i+1 < len(ws) {
				st.setWindow(&ws[i+1])
				break
			}
		}
	}
	st.Source = v.source
}

// A query is what a live source needs to know of the answer so far.
type query struct {
	status Status       // the calendar's and rule's answer
	prev   *Window      // the last window that ended, if any
	client *http.Client // for the release list; Gerrit and GitHub have their own
}

// subject returns the release a live source should ask about: the one the
// freeze is for, or, for an open tree, the last one frozen, whose end the
// signals confirm.
func (q *query) subject() string {
	if q.status.Frozen || q.prev == nil {
		return q.status.Release
	}
	return q.prev.Release
}

// read asks Gerrit whether the release branch exists and which open
// changes carry wait-release and ex-wait-release.
func (g *GerritSource) read(ctx context.Context, q *query, prefix string) *signal {
	sig := &signal{source: "gerrit"}
	rel := q.subject()
	if rel != "" {
		branch := prefix + rel
		exists, err := g.Gerrit.BranchExists(ctx, g.Project, branch)
		switch {
		case err != nil:
			sig.err = err
			return sig
		case !exists:
			sig.factf("%s does not exist in %s", branch, g.Project)
			if !q.status.Frozen && q.prev != nil {
				sig.votes = append(sig.votes, vote{"gerrit", true, branch + " does not exist yet"})
			}
		default:
			sig.factf("%s exists in %s: %s has been branched for its release candidates", branch, g.Project, Display(rel))
		}
	}
	count := func(tag string) (int, error) {
		qs := fmt.Sprintf("project:%s status:open hashtag:%s", g.Project, tag)
		if g.Filter != "" {
			qs += " " + g.Filter
		}
		cs, err := g.Gerrit.QueryChanges(ctx, qs, 100)
		return len(cs), err
	}
	wait, err := count(WaitRelease)
	if err != nil {
		sig.err = err
		return sig
	}
	ex, err := count(ExWaitRelease)
	if err != nil {
		sig.err = err
		return sig
	}
	sig.factf("open changes tagged wait-release: %s; tagged ex-wait-release: %s", atLeast(wait), atLeast(ex))
	// A hashtag vote outranks the branch: the release tooling moves the
	// hashtags exactly when the freeze begins and ends.
	switch {
	case wait > 0:
		sig.votes = []vote{{"gerrit", true, "open changes are tagged wait-release"}}
	case ex > 0:
		sig.votes = []vote{{"gerrit", false, "open changes are tagged ex-wait-release, none wait-release"}}
	}
	return sig
}

func atLeast(n int) string {
	if n >= 100 {
		return "100 or more"
	}
	return strconv.Itoa(n)
}

// milestoneName returns the GitHub milestone of a release: Go1.4 for go1.4.
func milestoneName(release string) string {
	if release == "" {
		return ""
	}
	return strings.ToUpper(release[:1]) + release[1:]
}

// read asks GitHub for the release's open milestone, its due date and its
// open release-blocker issues.
func (g *GitHubSource) read(ctx context.Context, q *query) *signal {
	sig := &signal{source: "github"}
	open, err := g.GitHub.OpenMilestones(ctx, g.Owner, g.Repo)
	if err != nil {
		sig.err = err
		return sig
	}
	rel := q.status.Release
	want := milestoneName(rel)
	var m *review.Milestone
	for i := range open {
		if open[i].Title == want {
			m = &open[i]
		}
	}
	if m == nil {
		sig.factf("no open milestone %s in %s/%s", want, g.Owner, g.Repo)
		if q.status.Frozen && laterOpen(open, rel) {
			sig.votes = append(sig.votes, vote{"github", false, "milestone " + want + " is closed and a later one is open: " + Display(rel) + " is out"})
		}
		return sig
	}
	text := fmt.Sprintf("milestone %s is open", want)
	if !m.DueOn.IsZero() {
		sig.releaseDate = dayOf(m.DueOn)
		text += ", due " + date(sig.releaseDate)
	}
	sig.factf("%s", text)
	issues, err := g.GitHub.Issues(ctx, g.Owner, g.Repo, review.IssueQuery{Milestone: m.Number, Labels: []string{"release-blocker"}, State: "open"})
	if err != nil {
		sig.err = err
		return sig
	}
	var blockers []string
	for _, i := range issues {
		blockers = append(blockers, "#"+strconv.Itoa(i.Number))
	}
	if len(blockers) == 0 {
		sig.factf("no open release-blocker issues in %s", want)
	} else {
		noun := "issues"
		if len(blockers) == 1 {
			noun = "issue"
		}
		sig.factf("%d open release-blocker %s in %s: %s", len(blockers), noun, want, strings.Join(blockers, ", "))
	}
	return sig
}

// laterOpen reports whether a milestone for a later release than rel is
// open: then the repository uses milestones, and rel's being gone means
// it was closed, at its release.
func laterOpen(open []review.Milestone, rel string) bool {
	prefix, n, ok := splitRelease(milestoneName(rel))
	if !ok {
		return false
	}
	for _, m := range open {
		if p, k, ok := splitRelease(m.Title); ok && p == prefix && k > n {
			return true
		}
	}
	return false
}

// A dlRelease is an entry of go.dev/dl/?mode=json.
type dlRelease struct {
	Version string `json:"version"`
	Stable  bool   `json:"stable"`
}

// readDownloads reads the release list in go.dev/dl's format: an array,
// newest first, of {version, stable, files}. The latest stable release
// says which releases are out.
func readDownloads(ctx context.Context, q *query, u string) *signal {
	sig := &signal{source: "go.dev/dl"}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		sig.err = err
		return sig
	}
	resp, err := q.client.Do(req)
	if err != nil {
		sig.err = err
		return sig
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		sig.err = fmt.Errorf("GET %s: %s", u, resp.Status)
		return sig
	}
	var list []dlRelease
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&list); err != nil {
		sig.err = fmt.Errorf("GET %s: not a release list: %v", u, err)
		return sig
	}
	latest := ""
	for _, r := range list {
		if r.Stable {
			latest = r.Version
			break
		}
	}
	if latest == "" {
		sig.err = fmt.Errorf("GET %s: no stable release in the list", u)
		return sig
	}
	sig.factf("the latest stable release is %s", latest)
	rel := q.subject()
	prefix, n, ok := splitRelease(rel)
	if !ok {
		return sig
	}
	out := releasedNumber(latest, prefix)
	if out < 0 {
		return sig
	}
	switch {
	case q.status.Frozen && out >= n:
		sig.votes = append(sig.votes, vote{"go.dev/dl", false, Display(rel) + " is out"})
	case !q.status.Frozen && q.prev != nil && out < n && !q.prev.ReleaseDate.IsZero() && dayOf(q.status.At).After(q.prev.ReleaseDate):
		sig.disagree = append(sig.disagree, fmt.Sprintf("go.dev/dl: %s is not out yet, but the %s expected it on %s",
			Display(rel), q.prev.Source, date(q.prev.ReleaseDate)))
	}
	return sig
}

// releasedNumber returns the release number of version: 27 for go1.27.3
// with prefix go1.; -1 when version is not one of prefix's.
func releasedNumber(version, prefix string) int {
	rest, ok := strings.CutPrefix(version, prefix)
	if !ok {
		return -1
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(rest[:i])
	if err != nil {
		return -1
	}
	return n
}
