package review

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// A Target is the review a job answers and its replies go to: a GitHub
// pull request or a Gerrit change, exactly one of them. It is parsed once,
// where it comes in (a webhook, a poll, a flag), and carried typed from
// there. Its text form, "github:OWNER/REPO#N" or "gerrit:HOST:N", is how
// the queue stores it and a log names it; ParseTarget is the one reader of
// that form and String the one writer.
type Target struct {
	GitHub *PullRequest
	Gerrit *GerritChange
}

// A GerritChange is a Gerrit change as a target: the server, as its URL without
// the scheme ("go-review.googlesource.com", "example.com/gerrit"), and the
// change's number.
type GerritChange struct {
	Server string
	Number int
}

func (c GerritChange) String() string { return c.Server + ":" + strconv.Itoa(c.Number) }

// GitHubTarget returns the target of a pull request.
func GitHubTarget(pr PullRequest) Target { return Target{GitHub: &pr} }

// GerritTarget returns the target of change number n on the Gerrit server
// at serverURL.
func GerritTarget(serverURL string, n int) (Target, error) {
	server, err := ServerOf(serverURL)
	if err != nil {
		return Target{}, err
	}
	if n <= 0 || n > math.MaxInt32 {
		return Target{}, fmt.Errorf("gerrit change number %d is out of range", n)
	}
	return Target{Gerrit: &GerritChange{Server: server, Number: n}}, nil
}

// ServerOf returns how a target names the Gerrit server at serverURL: its
// host (lower-cased, with its port) and path, without the scheme or a
// trailing slash. Two URLs of one server give one name.
func ServerOf(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" || !hostRE.MatchString(u.Host) {
		return "", fmt.Errorf("%q is not a server's URL", serverURL)
	}
	return strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// numberRE matches a change's or a patch set's number as its text form
// writes it: one form for one number.
var numberRE = regexp.MustCompile(`^[1-9][0-9]*$`)

// hostRE matches a host, with an optional port.
var hostRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$`)

// serverRE matches a server as a target names it: a host, an optional
// port, an optional path.
var serverRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[A-Za-z0-9._~%!$&'()*+,;=@/-]*[^/])?$`)

// ParseTarget parses a target's text form.
func ParseTarget(s string) (Target, error) {
	switch {
	case strings.HasPrefix(s, "github:"):
		pr, err := ParsePullRequest(strings.TrimPrefix(s, "github:"))
		if err != nil {
			return Target{}, fmt.Errorf("review target %q: %v", s, err)
		}
		return GitHubTarget(pr), nil
	case strings.HasPrefix(s, "gerrit:"):
		rest := strings.TrimPrefix(s, "gerrit:")
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.ParseInt(rest[i+1:], 10, 32)
		if err != nil || !numberRE.MatchString(rest[i+1:]) || !serverRE.MatchString(rest[:i]) {
			break
		}
		return Target{Gerrit: &GerritChange{Server: rest[:i], Number: int(n)}}, nil
	}
	return Target{}, fmt.Errorf("review target %q: want github:OWNER/REPO#N or gerrit:HOST:N", s)
}

// String returns the target's text form, "" for the zero Target.
func (t Target) String() string {
	switch {
	case t.GitHub != nil:
		return "github:" + t.GitHub.String()
	case t.Gerrit != nil:
		return "gerrit:" + t.Gerrit.String()
	}
	return ""
}

// IsZero reports whether t names no review.
func (t Target) IsZero() bool { return t.GitHub == nil && t.Gerrit == nil }

// MarshalText writes the text form: in JSON a target is a string.
func (t Target) MarshalText() ([]byte, error) {
	if t.GitHub != nil && t.Gerrit != nil {
		return nil, errors.New("review target names both a pull request and a change")
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads the text form; "" is the zero Target.
func (t *Target) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*t = Target{}
		return nil
	}
	v, err := ParseTarget(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// A Revision is what a job is bound to: the commit a reviewer saw, and on
// Gerrit the number of its patch set. Its text form is "PATCHSET:COMMIT"
// on Gerrit and "COMMIT" on GitHub.
type Revision struct {
	PatchSet int // 0 on GitHub
	Commit   string
}

// commitRE matches a commit's name as a revision holds it: a full SHA-1
// or SHA-256 hash, in lower case.
var commitRE = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// ParseRevision parses a revision's text form.
func ParseRevision(s string) (Revision, error) {
	commit := s
	ps := 0
	if p, c, ok := strings.Cut(s, ":"); ok {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || !numberRE.MatchString(p) {
			return Revision{}, fmt.Errorf("revision %q: patch set %q is not a number of 1 or more", s, p)
		}
		ps, commit = int(n), c
	}
	if !commitRE.MatchString(commit) {
		return Revision{}, fmt.Errorf("revision %q: %q is not a full commit hash", s, commit)
	}
	return Revision{PatchSet: ps, Commit: commit}, nil
}

// String returns the revision's text form, "" for the zero Revision.
func (r Revision) String() string {
	if r.PatchSet > 0 {
		return strconv.Itoa(r.PatchSet) + ":" + r.Commit
	}
	return r.Commit
}

// IsZero reports whether r names no revision.
func (r Revision) IsZero() bool { return r == Revision{} }

// MarshalText writes the text form: in JSON a revision is a string.
func (r Revision) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads the text form; "" is the zero Revision.
func (r *Revision) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = Revision{}
		return nil
	}
	v, err := ParseRevision(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
