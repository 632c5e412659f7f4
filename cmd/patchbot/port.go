package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/port"
)

var cmdPort = &subcommand{
	name:  "port",
	args:  "[-repo DIR] [-onto REV] [-branch NAME] [-remap OLD=NEW]... [-fuzz N] [-author A] [-m MSG] [-checkout] [-reject DIR] [-push [-gerrit URL] [-project NAME] [-for BRANCH] [-topic T] [-hashtag H]... [-r EMAIL]... [-cc EMAIL]... [-wip]] [-n] [-json] [-config FILE] PATCH...",
	short: "turn Mercurial-era patches into Gerrit-ready Git commits",
	long: `Port applies Mercurial patches to a Git repository as commits: 'hg export'
output (one or many changesets), plain 'hg diff' output, git-style diffs
('hg diff --git': renames, copies, modes, symbolic links, binary files) and
raw patches saved from the old review site. The format is read from the
text. PATCH may be - for standard input; several patches are applied in
order.

The commits are built on -onto (default HEAD) and a branch is set to the
last one (default port/ and the first 12 hex digits of the hg node). The
working tree, index and current branch are not touched unless -checkout is
given, which refuses a work tree with changes.

Each changeset keeps its author, date and time zone. Its description loses
the old review lines (R=, CC=, TBR=, LGTM=, review URLs), gets the configured
rewrites ("Fixes issue N" becomes "Fixes #N") and a Gerrit Change-Id derived
from the hg node, so porting again updates the same Gerrit change. Paths are
remapped by the configuration's port.remaps and by -remap (src/pkg/ to src/
for Go) where the old path is missing and the new one exists; every remap is
reported. Hunks whose lines moved apply at an offset, and with -fuzz N with
up to N context lines ignored at each end; both are reported.

A patch that does not apply creates nothing: the repository is left exactly
as it was and the error names every failing file and hunk with the lines
that did not match (exit status 1); -reject DIR also saves the failing hunks
as DIR/FILE.rej. Paths that are absolute, contain '..', lie in .git, or lead
through a symbolic link are refused before anything is written. A changeset
whose Change-Id is already in the history, or whose changes are already in
the tree (the patch applies in reverse), is skipped and reported.
The branch is set by compare-and-swap, with a reflog entry: of two ports
racing for one branch, one wins and the other exits 1, having written
nothing; an interrupt (Ctrl-C) before the branch is set leaves the
repository as it was. Linked worktrees and bare repositories (without
-checkout) work; a branch name git refuses, an -onto that does not resolve
and an -author that is not 'Name <email>' exit 2.

A plain diff has no author or message: -author 'Name <email>' (default: the
committer git would use) and -m (default: a line naming the patch) give them.

With -push, the branch's last commit (and with it every ported commit under
it) is then pushed to Gerrit for review, as 'git push' to
refs/for/BRANCH%topic=T,hashtag=H,r=EMAIL,cc=EMAIL,wip would: -for names
BRANCH (default master), -topic, -hashtag, -r, -cc and -wip set the push
options (-hashtag, -r and -cc repeat, or take comma-separated lists). The
server is -gerrit (default: review.gerrit in the configuration) and the
project -project, which defaults to the path of the remote origin's URL when
origin is on the Gerrit server (or, on googlesource.com, on its Git host:
go.googlesource.com/go is project go of go-review.googlesource.com). The
credentials are those of 'patchbot post': PATCHBOT_GERRIT_USER and
PATCHBOT_GERRIT_PASSWORD, or ~/.gitcookies. The URL of each change Gerrit
creates or updates is printed; a commit Gerrit already has is reported as
"no new changes", which is not an error, so a port and push can be run again
safely. Flags, server, project and credentials are checked before the port
(mistakes exit 2 and write nothing). A push that fails exits 1 after the
port: the branch is kept, and running the same command again pushes it.
With -n nothing is pushed: port prints what it would push, and where. With
-json the output is {"port": RESULT, "push": PUSH} instead of RESULT alone.
See 'patchbot doc port'.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		repo := fs.String("repo", ".", "the Git repository `DIR`")
		onto := fs.String("onto", "HEAD", "build the commits on `REV`")
		branch := fs.String("branch", "", "create the branch `NAME` (default: port/ and the hg node's first 12 hex digits)")
		var remaps remapsFlag
		fs.Var(&remaps, "remap", "`OLD=NEW`: paths starting with OLD start with NEW instead, where OLD is missing (repeatable; adds to port.remaps)")
		fuzz := fs.Int("fuzz", 0, "let a hunk ignore up to `N` context lines at each end")
		author := fs.String("author", "", "author `'Name <email>'` of a patch without metadata")
		msg := fs.String("m", "", "commit message `MSG` of a patch without metadata")
		checkout := fs.Bool("checkout", false, "check the new branch out (refused if the work tree has changes)")
		reject := fs.String("reject", "", "write the hunks that fail to `DIR`/FILE.rej")
		dryRun := fs.Bool("n", false, "print what would be committed (and pushed) and write nothing")
		jsonOut := fs.Bool("json", false, "print the result as JSON")
		pf := definePushFlags(fs)

		return func(e *env, args []string) error {
			if len(args) == 0 {
				return usagef("no patch given (use - for standard input)")
			}
			if *fuzz < 0 {
				return usagef("-fuzz must be 0 or more")
			}
			if err := pf.checkGiven(fs); err != nil {
				return err
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			req := &job.Request{
				Steps: []string{job.StepPort}, Repo: *repo, Onto: *onto, Branch: *pf.branch, DryRun: *dryRun,
				Port: job.PortSettings{Branch: *branch, Checkout: *checkout, Fuzz: *fuzz, RejectDir: *reject,
					Author: *author, Message: *msg, Remaps: remaps},
			}
			if *pf.push {
				req.Gerrit = &job.Gerrit{Server: *pf.gerrit, Push: pf.push1()}
			}
			if req.Patches, err = readPatches(e.stdin, args); err != nil {
				return err
			}
			res, err := job.Port(e.ctx, req, cfg, job.Env{Log: e.log("port")})
			if res == nil {
				return jobError(err)
			}
			if *jsonOut {
				var v any = res.Port
				if *pf.push {
					v = res
				}
				if jerr := writeJSON(e.stdout, v); jerr != nil {
					return jerr
				}
				return err
			}
			if werr := res.Port.WriteText(e.stdout); werr != nil {
				return werr
			}
			switch {
			case !*pf.push:
			case len(res.Port.Commits) == 0:
				fmt.Fprintln(e.stdout, "nothing to push")
			case res.Push != nil: // nil when the push failed; the error says so
				if werr := res.Push.WriteText(e.stdout, res.Port.Branch); werr != nil {
					return werr
				}
			}
			return err
		}
	},
}

// readPatches reads the named patch files; "-" is standard input.
func readPatches(stdin io.Reader, names []string) ([]job.Patch, error) {
	var inputs []job.Patch
	if i := slices.Index(names, "-"); i >= 0 && slices.Contains(names[i+1:], "-") {
		return nil, usagef("standard input (-) is given twice; it can be read only once")
	}
	for _, name := range names {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(stdin)
			name = "<stdin>"
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, usagef("reading patch: %v", err)
		}
		inputs = append(inputs, job.Patch{Name: name, Data: data})
	}
	return inputs, nil
}

// remapsFlag collects repeated -remap flags, checked as they are given.
type remapsFlag []string

func (r *remapsFlag) String() string { return strings.Join(*r, ",") }

func (r *remapsFlag) Set(s string) error {
	if _, err := port.ParseRemap(s); err != nil {
		return err
	}
	*r = append(*r, s)
	return nil
}
