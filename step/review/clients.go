package review

import (
	"os"
	"sync"
)

// Clients are the review clients of a process, built once from the
// Options every client shares (dry run, log, retries, timeout) and the
// credentials getenv gives (GerritAuthFromEnv, GitHubAuthFromEnv): one
// GitHub client, and one Gerrit client per server, each made when it is
// first asked for and then handed out again. They hold the dry run: a
// dry run's clients write nothing, whoever uses them. Clients are safe for
// concurrent use.
type Clients struct {
	opts   Options
	getenv func(string) string

	mu     sync.Mutex
	gerrit map[string]*Gerrit // by CheckServerURL's form of the URL
	github *GitHub
	dry    *Clients // WithDryRun's, made once
}

// NewClients returns the clients made with opts and the credentials
// getenv (nil: os.Getenv) gives when each is made.
func NewClients(getenv func(string) string, opts Options) *Clients {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Clients{opts: opts, getenv: getenv, gerrit: map[string]*Gerrit{}}
}

// DryRun reports whether the clients' writes only say what they would do
// (Options.DryRun).
func (c *Clients) DryRun() bool { return c.opts.DryRun }

// WithDryRun returns clients like c's that write nothing: c itself when it
// is a dry run's.
func (c *Clients) WithDryRun() *Clients {
	if c.opts.DryRun {
		return c
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dry == nil {
		o := c.opts
		o.DryRun = true
		c.dry = NewClients(c.getenv, o)
	}
	return c.dry
}

// Gerrit returns the client of the Gerrit server at serverURL, signed in
// with the credentials of the environment if it has any for the server
// (Gerrit.SignedIn says), else anonymous.
func (c *Clients) Gerrit(serverURL string) (*Gerrit, error) {
	u, err := CheckServerURL(serverURL)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.gerrit[u]; g != nil {
		return g, nil
	}
	auth, err := GerritAuthFromEnv(u, c.getenv)
	if err != nil {
		return nil, err
	}
	g, err := NewGerrit(u, auth, c.opts)
	if err != nil {
		return nil, err
	}
	c.gerrit[u] = g
	return g, nil
}

// GitHub returns the GitHub client, with the API URL and token of the
// environment; without a token it reads anonymously (GitHub.SignedIn
// says).
func (c *Clients) GitHub() (*GitHub, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.github != nil {
		return c.github, nil
	}
	gh, err := NewGitHub(GitHubAuthFromEnv(c.getenv), c.opts)
	if err != nil {
		return nil, err
	}
	c.github = gh
	return gh, nil
}

// SignedIn reports whether g has credentials: without, it reads
// anonymously and its writes fail (CheckAuth says what to set).
func (g *Gerrit) SignedIn() bool { return g.auth != nil }

// SignedIn reports whether g has a token: without, it reads anonymously
// and its writes fail (CheckAuth says what to set).
func (g *GitHub) SignedIn() bool { return g.auth.Token.isSet() }

// WithStepSummary returns a client like g that also appends each post's
// text to file, GitHub Actions' step summary (GitHub.StepSummary); g is
// left as it is, so that a client shared by a process is not changed
// under its other users.
func (g *GitHub) WithStepSummary(file string) *GitHub {
	c := *g
	c.StepSummary = file
	return &c
}

// User returns the user name g signs in as: "" when it has no
// credentials, or signs in with cookies.
func (g *Gerrit) User() string {
	if g.auth == nil {
		return ""
	}
	return g.auth.User
}
