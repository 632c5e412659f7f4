package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// PushOptions say what to push for review and how Gerrit should file it.
type PushOptions struct {
	Dir       string   // the Git repository (any directory in it)
	Project   string   // the Gerrit project, for the default Remote
	Remote    string   // the URL to push to; default SERVER/a/PROJECT (SERVER/PROJECT without credentials)
	Commit    string   // what to push; default HEAD
	Branch    string   // the branch the change is for; default master
	Topic     string   // Gerrit topic
	Hashtags  []string // Gerrit hashtags, such as wait-release
	Reviewers []string // reviewers (account emails or user names)
	CC        []string // accounts to CC
	WIP       bool     // mark the change work in progress
}

// A PushResult is what Gerrit said of a push.
type PushResult struct {
	Remote       string         `json:"remote"` // without credentials
	Ref          string         `json:"ref"`    // refs/for/BRANCH%options
	Commit       string         `json:"commit"`
	Changes      []PushedChange `json:"changes,omitempty"`
	NoNewChanges bool           `json:"no_new_changes,omitempty"` // Gerrit has this commit already
	DryRun       bool           `json:"dry_run,omitempty"`
}

// A PushedChange is a change that Gerrit created or updated for a push.
type PushedChange struct {
	URL     string `json:"url"`
	Subject string `json:"subject"`
	New     bool   `json:"new,omitempty"`
	WIP     bool   `json:"wip,omitempty"`
}

// An option value goes into the ref name, where Gerrit separates options by
// commas; keep to characters that need no escaping there.
var pushValueRE = regexp.MustCompile(`^[A-Za-z0-9._@+/:-]+$`)

// Ref returns the magic ref Gerrit creates or updates changes for, with
// the options: refs/for/master%topic=T,hashtag=H,r=R,cc=C,wip.
func (o *PushOptions) Ref() (string, error) {
	branch := o.Branch
	if branch == "" {
		branch = "master"
	}
	branch = strings.TrimPrefix(branch, "refs/heads/")
	var opts []string
	add := func(key string, values ...string) error {
		for _, v := range values {
			if !pushValueRE.MatchString(v) {
				return fmt.Errorf("push option %s=%q: use letters, digits and . _ @ + / : - only", key, v)
			}
			opts = append(opts, key+"="+v)
		}
		return nil
	}
	if o.Topic != "" {
		if err := add("topic", o.Topic); err != nil {
			return "", err
		}
	}
	if err := add("hashtag", o.Hashtags...); err != nil {
		return "", err
	}
	if err := add("r", o.Reviewers...); err != nil {
		return "", err
	}
	if err := add("cc", o.CC...); err != nil {
		return "", err
	}
	if o.WIP {
		opts = append(opts, "wip")
	}
	ref := "refs/for/" + branch
	if len(opts) > 0 {
		ref += "%" + strings.Join(opts, ",")
	}
	return ref, nil
}

// Push pushes a commit to Gerrit for review, as 'git push REMOTE
// COMMIT:refs/for/BRANCH%OPTIONS' would, over HTTP with go-git. It returns
// the changes Gerrit lists in its answer. A commit Gerrit already has is
// reported with NoNewChanges, not as an error: pushing twice is harmless.
func (g *Gerrit) Push(ctx context.Context, o PushOptions) (*PushResult, error) {
	ref, err := o.Ref()
	if err != nil {
		return nil, err
	}
	remote := o.Remote
	if remote == "" {
		if o.Project == "" {
			return nil, errors.New("push: no project and no remote URL")
		}
		remote = g.PushRemote(o.Project)
	}
	if _, err := CheckServerURL(remote); err != nil {
		return nil, err
	}
	repo, err := git.PlainOpenWithOptions(o.Dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("push: opening the repository in %s: %v", o.Dir, err)
	}
	commit := o.Commit
	if commit == "" {
		commit = "HEAD"
	}
	h, err := repo.ResolveRevision(plumbing.Revision(commit))
	if err != nil {
		return nil, fmt.Errorf("push: %s in %s: %v", commit, o.Dir, err)
	}
	res := &PushResult{Remote: remote, Ref: ref, Commit: h.String()}
	target := "push of " + h.String()[:12] + " to " + ref
	if err := g.needAuth(target); err != nil && !g.opts.DryRun {
		return nil, err
	}
	r := git.NewRemote(repo.Storer, &gitconfig.RemoteConfig{Name: "patchbot-review", URLs: []string{remote}})
	var progress bytes.Buffer
	what := fmt.Sprintf("push %s to %s %s", h.String()[:12], remote, ref)
	ran, err := g.opts.write(ctx, what, func(ctx context.Context) error {
		_, err := g.retry(ctx, target, "pushing", func(ctx context.Context) error {
			progress.Reset()
			err := r.PushContext(ctx, &git.PushOptions{
				RemoteName: "patchbot-review",
				RefSpecs:   []gitconfig.RefSpec{gitconfig.RefSpec("+" + h.String() + ":" + ref)},
				Auth:       g.auth.git(),
				Progress:   &progress,
			})
			if isNoNewChanges(err) || errors.Is(err, git.NoErrAlreadyUpToDate) {
				res.NoNewChanges = true
				return nil
			}
			return err
		})
		return err
	})
	if e, ok := errors.AsType[*Error](err); ok {
		switch {
		case e.Status == http.StatusForbidden:
			// Gerrit answers a push to a project that does not exist,
			// or that the account may not see, with 403, not 404.
			e.Hint = "check the project name (" + o.Project + ") and that the account may push for review to it"
		case e.Status == 0 && strings.HasPrefix(e.Detail, "command error on "):
			// Gerrit refused the commit itself: missing Change-Id,
			// forged committer, closed change...
			_, e.Detail, _ = strings.Cut(strings.TrimPrefix(e.Detail, "command error on "), ": ")
			e.Detail = "Gerrit refused it: " + e.Detail
			e.Hint = "fix what Gerrit says and push again"
		}
	}
	if err != nil {
		return nil, err
	}
	res.DryRun = !ran
	res.Changes = parsePushProgress(progress.String())
	return res, nil
}

// PushRemote returns the URL Push pushes to for project when
// PushOptions.Remote is empty: SERVER/a/PROJECT, Gerrit's authenticated
// path, when g has credentials, else SERVER/PROJECT.
func (g *Gerrit) PushRemote(project string) string {
	if g.auth != nil {
		return g.url + "/a/" + project
	}
	return g.url + "/" + project
}

// isNoNewChanges reports whether err is Gerrit refusing a push because
// every commit in it is already a patch set.
func isNoNewChanges(err error) bool {
	return err != nil && strings.HasSuffix(err.Error(), "no new changes")
}

// changeLineRE matches the lines in which Gerrit lists the changes a push
// created or updated, with flags such as [WIP] and [NEW] at the end:
//
//	http://127.0.0.1:8080/c/project/+/1 subject [WIP] [NEW]
var changeLineRE = regexp.MustCompile(`^\s*(https?://\S+/c/\S+/\+/\d+)\s+(.*?)((?:\s+\[[A-Z, ]+\])*)\s*$`)

var flagRE = regexp.MustCompile(`[A-Z]+`)

// parsePushProgress returns the changes listed in Gerrit's answer to a
// push, which arrives as progress messages (what git prints as "remote:").
func parsePushProgress(s string) []PushedChange {
	var changes []PushedChange
	for line := range strings.SplitSeq(strings.ReplaceAll(s, "\r", "\n"), "\n") {
		m := changeLineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := PushedChange{URL: m[1], Subject: m[2]}
		for _, flag := range flagRE.FindAllString(m[3], -1) {
			switch flag {
			case "NEW":
				c.New = true
			case "WIP":
				c.WIP = true
			}
		}
		changes = append(changes, c)
	}
	return changes
}

// git returns the go-git authentication for a.
func (a *GerritAuth) git() transport.AuthMethod {
	switch {
	case a == nil:
		return nil
	case a.Password.isSet():
		return &githttp.BasicAuth{Username: a.User, Password: a.Password.Reveal()}
	default:
		return &cookieAuth{file: a.CookieFile}
	}
}

// cookieAuth authenticates git over HTTP with the cookies of a .gitcookies
// file, as git does with http.cookiefile.
type cookieAuth struct {
	file string
	once sync.Once
	data string
}

func (c *cookieAuth) Name() string   { return "http-cookies" }
func (c *cookieAuth) String() string { return "cookies from " + c.file }

func (c *cookieAuth) SetAuth(r *http.Request) {
	c.once.Do(func() {
		data, _ := os.ReadFile(c.file) // read before by GerritAuthFromEnv; gone since, no cookies (and a 401 that says what to set)
		c.data = string(data)
	})
	for _, ck := range cookiesFor(c.data, r.URL) {
		r.AddCookie(ck)
	}
}
