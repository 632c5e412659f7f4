package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// Sweep is the sweep section: what 'patchbot sweep' sweeps, for a
// scheduled job whose command line stays short (docs/sweep.md). Each key
// is also a flag of sweep's, which wins.
type Sweep struct {
	// Query narrows the open changes swept, in Gerrit's search syntax
	// (project:go); "" sweeps every open change of the branch that the
	// account can see.
	Query string `yaml:"query" json:"query"`

	// GitHub is the OWNER/REPO whose open pull requests the freeze task
	// labels; "" labels none.
	GitHub string `yaml:"github" json:"github"`

	// Queue is serve's queue (sqlite:FILE or postgres://...): the stale
	// task puts its bench jobs there for serve's workers; "" runs them in
	// the sweep itself. No password here: PostgreSQL's comes from
	// PGPASSWORD.
	Queue string `yaml:"queue" json:"queue"`

	// MaxStale bounds the benchmarks one sweep asks for.
	MaxStale int `yaml:"max_stale" json:"max_stale"`
}

var repoRE = regexp.MustCompile(`^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`)

func (s *Sweep) validate() error {
	switch {
	case len(s.Query) > 1000:
		return &keyError{"query", fmt.Errorf("a query of %d bytes: at most 1000", len(s.Query))}
	case strings.ContainsFunc(s.Query, unicode.IsControl):
		return &keyError{"query", errors.New("has control characters in it")}
	case s.GitHub != "" && !repoRE.MatchString(s.GitHub):
		return &keyError{"github", fmt.Errorf("%q is not a repository like owner/repo", s.GitHub)}
	case s.MaxStale < 1 || s.MaxStale > 100:
		return &keyError{"max_stale", errors.New("must be from 1 to 100")}
	}
	if q := s.Queue; q != "" {
		if !strings.HasPrefix(q, "sqlite:") && !strings.HasPrefix(q, "postgres://") && !strings.HasPrefix(q, "postgresql://") {
			return &keyError{"queue", fmt.Errorf("%q is not sqlite:FILE or postgres://USER@HOST:PORT/DATABASE", q)}
		}
		if u, err := url.Parse(q); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				return &keyError{"queue", fmt.Errorf("%s has a password in it: leave it out, and set PGPASSWORD where sweep runs", u.Redacted())}
			}
		}
	}
	return nil
}
