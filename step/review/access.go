package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"

	"github.com/google/go-github/v66/github"
	"golang.org/x/build/gerrit"
)

// The reads that say who may ask patchbot for work (bot/command's
// Trust): a GitHub user's permission on a repository, and whether a Gerrit
// account is in a group.

var (
	loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`)
	ownerRE = regexp.MustCompile(`^[A-Za-z0-9-]+$`)
	repoRE  = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
)

// CheckRepository returns an error when owner/repo cannot name a GitHub
// repository. go-github puts the names into the URL's path as they are, so
// anything else (a slash, a "?", a repository named "." or "..") would
// read another endpoint; callers that take the names from outside (a
// webhook's payload) check them before they ask GitHub anything.
func CheckRepository(owner, repo string) error {
	if !ownerRE.MatchString(owner) || !repoRE.MatchString(repo) || repo == "." || repo == ".." {
		return fmt.Errorf("%q is not a GitHub repository: want OWNER/REPO as in github.com/OWNER/REPO", owner+"/"+repo)
	}
	return nil
}

// CheckLogin returns an error when login cannot be a GitHub login: a
// user's (letters, digits and hyphens, at most 39) or an App's SLUG[bot].
func CheckLogin(login string) error {
	if !loginRE.MatchString(login) {
		return fmt.Errorf("%q is not a GitHub login", login)
	}
	return nil
}

// PermissionLevel returns login's permission on owner/repo as GitHub's
// permission field says it: "admin", "write", "read" or "none" (a
// maintainer is "write", triage is "read"). go-github puts its arguments
// into the URL's path as they are, so each is checked first: a login such
// as ../.. would read another endpoint.
func (g *GitHub) PermissionLevel(ctx context.Context, owner, repo, login string) (string, error) {
	target := "repository " + owner + "/" + repo
	op := fmt.Sprintf("reading the permission of %q", login)
	if CheckRepository(owner, repo) != nil {
		return "", &Error{Server: g.server(), Target: target, Op: op, Detail: "not a repository name", Hint: "give OWNER and REPO as in github.com/OWNER/REPO"}
	}
	if CheckLogin(login) != nil {
		return "", &Error{Server: g.server(), Target: target, Op: op, Detail: "not a GitHub login"}
	}
	var level *github.RepositoryPermissionLevel
	err := g.opts.retryRead(ctx, g.server(), target, op, classifyGitHub, gitHubPermissionHint, func(ctx context.Context) error {
		var err error
		level, _, err = g.client().Repositories.GetPermissionLevel(ctx, owner, repo, login)
		return err
	})
	if err != nil {
		return "", err
	}
	switch p := level.GetPermission(); p {
	case "admin", "write", "read", "none":
		return p, nil
	default:
		return "", &Error{Server: g.server(), Target: target, Op: op, Status: http.StatusOK, Detail: fmt.Sprintf("GitHub answered the permission %q", p),
			Hint: "expected admin, write, read or none; check " + EnvGitHubAPIURL}
	}
}

// gitHubPermissionHint says what to do about a failed permission read.
func gitHubPermissionHint(f failure) string {
	switch {
	case f.status == http.StatusNotFound:
		return "check the repository's OWNER/REPO and the login, and that the token can see the repository"
	case f.status == http.StatusForbidden && !f.transient:
		return "the token may not read collaborators' permissions: it needs read access to the repository's metadata (a fine-grained token) or the repo scope"
	}
	return gitHubHint(f)
}

// InGroup reports whether account (an account id, a username or an email)
// is a member of the Gerrit group (a name or UUID), as the server's
// GET /groups/{group}/members/{account} answers it: a 404 there is not a
// member (nor is an account that does not exist), unless the group itself
// is not there, which is an error, not "no": a group misspelt in the
// configuration must not look like a project without reviewers. The
// account patchbot signs in with must be able to see the group.
func (g *Gerrit) InGroup(ctx context.Context, group, account string) (bool, error) {
	target := "group " + group
	op := fmt.Sprintf("checking whether %q is a member", account)
	if group == "" || account == "" {
		return false, &Error{Server: g.server(), Target: target, Op: op, Detail: "no group or no account given"}
	}
	member := true
	err := g.opts.retryRead(ctx, g.server(), target, op, classifyGerrit, gerritGroupHint, func(ctx context.Context) error {
		err := g.get(ctx, "/groups/"+url.PathEscape(group)+"/members/"+url.PathEscape(account), nil)
		if errors.Is(err, gerrit.ErrResourceNotExist) {
			member = false
			return nil
		}
		return err
	})
	if err != nil || member {
		return member, err
	}
	err = g.opts.retryRead(ctx, g.server(), target, "reading the group", classifyGerrit, gerritGroupHint, func(ctx context.Context) error {
		return g.get(ctx, "/groups/"+url.PathEscape(group), nil)
	})
	return false, err
}

// gerritGroupHint says what to do about a failed read of a group.
func gerritGroupHint(f failure) string {
	if f.status == http.StatusNotFound {
		return "check serve.gerrit.group (a group's name or UUID) and that patchbot's account can see the group"
	}
	return hint("Gerrit", f.status)
}

// get is a GET of Gerrit's REST API, signed in as x/build/gerrit signs in,
// for the endpoints that x/build/gerrit has no call for (one member of a
// group). Any status but 200 is a *gerrit.HTTPError, as the library's
// own (a 404 is gerrit.ErrResourceNotExist), so that classifyGerrit reads
// it the same way.
func (g *Gerrit) get(ctx context.Context, path string, dst any) error {
	prefix := ""
	if g.auth != nil {
		prefix = "/a"
	}
	req, err := http.NewRequestWithContext(ctx, "GET", g.url+prefix+path, nil)
	if err != nil {
		return err
	}
	switch a := g.auth; {
	case a == nil:
	case a.Password.isSet():
		req.SetBasicAuth(a.User, a.Password.Reveal())
	default:
		data, err := os.ReadFile(a.CookieFile)
		if err != nil {
			return fmt.Errorf("reading the cookie file: %v", err)
		}
		for _, c := range cookiesFor(string(data), req.URL) {
			req.AddCookie(c)
		}
	}
	res, err := g.client.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	switch {
	case res.StatusCode != http.StatusOK:
		return &gerrit.HTTPError{Res: res, Body: body}
	case dst == nil:
		return nil
	}
	return json.Unmarshal(bytes.TrimPrefix(body, []byte(")]}'")), dst)
}

// A PullRequestHead is the commit a pull request is at, and whether it is
// open, as GitHub answers GET /repos/{owner}/{repo}/pulls/{n}.
type PullRequestHead struct {
	SHA   string // the head commit: 40 lower-case hex digits
	State string // "open" or "closed"
	Base  string // the branch it is to be merged into, as "master"
	// CloneURL is the git URL of the repository it is to be merged
	// into (base.repo.clone_url: https://github.com/OWNER/REPO.git, or
	// on GitHub Enterprise its own host), where refs/pull/N/head is
	// fetched from, forks' pull requests too.
	CloneURL string
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// PullRequestHead returns the commit pr's head is at now. A server that
// reads a command from a pull-request comment binds the job to it: GitHub's
// issue_comment event does not say which commit the comment was written on,
// so the head is read as soon as the event arrives.
func (g *GitHub) PullRequestHead(ctx context.Context, pr PullRequest) (PullRequestHead, error) {
	target := "pull request " + pr.String()
	op := "reading the head commit"
	if CheckRepository(pr.Owner, pr.Repo) != nil || pr.Number <= 0 {
		return PullRequestHead{}, &Error{Server: g.server(), Target: target, Op: op, Detail: "not a pull request", Hint: "give OWNER/REPO#N as in github.com/OWNER/REPO/pull/N"}
	}
	var p *github.PullRequest
	err := g.opts.retryRead(ctx, g.server(), target, op, classifyGitHub, gitHubReadHint, func(ctx context.Context) error {
		var err error
		p, _, err = g.client().PullRequests.Get(ctx, pr.Owner, pr.Repo, pr.Number)
		return err
	})
	if err != nil {
		return PullRequestHead{}, err
	}
	h := PullRequestHead{SHA: p.GetHead().GetSHA(), State: p.GetState(), Base: p.GetBase().GetRef(), CloneURL: p.GetBase().GetRepo().GetCloneURL()}
	if !shaRE.MatchString(h.SHA) {
		return PullRequestHead{}, &Error{Server: g.server(), Target: target, Op: op, Status: http.StatusOK,
			Detail: fmt.Sprintf("GitHub answered the head commit %q", h.SHA), Hint: "expected 40 hex digits; check " + EnvGitHubAPIURL}
	}
	return h, nil
}
