package reviewtest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// The fixture of TestGitHub: the repository gopher/codec, public, with
// pull request 7 at head1, alice's review comment on it and patchbot's
// bench comment.
const (
	aliceToken = "ghp_aliceFAKEtoken"
	head1      = "9f2c4b7e1d3a5c6b8e0f1a2b3c4d5e6f7a8b9c0d"
	head2      = "5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c"
	aliceID    = 1 // alice's comment
	botID      = 2 // patchbot's
)

// newFixture starts the fake of TestGitHub's fixture. Close it when done.
func newFixture() *GitHub {
	f := NewGitHub("gopher/codec")
	f.SetHead(7, head1)
	f.AddToken(aliceToken, "alice")
	f.SetComments([]Comment{
		{ID: aliceID, Body: "LGTM", User: "alice", Issue: 7},
		{ID: botID, Body: "<!-- patchbot:bench -->\nold table", User: Bot, Issue: 7},
	})
	return f
}

// client returns a go-github client of f, as package review makes one,
// signed in with token ("": none).
func client(f *GitHub, token string) *github.Client {
	c := github.NewClient(nil)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	c.BaseURL, _ = url.Parse(f.URL + "/")
	return c
}

// edit, create, list and pull return a call of the API for TestGitHub's
// table: an edit of a comment, a new comment, the list of an issue's
// comments, a pull request of gopher/codec.
func edit(owner, repo string, id int64, body string) func(context.Context, *github.Client) (any, error) {
	return func(ctx context.Context, c *github.Client) (any, error) {
		out, _, err := c.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
		return out, err
	}
}

func create(owner, repo string, n int, body string) func(context.Context, *github.Client) (any, error) {
	return func(ctx context.Context, c *github.Client) (any, error) {
		out, _, err := c.Issues.CreateComment(ctx, owner, repo, n, &github.IssueComment{Body: &body})
		return out, err
	}
}

func list(owner, repo string, n int) func(context.Context, *github.Client) (any, error) {
	return func(ctx context.Context, c *github.Client) (any, error) {
		out, _, err := c.Issues.ListComments(ctx, owner, repo, n, nil)
		return out, err
	}
}

func pull(n int) func(context.Context, *github.Client) (any, error) {
	return func(ctx context.Context, c *github.Client) (any, error) {
		out, _, err := c.PullRequests.Get(ctx, "gopher", "codec", n)
		return out, err
	}
}

// TestGitHub calls the fake through go-github, as package review does,
// and checks that it says no where GitHub says no: another repository,
// an unknown token, a write without a token, a private repository to
// someone who may not see it, an edit of another's comment without the
// right to; and that what it says yes to looks as GitHub's answer does.
func TestGitHub(t *testing.T) {
	for _, tt := range []struct {
		name    string
		setup   func(f *GitHub)
		token   string
		do      func(context.Context, *github.Client) (any, error)
		status  int    // 0: success
		message string // the error's message, with status
		check   func(t *testing.T, f *GitHub, out any)
	}{
		// Scope: one repository, named in any case.
		{name: "another repository", token: Token, do: list("gopher", "other", 7), status: 404, message: "Not Found"},
		{name: "another owner", token: Token, do: create("mallory", "codec", 7, "hi"), status: 404, message: "Not Found"},
		{name: "another repository's comment", token: Token, do: edit("gopher", "other", botID, "x"), status: 404, message: "Not Found"},
		{name: "the repository in other case", token: Token, do: list("Gopher", "CODEC", 7),
			check: func(t *testing.T, f *GitHub, out any) {
				if cs := out.([]*github.IssueComment); len(cs) != 2 {
					t.Errorf("%d comments, want 2", len(cs))
				}
			}},

		// Identity: a token is a user; an unknown one is refused on
		// every route, even one the fake does not serve.
		{name: "unknown token", token: "ghp_nope", do: list("gopher", "codec", 7), status: 401, message: "Bad credentials"},
		{name: "unknown token, other route", token: "ghp_nope",
			do: func(ctx context.Context, c *github.Client) (any, error) {
				out, _, err := c.Users.Get(ctx, "")
				return out, err
			}, status: 401, message: "Bad credentials"},
		{name: "no token, read of a public repository", do: list("gopher", "codec", 7)},
		{name: "no token, pull request of a public repository", do: pull(7)},
		{name: "no token, read of a private repository", setup: func(f *GitHub) { f.SetPrivate(true) },
			do: list("gopher", "codec", 7), status: 404, message: "Not Found"},
		{name: "token without permission, read of a private repository", setup: func(f *GitHub) { f.SetPrivate(true) },
			token: Token, do: pull(7), status: 404, message: "Not Found"},
		{name: "token with read, read of a private repository",
			setup: func(f *GitHub) { f.SetPrivate(true); f.SetPermission(Bot, "read") },
			token: Token, do: pull(7)},
		{name: "no token, create", do: create("gopher", "codec", 7, "hi"), status: 401, message: "Requires authentication"},
		{name: "no token, edit", do: edit("gopher", "codec", aliceID, "x"), status: 401, message: "Requires authentication"},
		{name: "no token, label", do: func(ctx context.Context, c *github.Client) (any, error) {
			out, _, err := c.Issues.AddLabelsToIssue(ctx, "gopher", "codec", 7, []string{"x"})
			return out, err
		}, status: 401, message: "Requires authentication"},

		// Comments have authors: the token's user.
		{name: "create as the bot", token: Token, do: create("gopher", "codec", 7, "table"),
			check: func(t *testing.T, f *GitHub, out any) {
				c := out.(*github.IssueComment)
				if c.GetUser().GetLogin() != Bot || c.GetUser().GetType() != "User" || !strings.HasSuffix(c.GetHTMLURL(), "/gopher/codec/pull/7#issuecomment-101") {
					t.Errorf("created %+v by %+v; want by %s, on pull request 7", c, c.GetUser(), Bot)
				}
				if cs := f.Comments(); len(cs) != 3 || cs[2].User != Bot || cs[2].Issue != 7 {
					t.Errorf("stored %+v", cs)
				}
			}},
		{name: "create as alice", token: aliceToken, do: create("gopher", "codec", 7, "thanks"),
			check: func(t *testing.T, f *GitHub, out any) {
				if c := out.(*github.IssueComment); c.GetUser().GetLogin() != "alice" {
					t.Errorf("created by %+v, want alice", c.GetUser())
				}
			}},
		{name: "an app's login is a Bot", setup: func(f *GitHub) { f.AddToken("ghs_app", "patchbot[bot]") },
			token: "ghs_app", do: create("gopher", "codec", 7, "table"),
			check: func(t *testing.T, f *GitHub, out any) {
				if u := out.(*github.IssueComment).GetUser(); u.GetLogin() != "patchbot[bot]" || u.GetType() != "Bot" {
					t.Errorf("created by %+v, want the Bot patchbot[bot]", u)
				}
			}},
		{name: "listed with their authors", do: list("gopher", "codec", 7),
			check: func(t *testing.T, f *GitHub, out any) {
				cs := out.([]*github.IssueComment)
				if len(cs) != 2 || cs[0].GetUser().GetLogin() != "alice" || cs[1].GetUser().GetLogin() != Bot {
					t.Errorf("listed %+v", cs)
				}
			}},
		{name: "create on an unknown pull request", token: Token, do: create("gopher", "codec", 8, "table"), status: 404, message: "Not Found"},
		{name: "create on an issue", setup: func(f *GitHub) { f.AddIssue(0, "open") },
			token: Token, do: create("gopher", "codec", 70001, "table"),
			check: func(t *testing.T, f *GitHub, out any) {
				if u := out.(*github.IssueComment).GetHTMLURL(); !strings.HasSuffix(u, "/gopher/codec/issues/70001#issuecomment-101") {
					t.Errorf("URL %s, want an issue's", u)
				}
			}},

		// Editing: the author may; another user only with write or
		// more.
		{name: "edit own", token: Token, do: edit("gopher", "codec", botID, "new table"),
			check: func(t *testing.T, f *GitHub, out any) {
				if cs := f.Comments(); cs[1].Body != "new table" || cs[1].User != Bot {
					t.Errorf("stored %+v", cs[1])
				}
			}},
		{name: "edit own, login in other case", setup: func(f *GitHub) { f.AddToken("ghp_Alice", "Alice") },
			token: "ghp_Alice", do: edit("gopher", "codec", aliceID, "LGTM!")},
		{name: "edit another's without permission", token: Token, do: edit("gopher", "codec", aliceID, "x"),
			status: 403, message: "Must have admin rights to Repository.",
			check: func(t *testing.T, f *GitHub, out any) {
				if cs := f.Comments(); cs[0].Body != "LGTM" {
					t.Errorf("alice's comment edited: %+v", cs[0])
				}
			}},
		{name: "edit another's with triage", setup: func(f *GitHub) { f.SetPermission(Bot, "triage") },
			token: Token, do: edit("gopher", "codec", aliceID, "x"), status: 403, message: "Must have admin rights to Repository."},
		{name: "edit another's with write", setup: func(f *GitHub) { f.SetPermission(Bot, "write") },
			token: Token, do: edit("gopher", "codec", aliceID, "x"),
			check: func(t *testing.T, f *GitHub, out any) {
				if c := out.(*github.IssueComment); c.GetBody() != "x" || c.GetUser().GetLogin() != "alice" {
					t.Errorf("edited %+v; want alice's, saying x", c)
				}
			}},
		{name: "edit another's with maintain", setup: func(f *GitHub) { f.SetPermission(Bot, "maintain") },
			token: Token, do: edit("gopher", "codec", aliceID, "x")},
		{name: "edit another's with admin", setup: func(f *GitHub) { f.SetPermission(Bot, "admin") },
			token: Token, do: edit("gopher", "codec", aliceID, "x")},
		{name: "alice edits the bot's", token: aliceToken, do: edit("gopher", "codec", botID, "x"), status: 403, message: "Must have admin rights to Repository."},
		{name: "edit a comment that is not there", token: Token, do: edit("gopher", "codec", 99, "x"), status: 404, message: "Not Found"},

		// Permissions, as GitHub's legacy field says them.
		{name: "maintain is write", setup: func(f *GitHub) { f.SetPermission("Carol", "maintain") }, token: Token,
			do: func(ctx context.Context, c *github.Client) (any, error) {
				out, _, err := c.Repositories.GetPermissionLevel(ctx, "gopher", "codec", "carol")
				return out, err
			},
			check: func(t *testing.T, f *GitHub, out any) {
				if p := out.(*github.RepositoryPermissionLevel); p.GetPermission() != "write" || p.GetRoleName() != "maintain" {
					t.Errorf("permission %s, role %s; want write, maintain", p.GetPermission(), p.GetRoleName())
				}
			}},

		// Pull requests: open, closed, merged, moved; an issue is none.
		{name: "open pull request", do: pull(7),
			check: func(t *testing.T, f *GitHub, out any) {
				p := out.(*github.PullRequest)
				if p.GetState() != "open" || p.GetMerged() || p.MergedAt != nil || p.GetHead().GetSHA() != head1 || p.GetHead().GetRef() != "feature" || p.GetBase().GetRef() != "master" {
					t.Errorf("pull request %+v", p)
				}
			}},
		{name: "closed pull request", setup: func(f *GitHub) { f.ClosePullRequest(7) }, do: pull(7),
			check: func(t *testing.T, f *GitHub, out any) {
				if p := out.(*github.PullRequest); p.GetState() != "closed" || p.GetMerged() {
					t.Errorf("state %s, merged %v; want closed, not merged", p.GetState(), p.GetMerged())
				}
			}},
		{name: "merged pull request", setup: func(f *GitHub) { f.MergePullRequest(7) }, do: pull(7),
			check: func(t *testing.T, f *GitHub, out any) {
				if p := out.(*github.PullRequest); p.GetState() != "closed" || !p.GetMerged() || p.MergedAt == nil {
					t.Errorf("state %s, merged %v at %v; want closed and merged", p.GetState(), p.GetMerged(), p.MergedAt)
				}
			}},
		{name: "pushed to", setup: func(f *GitHub) { f.SetHead(7, head2) }, do: pull(7),
			check: func(t *testing.T, f *GitHub, out any) {
				if p := out.(*github.PullRequest); p.GetHead().GetSHA() != head2 || p.GetState() != "open" {
					t.Errorf("head %s, %s; want %s, open", p.GetHead().GetSHA(), p.GetState(), head2)
				}
			}},
		{name: "set in full", setup: func(f *GitHub) {
			f.SetPullRequest(7, PullRequest{Head: head2, HeadRef: "fix", Base: "release-branch.go1.28", State: "closed", Merged: true})
		}, do: pull(7),
			check: func(t *testing.T, f *GitHub, out any) {
				p := out.(*github.PullRequest)
				if p.GetHead().GetSHA() != head2 || p.GetHead().GetRef() != "fix" || p.GetBase().GetRef() != "release-branch.go1.28" || !p.GetMerged() {
					t.Errorf("pull request %+v", p)
				}
			}},
		{name: "an issue is no pull request", setup: func(f *GitHub) { f.AddIssue(0, "open") }, do: pull(70001), status: 404, message: "Not Found"},
		{name: "an added pull request has a head", setup: func(f *GitHub) { f.AddPullRequest(0, "closed") }, do: pull(70001),
			check: func(t *testing.T, f *GitHub, out any) {
				if p := out.(*github.PullRequest); len(p.GetHead().GetSHA()) != 40 || p.GetState() != "closed" {
					t.Errorf("head %q, state %s", p.GetHead().GetSHA(), p.GetState())
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			defer f.Close()
			if tt.setup != nil {
				tt.setup(f)
			}
			out, err := tt.do(context.Background(), client(f, tt.token))
			e, isResp := errors.AsType[*github.ErrorResponse](err)
			switch {
			case tt.status == 0 && err != nil:
				t.Fatalf("error %v, want success", err)
			case tt.status != 0 && (!isResp || e.Response.StatusCode != tt.status || e.Message != tt.message):
				t.Fatalf("error %v, want %d %q", err, tt.status, tt.message)
			}
			if tt.check != nil {
				tt.check(t, f, out)
			}
			if s := f.Stray(); len(s) > 0 {
				t.Errorf("requests outside the API prefix: %v", s)
			}
		})
	}
}

// tokenScheme signs every request in with Authorization: token TOKEN, the
// older scheme GitHub still takes.
type tokenScheme string

func (s tokenScheme) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+string(s))
	return http.DefaultTransport.RoundTrip(r)
}

// TestGitHubTokenScheme signs in with "token TOKEN" instead of go-github's
// "Bearer TOKEN": the same user, and an unknown token refused.
func TestGitHubTokenScheme(t *testing.T) {
	f := newFixture()
	defer f.Close()
	for token, want := range map[string]int{Token: 0, "ghp_nope": 401} {
		c := github.NewClient(&http.Client{Transport: tokenScheme(token)})
		c.BaseURL, _ = url.Parse(f.URL + "/")
		_, err := create("gopher", "codec", 7, "table")(context.Background(), c)
		e, _ := errors.AsType[*github.ErrorResponse](err)
		switch {
		case want == 0 && err != nil:
			t.Errorf("token %s: %v", token, err)
		case want != 0 && (e == nil || e.Response.StatusCode != want):
			t.Errorf("token %s: %v, want %d", token, err, want)
		}
	}
	if cs := f.Comments(); len(cs) != 3 || cs[2].User != Bot {
		t.Errorf("comments %+v; want one more, by %s", cs, Bot)
	}
}

// TestGitHubSetCommentsWithoutAuthor: every seeded comment says who wrote
// it.
func TestGitHubSetCommentsWithoutAuthor(t *testing.T) {
	f := NewGitHub("gopher/codec")
	defer f.Close()
	defer func() {
		if recover() == nil {
			t.Error("SetComments took a comment without a User")
		}
	}()
	f.SetComments([]Comment{{ID: 1, Body: "LGTM"}})
}
