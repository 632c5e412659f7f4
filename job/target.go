package job

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/gitexec"
	"github.com/patchbot/patchbot/step/port"
)

// badProjectRE matches what a Gerrit project name, as patchbot pushes to
// it, cannot hold.
var badProjectRE = regexp.MustCompile(`^/|/$|\.\.|//|[\s%?#\\]`)

// CheckProject checks a Gerrit project name.
func CheckProject(name string) error {
	if name == "" || badProjectRE.MatchString(name) {
		return fmt.Errorf("%q is not a Gerrit project name like go or team/tools", name)
	}
	return nil
}

// badBranchRE matches what a branch name cannot hold (git check-ref-format)
// or what would break the refs/for/BRANCH%OPTIONS ref Gerrit reads.
var badBranchRE = regexp.MustCompile(`^[-/.]|/$|\.\.|//|@\{|\.lock$|\.$|[\x00-\x20\x7f~^:?*\[\\%,]`)

// CheckBranch checks the name of a branch a change is for.
func CheckBranch(name string) error {
	b := strings.TrimPrefix(name, "refs/heads/")
	if b == "" || badBranchRE.MatchString(b) {
		return fmt.Errorf("%q is not a branch name like master or release-branch.go1.4", name)
	}
	return nil
}

// GerritProject returns the Gerrit project that the remote origin of the
// Git repository in dir points at on the server at serverURL: the path of
// origin's URL, without the server's own path, a leading /a/ and a trailing
// .git, when origin is on the server's host or, on googlesource.com, on
// the server's Git host (go.googlesource.com for
// go-review.googlesource.com). Otherwise it says why not.
func GerritProject(dir, serverURL string) (string, error) {
	out, err := (&gitexec.Cmd{Dir: dir, Args: []string{"remote", "get-url", "origin"}}).Output(context.Background())
	if err != nil {
		return "", fmt.Errorf("the repository in %s has no remote origin", dir)
	}
	su, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	ru, err := url.Parse(strings.TrimSpace(out))
	if err != nil || ru.Host == "" || (ru.Scheme != "http" && ru.Scheme != "https" && ru.Scheme != "ssh") {
		return "", fmt.Errorf("remote origin is not an http, https or ssh URL on %s", su.Host)
	}
	host := su.Hostname()
	gitHost := host
	if name, ok := strings.CutSuffix(host, "-review.googlesource.com"); ok {
		gitHost = name + ".googlesource.com"
	}
	if h := ru.Hostname(); h != host && h != gitHost {
		return "", fmt.Errorf("remote origin (%s) is not on %s", ru.Redacted(), su.Host)
	}
	p := ru.Path
	if prefix := strings.TrimSuffix(su.Path, "/"); prefix != "" && ru.Hostname() == host {
		p = strings.TrimPrefix(p, prefix)
	}
	if rest, ok := strings.CutPrefix(p, "/a/"); ok {
		p = rest
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	if CheckProject(p) != nil {
		return "", fmt.Errorf("remote origin (%s) names no project", ru.Redacted())
	}
	return p, nil
}

// PortOptions returns the port's settings from the configuration's port
// section: remaps, message clean-up, branch prefix, committer.
func PortOptions(c *config.Port) (*port.Options, error) {
	opts := &port.Options{BranchPrefix: c.BranchPrefix, DropLines: []*regexp.Regexp{}, Rewrites: []port.Rewrite{}}
	for _, r := range c.Remaps {
		rm, err := port.ParseRemap(r)
		if err != nil {
			return nil, &config.Error{File: "configuration", Key: "port.remaps", Err: err}
		}
		opts.Remaps = append(opts.Remaps, rm)
	}
	for _, d := range c.DropLines {
		opts.DropLines = append(opts.DropLines, regexp.MustCompile(d))
	}
	for _, rw := range c.Rewrites {
		opts.Rewrites = append(opts.Rewrites, port.Rewrite{Match: regexp.MustCompile(rw.Match), Replace: rw.Replace})
	}
	if name, email := c.CommitterIdent(); name != "" {
		// The commit time is now, as git's own committer's is.
		opts.Committer = &object.Signature{Name: name, Email: email, When: time.Now()}
	}
	return opts, nil
}
