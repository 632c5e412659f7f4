package review

import (
	"fmt"
	"regexp"
)

// A Repository is a GitHub repository: the one whose pull requests track
// comments on and sweep labels. Its text form, "OWNER/REPO", is how a
// flag, config.yaml and a queued job's JSON give it; ParseRepository is
// its one reader and String its one writer.
type Repository struct {
	Owner, Repo string
}

var repositoryRE = regexp.MustCompile(`^([A-Za-z0-9-]+)/([A-Za-z0-9._-]+)$`)

// ParseRepository parses OWNER/REPO, with ParsePullRequest's rules for
// the two names.
func ParseRepository(s string) (Repository, error) {
	m := repositoryRE.FindStringSubmatch(s)
	if m == nil || CheckRepository(m[1], m[2]) != nil {
		return Repository{}, fmt.Errorf("%q is not a GitHub repository like owner/repo", s)
	}
	return Repository{m[1], m[2]}, nil
}

func (r Repository) String() string {
	if r.IsZero() {
		return ""
	}
	return r.Owner + "/" + r.Repo
}

// IsZero reports whether r names no repository.
func (r Repository) IsZero() bool { return r == Repository{} }

// PullRequest returns r's pull request number n.
func (r Repository) PullRequest(n int) PullRequest {
	return PullRequest{Owner: r.Owner, Repo: r.Repo, Number: n}
}

// Repository returns the repository of p.
func (p PullRequest) Repository() Repository { return Repository{p.Owner, p.Repo} }

func (r Repository) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses r's text form; "" is no repository.
func (r *Repository) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = Repository{}
		return nil
	}
	var err error
	*r, err = ParseRepository(string(b))
	return err
}
