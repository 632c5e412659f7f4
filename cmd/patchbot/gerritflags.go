package main

// What the commands share: the flags of a push for review ('patchbot port
// -push', 'patchbot run -push'), the setup error, and the writer of the
// libraries' log lines.

import (
	"flag"
	"io"
	"slices"
	"strings"

	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
)

// A setupError is a problem with the configuration or the environment
// found before anything was done: exit status 2, without the usage line.
type setupError struct{ error }

func (setupError) ExitCode() int { return exitUsage }

// A linePrefixer writes each line written to it, prefixed, to w. The review
// package logs a whole line per Write.
type linePrefixer struct {
	w      io.Writer
	prefix string
	words  func(field string) string // how remedies are worded (flagWords)
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	// The libraries' lines may hold remedies (internal/remedy): here they
	// name the command's flags.
	if _, err := io.WriteString(l.w, l.prefix+remedy.Word(string(p), l.words)); err != nil {
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
		branch:  fs.String("for", "", "with -push: the `BRANCH` the change is for (default: the branch the repository is on; master for the built-in example)"),
		topic:   fs.String("topic", "", "with -push: set the change's topic to `T`"),
		wip:     fs.Bool("wip", false, "with -push: mark the change work in progress"),
	}
	fs.Var(&f.hashtags, "hashtag", "with -push: add the hashtag `H` (repeatable, or comma-separated)")
	fs.Var(&f.reviewers, "r", "with -push: ask `EMAIL` to review (repeatable, or comma-separated)")
	fs.Var(&f.cc, "cc", "with -push: CC `EMAIL` (repeatable, or comma-separated)")
	return f
}

// checkGiven refuses the flags that need -push without it, but those in
// allowed, which mean something else too in the command.
func (f *pushFlags) checkGiven(fs *flag.FlagSet, allowed ...string) error {
	if *f.push {
		return nil
	}
	var given []string
	fs.Visit(func(fl *flag.Flag) {
		if slices.Contains(pushOnly, fl.Name) && !slices.Contains(allowed, fl.Name) {
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

// push1 returns the push the flags ask for, as a job.Push.
func (f *pushFlags) push1() *job.Push {
	return &job.Push{Project: *f.project, Topic: *f.topic, Hashtags: f.hashtags, Reviewers: f.reviewers, CC: f.cc, WIP: *f.wip}
}
