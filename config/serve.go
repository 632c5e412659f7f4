package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Serve is the serve section: who may ask 'patchbot serve' for work in a
// review comment (/patchbot bench). Anyone not named here, nor given
// write access on GitHub, gets a polite refusal (docs/serve.md).
type Serve struct {
	GitHub ServeGitHub `yaml:"github" json:"github"`
	Gerrit ServeGerrit `yaml:"gerrit" json:"gerrit"`
}

// ServeGitHub says who may ask on GitHub besides those with write,
// maintain or admin permission on the repository.
type ServeGitHub struct {
	// Login is patchbot's own GitHub account, the one its token writes
	// as: only its comments are patchbot's. "" asks GitHub whose token
	// it is (a user's; in GitHub Actions, github-actions[bot]); an App's
	// token elsewhere needs it named, SLUG[bot].
	Login string `yaml:"login" json:"login"`
	// Trusted are GitHub logins that may ask whatever their permission.
	Trusted []string `yaml:"trusted" json:"trusted"`
}

// ServeGerrit says who may ask on Gerrit.
type ServeGerrit struct {
	// Group is the Gerrit group whose members may ask, by name or UUID;
	// "" is none, and only Trusted may ask.
	Group string `yaml:"group" json:"group"`
	// Trusted are accounts that may ask besides the group's members:
	// account ids (1000042), usernames or emails.
	Trusted []string `yaml:"trusted" json:"trusted"`
	// Query is the changes whose messages serve reads, in Gerrit's
	// search syntax ("project:go status:open"); serve adds the time
	// bound. Its parentheses and quotes must balance, so that the bound
	// applies to all of it.
	Query string `yaml:"query" json:"query"`
}

// maxQuery bounds serve.gerrit.query: a search, not a list of changes.
const maxQuery = 1000

var (
	gitHubLoginRE   = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}$`)
	gerritAccountRE = regexp.MustCompile(`^[A-Za-z0-9._@+-]+$`)
)

func (s *ServeGitHub) validate() error {
	if l := strings.TrimSuffix(s.Login, "[bot]"); s.Login != "" && (len(l) > 39 || !gitHubLoginRE.MatchString(l)) {
		return &keyError{"login", fmt.Errorf("%q is not a GitHub login (letters, digits and single hyphens, at most 39), nor an App's SLUG[bot]", s.Login)}
	}
	for i, l := range s.Trusted {
		switch {
		case strings.HasSuffix(strings.ToLower(l), "[bot]"):
			return &keyError{"trusted", fmt.Errorf("%q is a bot, and a bot's comments are never commands", l)}
		case len(l) > 39 || !gitHubLoginRE.MatchString(l):
			return &keyError{"trusted", fmt.Errorf("%q is not a GitHub login (letters, digits and single hyphens, at most 39)", l)}
		case slices.ContainsFunc(s.Trusted[:i], func(m string) bool { return strings.EqualFold(m, l) }):
			return &keyError{"trusted", fmt.Errorf("%q is listed twice", l)}
		}
	}
	return nil
}

func (s *ServeGerrit) validate() error {
	g := s.Group
	switch {
	case g != strings.TrimSpace(g):
		return &keyError{"group", fmt.Errorf("%q has spaces around it", g)}
	case strings.ContainsFunc(g, unicode.IsControl):
		return &keyError{"group", fmt.Errorf("%q has control characters in it", g)}
	case len(g) > 255:
		return &keyError{"group", fmt.Errorf("a name of %d bytes is not a group's: at most 255", len(g))}
	}
	switch q := s.Query; {
	case strings.TrimSpace(q) == "":
		return &keyError{"query", fmt.Errorf("is empty: give a Gerrit search, such as %q (%q reads every open change the account can see)", "project:go status:open", "status:open")}
	case strings.ContainsFunc(q, unicode.IsControl):
		return &keyError{"query", fmt.Errorf("%q has control characters in it", q)}
	case len(q) > maxQuery:
		return &keyError{"query", fmt.Errorf("a search of %d bytes: at most %d", len(q), maxQuery)}
	case !balanced(q):
		return &keyError{"query", fmt.Errorf("%q: its parentheses or quotes do not balance, and serve's time bound would not apply to all of it", q)}
	}
	for i, a := range s.Trusted {
		switch {
		case !gerritAccountRE.MatchString(a) || strings.Trim(a, "0") == "" || len(a) > 255:
			return &keyError{"trusted", fmt.Errorf("%q is not an account: give its id (1000042), username or email", a)}
		case slices.Contains(s.Trusted[:i], a):
			return &keyError{"trusted", fmt.Errorf("%q is listed twice", a)}
		}
	}
	return nil
}

// balanced reports whether the parentheses of a Gerrit search balance
// outside its double-quoted strings, and its quotes close.
func balanced(q string) bool {
	depth, quoted := 0, false
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case quoted && c == '\\':
			i++ // an escaped character in a string
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && !quoted
}
