package review

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/patchbot/patchbot/internal/actions"
)

// A GitHub posts comments on GitHub pull requests.
type GitHub struct {
	api  string // the API's base URL, with a trailing slash
	base *url.URL
	auth *GitHubAuth
	http *http.Client // with the token, if any
	opts Options
	self *self // patchbot's own login, once known (Self)

	// StepSummary, if set, is the file GitHub Actions shows as the step's
	// summary (GITHUB_STEP_SUMMARY); each post appends its text there too.
	StepSummary string
}

// NewGitHub returns a GitHub client. An empty token allows anonymous reads
// only; writes then fail with a message that says to set GITHUB_TOKEN.
func NewGitHub(auth *GitHubAuth, opts Options) (*GitHub, error) {
	if auth == nil {
		auth = &GitHubAuth{}
	}
	hc := opts.httpClient()
	if auth.Token.isSet() {
		hc.Transport = &tokenTransport{token: auth.Token, next: hc.Transport}
	}
	if opts.GitHubLogin != "" && !ValidLogin(opts.GitHubLogin) {
		return nil, fmt.Errorf("serve.github.login: %q is not a GitHub login (nor an App's SLUG[bot])", opts.GitHubLogin)
	}
	g := &GitHub{auth: auth, http: hc, opts: opts, self: &self{}}
	g.base = g.client().BaseURL
	if auth.APIURL != "" {
		u, err := CheckServerURL(auth.APIURL)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", EnvGitHubAPIURL, err)
		}
		g.base, _ = url.Parse(u + "/")
	}
	g.api = g.base.String()
	return g, nil
}

// client returns a go-github client for one request. A GitHub is shared
// by a process's users (Clients), and go-github's client remembers the
// rate limits it was told of and refuses requests itself until they
// reset: one request's rate limit, or another user's, would then stop
// requests that the server would answer. So each request asks the
// server, and the server's answer (Retry-After, the reset) says how long
// to wait.
func (g *GitHub) client() *github.Client {
	c := github.NewClient(g.http)
	if g.base != nil {
		c.BaseURL = g.base
	}
	return c
}

// A tokenTransport signs each request in with the token, as go-github's
// WithAuthToken does.
type tokenTransport struct {
	token Secret
	next  http.RoundTripper // nil: http.DefaultTransport
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t.token.Reveal())
	return next.RoundTrip(req)
}

// A PullRequest names a pull request: OWNER/REPO#NUMBER.
type PullRequest struct {
	Owner, Repo string
	Number      int
}

var prRE = regexp.MustCompile(`^([A-Za-z0-9-]+)/([A-Za-z0-9._-]+)#([1-9][0-9]*)$`)

// ParsePullRequest parses OWNER/REPO#NUMBER. A repository named "." or
// "..", which the pattern's characters allow, is refused too
// (CheckRepository): it names no repository on GitHub.
func ParsePullRequest(s string) (PullRequest, error) {
	m := prRE.FindStringSubmatch(s)
	if m == nil || CheckRepository(m[1], m[2]) != nil {
		return PullRequest{}, fmt.Errorf("%q is not a pull request like owner/repo#12", s)
	}
	// GitHub's numbers are 32-bit (its GraphQL API's Int): a larger one
	// names no pull request, and Atoi would clamp it to another number.
	n, err := strconv.ParseInt(m[3], 10, 32)
	if err != nil {
		return PullRequest{}, fmt.Errorf("%q: pull request number %s is out of range (GitHub numbers them up to %d)", s, m[3], math.MaxInt32)
	}
	return PullRequest{m[1], m[2], int(n)}, nil
}

func (p PullRequest) String() string { return fmt.Sprintf("%s/%s#%d", p.Owner, p.Repo, p.Number) }

// MustParsePullRequest is ParsePullRequest for a text known to be one (a
// constant, a test's): it panics on an error.
func MustParsePullRequest(s string) PullRequest {
	p, err := ParsePullRequest(s)
	if err != nil {
		panic(err)
	}
	return p
}

// IsZero reports whether p names no pull request at all.
func (p PullRequest) IsZero() bool { return p == PullRequest{} }

// Check returns what makes p, made by code rather than parsed, name no
// pull request GitHub could have: ParsePullRequest's rules.
func (p PullRequest) Check() error {
	if p.Number > math.MaxInt32 {
		return fmt.Errorf("%q: pull request number %d is out of range (GitHub numbers them up to %d)", p.String(), p.Number, math.MaxInt32)
	}
	_, err := ParsePullRequest(p.String())
	return err
}

// MarshalText writes p as OWNER/REPO#NUMBER, its form in JSON; the zero
// PullRequest as "".
func (p PullRequest) MarshalText() ([]byte, error) {
	if p.IsZero() {
		return []byte{}, nil
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads OWNER/REPO#NUMBER ("" is the zero PullRequest).
func (p *PullRequest) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = PullRequest{}
		return nil
	}
	pr, err := ParsePullRequest(string(b))
	if err != nil {
		return err
	}
	*p = pr
	return nil
}

// maxComment is the most characters GitHub keeps in a comment body.
const maxComment = 65536

// commentBody returns the body of the comment for m: the hidden marker on
// the first line, then the text, cut to fit GitHub's limit.
func commentBody(m Message) string {
	return fit(Marker(m.Kind)+"\n"+strings.TrimSpace(m.Text)+"\n", maxComment)
}

// CheckAuth returns the error a write to pr would fail with because g has
// no token, or nil: for callers that check everything before they start
// (every write checks it again).
func (g *GitHub) CheckAuth(pr PullRequest) error {
	if g.auth.Token.isSet() {
		return nil
	}
	return &Error{Server: g.server(), Target: "pull request " + pr.String(), Op: "signing in",
		Detail: "no token", Hint: "set " + EnvGitHubToken}
}

// Post makes the pull request's comment of m's kind say m.Text: it creates
// the comment, edits it in place, or leaves it when it already says that.
// The comment is found by its hidden first line, Marker(kind).
func (g *GitHub) Post(ctx context.Context, pr PullRequest, m Message) (*PostResult, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	target := "pull request " + pr.String()
	// The token is checked before the server is read: a missing token is
	// said at once, not after retrying a server that is down.
	if err := g.CheckAuth(pr); err != nil && !g.opts.DryRun {
		return nil, err
	}
	res := &PostResult{Server: "github", Change: pr.String(), Kind: m.Kind}
	body := commentBody(m)
	old, err := g.find(ctx, pr, m.Kind, true)
	if err != nil {
		return nil, err
	}
	if old != nil {
		res.URL = old.GetHTMLURL()
		if old.GetBody() == body {
			res.Action = Unchanged
			return res, g.summary(ctx, m)
		}
	}
	var what string
	var fn func(context.Context) error
	// unanswered is set when the last attempt to create the comment got
	// no answer in time: the server may still be at work on it.
	unanswered := false
	if old != nil {
		what = fmt.Sprintf("update the %s comment %s", m.Kind, old.GetHTMLURL())
		res.Action = Updated
		fn = func(ctx context.Context) error {
			// Editing is idempotent: a lost answer needs no look first.
			c, _, err := g.client().Issues.EditComment(ctx, pr.Owner, pr.Repo, old.GetID(), &github.IssueComment{Body: &body})
			if err == nil {
				res.URL = c.GetHTMLURL()
			}
			return err
		}
	} else {
		what = fmt.Sprintf("create a %s comment on %s", m.Kind, pr)
		res.Action = Created
		sent := false
		fn = func(ctx context.Context) error {
			if sent {
				// The last attempt may have been stored before its
				// answer was lost, or another run may have created
				// the comment meanwhile: look before creating one,
				// and edit the one found rather than add a second.
				// No retry of its own here: this is one attempt of
				// the loop around it. After an attempt whose answer
				// never came, the server may still be storing it:
				// the look waits a request's time first.
				if unanswered {
					select {
					case <-time.After(g.opts.timeout()):
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				c, err := g.find(ctx, pr, m.Kind, false)
				if err != nil {
					return err
				}
				if c != nil {
					res.URL = c.GetHTMLURL()
					if c.GetBody() == body {
						return nil
					}
					res.Action = Updated
					_, _, err = g.client().Issues.EditComment(ctx, pr.Owner, pr.Repo, c.GetID(), &github.IssueComment{Body: &body})
					return err
				}
			}
			sent = true
			c, _, err := g.client().Issues.CreateComment(ctx, pr.Owner, pr.Repo, pr.Number, &github.IssueComment{Body: &body})
			if err == nil {
				res.URL = c.GetHTMLURL()
			} else {
				unanswered = timedOut(err)
			}
			return err
		}
	}
	ran, err := g.opts.write(ctx, what, func(ctx context.Context) error {
		n, err := g.retry(ctx, target, what, fn)
		res.Attempts = n
		return err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case ran:
	case res.Action == Created:
		res.Action = WouldCreate
	case res.Action == Updated:
		res.Action = WouldUpdate
	}
	return res, g.summary(ctx, m)
}

// timedOut reports whether err is the client's giving up on an answer
// (Options.Timeout), rather than an answer or a connection lost.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// find returns patchbot's own comment of the kind on pr, or nil: one
// written by Self whose first line is the kind's marker (a reply quoting it
// starts with "> " and does not count; anyone else's never counts). With
// retry, each page is read under the retry policy; without, the first
// error is returned, for a caller that is itself one attempt of a retry
// loop.
func (g *GitHub) find(ctx context.Context, pr PullRequest, kind string, retry bool) (*github.IssueComment, error) {
	login, err := g.Self(ctx)
	if err != nil {
		if g.opts.DryRun && !g.SignedIn() {
			// Without a token nothing tells patchbot's comments
			// from others': a dry run says it would create one.
			return nil, nil
		}
		if e, ok := errors.AsType[*Error](err); ok {
			// Said of the pull request it was read for.
			e2 := *e
			e2.Target = "pull request " + pr.String()
			return nil, &e2
		}
		return nil, err
	}
	marker := Marker(kind)
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < 100; page++ { // 10,000 comments is past any real pull request
		var cs []*github.IssueComment
		var resp *github.Response
		list := func(ctx context.Context) error {
			var err error
			cs, resp, err = g.client().Issues.ListComments(ctx, pr.Owner, pr.Repo, pr.Number, opt)
			return err
		}
		var err error
		if retry {
			_, err = g.retry(ctx, "pull request "+pr.String(), "reading the comments", list)
		} else {
			err = list(ctx)
		}
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if first, _, _ := strings.Cut(c.GetBody(), "\n"); strings.TrimSpace(first) == marker && mine(c, login) {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
	return nil, nil
}

// summary appends the message to the step summary, when there is one.
func (g *GitHub) summary(ctx context.Context, m Message) error {
	if g.StepSummary == "" {
		return nil
	}
	_, err := g.opts.write(ctx, "append the "+m.Kind+" message to the step summary "+g.StepSummary, func(context.Context) error {
		// Cut to the 1 MiB GitHub shows, with a note.
		return actions.AppendSummary(g.StepSummary, m.Text)
	})
	return err
}

func (g *GitHub) server() string { return "GitHub " + g.api }

// retry runs fn under the retry policy, turning its final error into an
// *Error for the target.
func (g *GitHub) retry(ctx context.Context, target, op string, fn func(context.Context) error) (int, error) {
	return g.opts.retry(ctx, g.server(), target, op, classifyGitHub, gitHubHint, fn)
}

// gitHubHint says what to do about a failure: a 403 that is a rate limit
// (transient) calls for waiting, not for other token scopes.
func gitHubHint(f failure) string {
	if f.status == http.StatusForbidden && f.transient {
		return hint("GitHub", http.StatusTooManyRequests)
	}
	return hint("GitHub", f.status)
}

// classifyGitHub classifies go-github's errors. go-github recognises
// GitHub's 403 rate limits (primary and secondary) but treats 429 as any
// other status, so 429's Retry-After is read here.
func classifyGitHub(err error) failure {
	if e, ok := errors.AsType[*github.AbuseRateLimitError](err); ok {
		f := failure{transient: true, status: http.StatusForbidden, detail: "secondary rate limit: " + errorLine(e.Message), after: time.Minute}
		if e.RetryAfter != nil {
			f.after = *e.RetryAfter
		}
		return f
	}
	if e, ok := errors.AsType[*github.RateLimitError](err); ok {
		return failure{transient: true, status: http.StatusForbidden, after: time.Until(e.Rate.Reset.Time),
			detail: fmt.Sprintf("rate limit exceeded until %v", e.Rate.Reset.Time.Format(time.RFC3339))}
	}
	if _, ok := errors.AsType[*github.AcceptedError](err); ok {
		return failure{transient: true, status: http.StatusAccepted, detail: "GitHub is still preparing the answer"}
	}
	if e, ok := errors.AsType[*github.ErrorResponse](err); ok && e.Response != nil {
		return classifyHTTP(e.Response.StatusCode, e.Response.Header, e.Message)
	}
	return classifyTransport(err)
}

// URL returns the API's base URL, with a trailing slash.
func (g *GitHub) URL() string { return g.api }

// A Milestone is a milestone of a GitHub repository.
type Milestone struct {
	Number int
	Title  string    // Go1.28
	DueOn  time.Time // zero when it has no due date
}

// OpenMilestones returns the open milestones of owner/repo. Reads need no
// token on a public repository.
func (g *GitHub) OpenMilestones(ctx context.Context, owner, repo string) ([]Milestone, error) {
	opt := &github.MilestoneListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	ms, err := listAll(ctx, g, owner, repo, "listing the open milestones", &opt.ListOptions, func(ctx context.Context) ([]*github.Milestone, *github.Response, error) {
		return g.client().Issues.ListMilestones(ctx, owner, repo, opt)
	})
	if err != nil {
		return nil, err
	}
	out := make([]Milestone, len(ms))
	for i, m := range ms {
		out[i] = Milestone{Number: m.GetNumber(), Title: m.GetTitle(), DueOn: m.GetDueOn().Time}
	}
	return out, nil
}

// An IssueQuery says which issues Issues lists.
type IssueQuery struct {
	Milestone int      // the milestone's number; 0: any or none
	Labels    []string // issues with all of these labels
	State     string   // "open", "closed" or "all"; "": open
}

// An Issue is an issue of a GitHub repository.
type Issue struct {
	Number int
	Title  string
	Labels []string
}

// Issues returns the issues of owner/repo that match q. GitHub lists pull
// requests among issues; they are left out.
func (g *GitHub) Issues(ctx context.Context, owner, repo string, q IssueQuery) ([]Issue, error) {
	return g.issues(ctx, owner, repo, q, false)
}

// issues lists the issues, or the pull requests, of owner/repo that match q.
func (g *GitHub) issues(ctx context.Context, owner, repo string, q IssueQuery, pulls bool) ([]Issue, error) {
	opt := &github.IssueListByRepoOptions{State: q.State, Labels: q.Labels, ListOptions: github.ListOptions{PerPage: 100}}
	if q.Milestone > 0 {
		opt.Milestone = strconv.Itoa(q.Milestone)
	}
	is, err := listAll(ctx, g, owner, repo, "listing the issues", &opt.ListOptions, func(ctx context.Context) ([]*github.Issue, *github.Response, error) {
		return g.client().Issues.ListByRepo(ctx, owner, repo, opt)
	})
	if err != nil {
		return nil, err
	}
	var out []Issue
	for _, i := range is {
		if i.IsPullRequest() != pulls {
			continue
		}
		it := Issue{Number: i.GetNumber(), Title: i.GetTitle()}
		for _, l := range i.Labels {
			it.Labels = append(it.Labels, l.GetName())
		}
		out = append(out, it)
	}
	return out, nil
}

// maxPages bounds a listing: 100 pages of 100 is past anything patchbot
// reads, and a server that keeps saying "next" must not keep us forever.
const maxPages = 100

// listAll reads every page of a listing of owner/repo, each page under the
// retry policy and all of them within ctx's deadline. page reads the page
// that opt names.
func listAll[T any](ctx context.Context, g *GitHub, owner, repo, op string, opt *github.ListOptions, page func(context.Context) ([]T, *github.Response, error)) ([]T, error) {
	var all []T
	for range maxPages {
		var items []T
		var resp *github.Response
		err := g.opts.retryRead(ctx, g.server(), "repository "+owner+"/"+repo, op, classifyGitHub, gitHubReadHint, func(ctx context.Context) error {
			var err error
			items, resp, err = page(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opt.Page = resp.NextPage
	}
	return nil, &Error{Server: g.server(), Target: "repository " + owner + "/" + repo, Op: op,
		Detail: fmt.Sprintf("more than %d pages", maxPages), Hint: "the server keeps listing; check " + EnvGitHubAPIURL}
}

// gitHubReadHint says what to do about a failed read of a repository.
func gitHubReadHint(f failure) string {
	if f.status == http.StatusNotFound {
		return "check the repository's OWNER/REPO and that the token, if any, can see it"
	}
	return gitHubHint(f)
}

// DryRun reports whether g's writes only say what they would do
// (Options.DryRun).
func (g *GitHub) DryRun() bool { return g.opts.DryRun }

// CommitPullRequests returns the numbers of the pull requests of
// owner/repo associated with the commit sha (GitHub's "list pull requests
// associated with a commit": the one it was merged by, or whose head it
// is), merged ones first, in number order within each. A commit pushed
// straight to the branch has none.
func (g *GitHub) CommitPullRequests(ctx context.Context, owner, repo, sha string) ([]int, error) {
	opt := &github.ListOptions{PerPage: 100}
	prs, err := listAll(ctx, g, owner, repo, "listing the pull requests of commit "+sha, opt, func(ctx context.Context) ([]*github.PullRequest, *github.Response, error) {
		return g.client().PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, opt)
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(prs, func(a, b *github.PullRequest) int {
		am, bm := a.MergedAt != nil, b.MergedAt != nil
		switch {
		case am && !bm:
			return -1
		case bm && !am:
			return 1
		}
		return a.GetNumber() - b.GetNumber()
	})
	var out []int
	for _, pr := range prs {
		out = append(out, pr.GetNumber())
	}
	return out, nil
}
