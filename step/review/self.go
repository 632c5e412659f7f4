package review

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/google/go-github/v66/github"

	"github.com/patchbot/patchbot/internal/abbrev"
)

// ActionsBot is the account GitHub Actions' own token (GITHUB_TOKEN in a
// workflow, an installation token of the github-actions App) writes as.
const ActionsBot = "github-actions[bot]"

// ValidLogin reports whether s is a GitHub login as GitHub makes them
// (letters, digits and hyphens, at most 39, not starting with a hyphen),
// or an App's bot account, SLUG[bot].
func ValidLogin(s string) bool { return loginRE.MatchString(s) }

// A self is patchbot's own GitHub login, learned once and shared by the
// copies of a client (WithStepSummary).
type self struct {
	mu    sync.Mutex
	login string
}

// Self returns patchbot's own login on GitHub, the account its token
// writes as: the one it was given (Options.GitHubLogin), else the token's
// user (GET /user), else, for the token of a GitHub Actions run (an App's
// installation token, which GET /user refuses), ActionsBot. It is asked of
// GitHub once; a failure is asked again next time.
//
// Only comments by it are patchbot's: anyone may write a comment that
// starts with patchbot's marker, and anyone with write access could have
// patchbot edit theirs; so Post finds, edits and reads as a result only
// the comments Self wrote.
func (g *GitHub) Self(ctx context.Context) (string, error) {
	if g.opts.GitHubLogin != "" {
		return g.opts.GitHubLogin, nil
	}
	g.self.mu.Lock()
	defer g.self.mu.Unlock()
	if g.self.login != "" {
		return g.self.login, nil
	}
	const op = "reading the token's account"
	if !g.auth.Token.isSet() {
		return "", &Error{Server: g.server(), Target: "the token's account", Op: op, Detail: "no token",
			Hint: "set " + EnvGitHubToken + ", or name patchbot's own account in serve.github.login"}
	}
	var u *github.User
	err := g.opts.retryRead(ctx, g.server(), "the token's account", op, classifyGitHub, selfHint, func(ctx context.Context) error {
		var err error
		u, _, err = g.client().Users.Get(ctx, "")
		return err
	})
	var login string
	switch {
	case err == nil:
		login = u.GetLogin()
	case g.auth.Actions && refusedToApp(err):
		login = ActionsBot
	default:
		return "", err
	}
	if !ValidLogin(login) {
		return "", &Error{Server: g.server(), Target: "the token's account", Op: op, Status: http.StatusOK,
			Detail: fmt.Sprintf("GitHub answered the login %q", abbrev.Clip(login, 60)), Hint: "name patchbot's own account in serve.github.login"}
	}
	g.self.login = login
	return login, nil
}

// refusedToApp reports whether err is GitHub refusing GET /user to an
// App's installation token: 403 "Resource not accessible by integration".
func refusedToApp(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusForbidden && strings.Contains(e.Detail, "not accessible by integration")
}

// selfHint says what to do when GitHub does not say whose the token is.
func selfHint(f failure) string {
	if f.status == http.StatusForbidden || f.status == http.StatusUnauthorized {
		return "an App's token cannot read its own account: name it (SLUG[bot]) in serve.github.login"
	}
	return gitHubReadHint(f)
}

// mine reports whether c was written by login, patchbot's own account.
func mine(c *github.IssueComment, login string) bool {
	return strings.EqualFold(c.GetUser().GetLogin(), login)
}
