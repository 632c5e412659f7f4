package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/build/gerrit"

	"github.com/patchbot/patchbot/internal/gitexec"
)

// A Secret is a password or token. It prints, formats and marshals as
// "[redacted]", so that putting one in an error, a log line or a -json
// result by mistake leaks nothing; Reveal gives the value to the one place
// that sends it.
type Secret string

const redacted = "[redacted]"

func (s Secret) String() string                { return redacted }
func (s Secret) GoString() string              { return redacted }
func (s Secret) Format(f fmt.State, verb rune) { io.WriteString(f, redacted) }
func (s Secret) MarshalJSON() ([]byte, error)  { return []byte(`"` + redacted + `"`), nil }
func (s Secret) MarshalText() ([]byte, error)  { return []byte(redacted), nil }
func (s Secret) Reveal() string                { return string(s) }
func (s Secret) LogValue() slog.Value          { return slog.StringValue(redacted) }
func (s Secret) isSet() bool                   { return s != "" }

// The environment variables credentials come from.
const (
	EnvGerritUser     = "PATCHBOT_GERRIT_USER"
	EnvGerritPassword = "PATCHBOT_GERRIT_PASSWORD"
	EnvGitHubToken    = "GITHUB_TOKEN"
	EnvGitHubAPIURL   = "GITHUB_API_URL"
)

// GerritAuth is how patchbot signs in to a Gerrit server: a user name and
// HTTP password, or the cookies in a .gitcookies file, which is what Go
// contributors already have (go-review.googlesource.com/new-password writes
// it).
type GerritAuth struct {
	User       string
	Password   Secret
	CookieFile string // used when Password is empty
}

// GerritAuthFromEnv returns the credentials for the Gerrit server at
// serverURL: PATCHBOT_GERRIT_USER and PATCHBOT_GERRIT_PASSWORD when the
// password is set, else the cookie file named by 'git config
// http.cookiefile' or ~/.gitcookies when it holds a cookie for the server's
// host. It returns nil, and no error, when there are none: reads may work
// anonymously, and writes report what to set.
func GerritAuthFromEnv(serverURL string, getenv func(string) string) (*GerritAuth, error) {
	if pw := getenv(EnvGerritPassword); pw != "" {
		user := getenv(EnvGerritUser)
		if user == "" {
			return nil, fmt.Errorf("%s is set but %s is not: set both, or neither to use ~/.gitcookies", EnvGerritPassword, EnvGerritUser)
		}
		return &GerritAuth{User: user, Password: Secret(pw)}, nil
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %v", redactURL(serverURL), err)
	}
	file := cookieFile(getenv)
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the cookie file for Gerrit: %v (fix it or point 'git config http.cookiefile' elsewhere, or set %s and %s)", err, EnvGerritUser, EnvGerritPassword)
	}
	if len(cookiesFor(string(data), u)) == 0 {
		return nil, nil
	}
	return &GerritAuth{CookieFile: file}, nil
}

// cookieFile returns the file 'git config http.cookiefile' names, or
// ~/.gitcookies. The setting is the user's: git runs in the process's
// environment (gitexec.Inherit), to read the user's configuration.
func cookieFile(getenv func(string) string) string {
	out, err := (&gitexec.Cmd{Args: []string{"config", "--get", "http.cookiefile"}}).Output(context.Background())
	if f := strings.TrimSpace(out); err == nil && f != "" {
		if rest, ok := strings.CutPrefix(f, "~/"); ok {
			f = filepath.Join(getenv("HOME"), rest)
		}
		return f
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".gitcookies")
	}
	return ""
}

// cookiesFor returns the cookies of a Netscape cookie file (the format of
// .gitcookies) that a request to u would carry.
func cookiesFor(data string, u *url.URL) []*http.Cookie {
	host := u.Hostname()
	var cookies []*http.Cookie
	for line := range strings.SplitSeq(data, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "#HttpOnly_"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			continue
		}
		domain, path, name, value := f[0], f[2], f[5], f[6]
		d := strings.TrimPrefix(domain, ".")
		hostOK := host == d || ((strings.HasPrefix(domain, ".") || f[1] == "TRUE") && strings.HasSuffix(host, "."+d))
		pathOK := path == "/" || u.Path == path || strings.HasPrefix(u.Path, strings.TrimSuffix(path, "/")+"/")
		if !hostOK || !pathOK {
			continue
		}
		cookies = append(cookies, &http.Cookie{Name: name, Value: value})
	}
	return cookies
}

// rest returns the x/build/gerrit authentication for a.
func (a *GerritAuth) rest() gerrit.Auth {
	switch {
	case a == nil:
		return gerrit.NoAuth
	case a.Password.isSet():
		return gerrit.BasicAuth(a.User, a.Password.Reveal())
	default:
		return gerrit.GitCookieFileAuth(a.CookieFile)
	}
}

// GitHubAuth is how patchbot signs in to GitHub: a token, and the API's URL
// for GitHub Enterprise (and tests).
type GitHubAuth struct {
	Token  Secret
	APIURL string // "" for https://api.github.com/
	// Actions is set in a GitHub Actions run (GITHUB_ACTIONS=true),
	// where a token whose account GitHub does not say is the run's own,
	// written as ActionsBot (GitHub.Self).
	Actions bool
}

// GitHubAuthFromEnv reads GITHUB_TOKEN and GITHUB_API_URL, as GitHub Actions
// sets them.
func GitHubAuthFromEnv(getenv func(string) string) *GitHubAuth {
	return &GitHubAuth{Token: Secret(getenv(EnvGitHubToken)), APIURL: getenv(EnvGitHubAPIURL), Actions: getenv("GITHUB_ACTIONS") == "true"}
}
