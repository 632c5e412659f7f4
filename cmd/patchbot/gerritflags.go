package main

// What the commands that talk to Gerrit share ('patchbot post' and
// 'patchbot port -push'): the server from -gerrit or the configuration, the
// credentials from the environment, the retry policy, and the flags of a
// push for review.

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/workflow/review"
)

// gerritServerURL returns the Gerrit server to use: the -gerrit flag's
// value, else review.gerrit of the configuration; "" when neither is set.
// A URL that is not one, or holds credentials, is a usage error.
func gerritServerURL(flagValue string, rc *config.Review) (string, error) {
	s := flagValue
	if s == "" {
		s = rc.Gerrit
	}
	if s == "" {
		return "", nil
	}
	u, err := review.CheckServerURL(s)
	if err != nil {
		return "", usagef("-gerrit: %v", err)
	}
	return u, nil
}

// reviewOptions returns the options of a review client for the command
// name: retries and timeouts from the configuration, and each retry (and,
// in a dry run, each write not done) logged as a line on stderr.
func reviewOptions(e *env, name string, rc *config.Review, dryRun bool) review.Options {
	return review.Options{
		DryRun: dryRun,
		Log:    &linePrefixer{w: e.stderr, prefix: "patchbot " + name + ": "},
		Policy: review.Policy{
			Attempts:   rc.Attempts,
			Backoff:    rc.Backoff,
			MaxBackoff: max(30*time.Second, rc.Backoff),
			MaxWait:    rc.MaxWait,
		},
		Timeout: rc.Timeout,
	}
}

// newGerrit returns a client of the Gerrit server at serverURL, signed in
// with the credentials of the environment (review.GerritAuthFromEnv), and
// reports whether there were any.
func newGerrit(serverURL string, opts review.Options) (g *review.Gerrit, signedIn bool, err error) {
	auth, err := review.GerritAuthFromEnv(serverURL, os.Getenv)
	if err != nil {
		return nil, false, err
	}
	g, err = review.NewGerrit(serverURL, auth, opts)
	return g, auth != nil, err
}

// A setupError is a problem with the configuration or the environment
// found before anything was done: exit status 2, without the usage line.
type setupError struct{ error }

func (setupError) ExitCode() int { return exitUsage }

// A linePrefixer writes each line written to it, prefixed, to w. The review
// package logs a whole line per Write.
type linePrefixer struct {
	w      io.Writer
	prefix string
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(l.w, l.prefix+string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// listFlag collects a flag given several times, each time one value or a
// comma-separated list, as git-codereview's -r and -cc take them.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// badProjectRE matches what a Gerrit project name, as patchbot pushes to
// it, cannot hold.
var badProjectRE = regexp.MustCompile(`^/|/$|\.\.|//|[\s%?#\\]`)

// checkProject checks a Gerrit project name given by -project.
func checkProject(name string) error {
	if name == "" || badProjectRE.MatchString(name) {
		return fmt.Errorf("%q is not a Gerrit project name like go or team/tools", name)
	}
	return nil
}

// badBranchRE matches what a branch name cannot hold (git check-ref-format)
// or what would break the refs/for/BRANCH%OPTIONS ref Gerrit reads.
var badBranchRE = regexp.MustCompile(`^[-/.]|/$|\.\.|//|@\{|\.lock$|\.$|[\x00-\x20\x7f~^:?*\[\\%,]`)

// checkPushBranch checks the branch given by -for.
func checkPushBranch(name string) error {
	b := strings.TrimPrefix(name, "refs/heads/")
	if b == "" || badBranchRE.MatchString(b) {
		return fmt.Errorf("%q is not a branch name like master or release-branch.go1.4", name)
	}
	return nil
}

// gerritProject returns the Gerrit project that the remote origin of the
// Git repository in dir points at on the server at serverURL: the path of
// origin's URL, without the server's own path, a leading /a/ and a trailing
// .git, when origin is on the server's host or, on googlesource.com, on
// the server's Git host (go.googlesource.com for
// go-review.googlesource.com). Otherwise it says why not.
func gerritProject(dir, serverURL string) (string, error) {
	cmd := exec.Command("git", "remote", "get-url", "origin")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("the repository in %s has no remote origin", dir)
	}
	su, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	ru, err := url.Parse(strings.TrimSpace(string(out)))
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
	if checkProject(p) != nil {
		return "", fmt.Errorf("remote origin (%s) names no project", ru.Redacted())
	}
	return p, nil
}

// pushFlags are the flags of a push for review ('patchbot port -push'),
// named as git-codereview and Gerrit's push options name them.
type pushFlags struct {
	push                    *bool
	gerrit, project, branch *string
	topic                   *string
	hashtags, reviewers, cc listFlag
	wip                     *bool
}

// pushOnly are the flags that mean something only with -push.
var pushOnly = []string{"gerrit", "project", "for", "topic", "hashtag", "r", "cc", "wip"}

// definePushFlags defines -push and the flags that go with it on fs.
func definePushFlags(fs *flag.FlagSet) *pushFlags {
	f := &pushFlags{
		push:    fs.Bool("push", false, "push the new branch's last commit to Gerrit for review, as refs/for/BRANCH"),
		gerrit:  fs.String("gerrit", "", "with -push: the Gerrit server's `URL` (default: review.gerrit)"),
		project: fs.String("project", "", "with -push: the Gerrit project `NAME` (default: the path of the remote origin's URL, when it is on the Gerrit server)"),
		branch:  fs.String("for", "master", "with -push: the `BRANCH` the change is for"),
		topic:   fs.String("topic", "", "with -push: set the change's topic to `T`"),
		wip:     fs.Bool("wip", false, "with -push: mark the change work in progress"),
	}
	fs.Var(&f.hashtags, "hashtag", "with -push: add the hashtag `H` (repeatable, or comma-separated)")
	fs.Var(&f.reviewers, "r", "with -push: ask `EMAIL` to review (repeatable, or comma-separated)")
	fs.Var(&f.cc, "cc", "with -push: CC `EMAIL` (repeatable, or comma-separated)")
	return f
}

// checkGiven refuses the flags that need -push without it.
func (f *pushFlags) checkGiven(fs *flag.FlagSet) error {
	if *f.push {
		return nil
	}
	var given []string
	fs.Visit(func(fl *flag.Flag) {
		if slices.Contains(pushOnly, fl.Name) {
			given = append(given, "-"+fl.Name)
		}
	})
	switch len(given) {
	case 0:
		return nil
	case 1:
		return usagef("%s needs -push", given[0])
	}
	return usagef("%s need -push", strings.Join(given, ", "))
}

// A pushTarget is a checked push for review: the client, and the options
// but the commit to push.
type pushTarget struct {
	g      *review.Gerrit
	opts   review.PushOptions
	ref    string // refs/for/BRANCH%OPTIONS
	remote string // where the push goes, without credentials
}

// target checks the push flags, the server and the credentials, before
// anything is written: mistakes are usage errors (exit 2), and so is a
// push without credentials, unless dryRun. repo is the repository whose
// remote origin names the project when -project is not given.
func (f *pushFlags) target(e *env, name string, rc *config.Review, repo string, dryRun bool) (*pushTarget, error) {
	server, err := gerritServerURL(*f.gerrit, rc)
	if err != nil {
		return nil, err
	}
	if server == "" {
		return nil, usagef("-push needs -gerrit URL (or review.gerrit in the configuration)")
	}
	if err := checkPushBranch(*f.branch); err != nil {
		return nil, usagef("-for: %v", err)
	}
	project := *f.project
	if project == "" {
		if project, err = gerritProject(repo, server); err != nil {
			return nil, usagef("-push needs -project NAME: %v, so the Gerrit project cannot be taken from it", err)
		}
	} else if err := checkProject(project); err != nil {
		return nil, usagef("-project: %v", err)
	}
	t := &pushTarget{opts: review.PushOptions{
		Dir:       repo,
		Project:   project,
		Branch:    *f.branch,
		Topic:     *f.topic,
		Hashtags:  f.hashtags,
		Reviewers: f.reviewers,
		CC:        f.cc,
		WIP:       *f.wip,
	}}
	if t.ref, err = t.opts.Ref(); err != nil {
		return nil, usagef("%v", err)
	}
	g, signedIn, err := newGerrit(server, reviewOptions(e, name, rc, false))
	if err != nil {
		return nil, setupError{err}
	}
	if !signedIn && !dryRun {
		u, _ := url.Parse(server)
		return nil, setupError{fmt.Errorf("-push: no credentials for Gerrit %s: set %s and %s (an HTTP password), or add %s to ~/.gitcookies; nothing was done",
			server, review.EnvGerritUser, review.EnvGerritPassword, u.Hostname())}
	}
	t.g = g
	t.remote = g.PushRemote(project) // what Push uses, for a dry run to show
	return t, nil
}
