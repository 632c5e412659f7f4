package job

import (
	"context"
	"net/url"
	"regexp"
	"strings"
)

// ProjectOf returns the project a repository URL names, as a freeze policy
// lists its projects (freeze.projects): the host, in lower case and
// without a port, then the path, without ".git" or a final slash. Both
// "https://github.com/golang/go.git" and "git@github.com:golang/go" are
// "github.com/golang/go"; a Gerrit server's project URL
// "https://go-review.googlesource.com/go" is "go-review.googlesource.com/go".
// A local path, a file: URL or text that names no host gives "".
func ProjectOf(rawURL string) string {
	s := strings.TrimSpace(rawURL)
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return ""
	}
	var host, path string
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "file" {
			return ""
		}
		host, path = u.Hostname(), u.Path
	} else {
		// scp-like syntax, user@host:path, as git reads it: a colon
		// before any slash (else it is a local path).
		h, p, ok := strings.Cut(s, ":")
		if !ok || strings.Contains(h, "/") {
			return ""
		}
		if _, after, ok := strings.Cut(h, "@"); ok {
			h = after
		}
		host, path = h, p
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	path = strings.Trim(path, "/")
	if !hostRE.MatchString(host) || !pathRE.MatchString(path) {
		// An IP v6 literal, not a host at all, or a path no hosting
		// service gives a repository.
		return ""
	}
	return strings.ToLower(host) + "/" + path
}

var (
	hostRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	pathRE = regexp.MustCompile(`^[A-Za-z0-9._~+-]+(/[A-Za-z0-9._~+-]+)*$`)
)

// project returns the project the change is for, for the freeze policy:
// Project when said (serve says where it fetched from), else the one the
// remote named origin of Repo names. known is false for a request with
// neither a project nor a repository (the built-in example, patchbot
// freeze): those ask the policy itself.
func (r *Request) project(ctx context.Context) (project string, known bool) {
	if r.Project != "" {
		return r.Project, true
	}
	if r.Repo == "" {
		return "", false
	}
	u, err := gitOut(ctx, r.Repo, "config", "--get", "remote.origin.url")
	if err != nil {
		return "", true
	}
	return ProjectOf(u), true
}
