package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"time"
)

// Review is the review section: how 'patchbot post' reaches Gerrit and
// GitHub. Credentials are never here; they come from the environment and
// ~/.gitcookies (see docs/review.md).
type Review struct {
	// Gerrit is the Gerrit server 'patchbot post -change' posts to when
	// -gerrit is not given, such as https://go-review.googlesource.com.
	Gerrit string `yaml:"gerrit" json:"gerrit"`

	// Labels are votes added to every Gerrit message patchbot posts,
	// such as {Run-TryBot: 1}; empty posts messages without votes.
	Labels map[string]int `yaml:"labels" json:"labels"`

	// Attempts is how many times a request that failed transiently (5xx,
	// 429, a timeout, a broken connection) is tried in all.
	Attempts int `yaml:"attempts" json:"attempts"`

	// Backoff is the wait before the second attempt, doubled after each
	// failure; a server's Retry-After overrides it when longer.
	Backoff time.Duration `yaml:"backoff" json:"backoff"`

	// MaxWait bounds the total time spent waiting between attempts.
	MaxWait time.Duration `yaml:"max_wait" json:"max_wait"`

	// Timeout bounds each HTTP request.
	Timeout time.Duration `yaml:"timeout" json:"timeout"`
}

var labelRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*$`)

func (r *Review) validate() error {
	if r.Gerrit != "" {
		u, err := url.Parse(r.Gerrit)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return &keyError{"gerrit", fmt.Errorf("%q is not an http:// or https:// URL", r.Gerrit)}
		case u.User != nil:
			return &keyError{"gerrit", errors.New("must not hold credentials; see 'patchbot doc review' for where they go")}
		}
	}
	names := make([]string, 0, len(r.Labels))
	for name := range r.Labels {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if v := r.Labels[name]; !labelRE.MatchString(name) || v < -9 || v > 9 {
			return &keyError{"labels", fmt.Errorf("%s: %d is not a vote like Code-Review: 1", name, v)}
		}
	}
	switch {
	case r.Attempts < 1 || r.Attempts > 20:
		return &keyError{"attempts", errors.New("must be from 1 to 20")}
	case r.Backoff <= 0:
		return &keyError{"backoff", errors.New("must be a positive duration like 1s")}
	case r.MaxWait < 0:
		return &keyError{"max_wait", errors.New("must not be negative")}
	case r.Timeout <= 0:
		return &keyError{"timeout", errors.New("must be a positive duration like 30s")}
	}
	return nil
}
