package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/freeze"
)

// exitFrozen is freeze's exit status for a frozen tree, so that scripts
// and workflows can branch on it.
const exitFrozen = 3

var cmdFreeze = &subcommand{
	name:  "freeze",
	args:  "[-at DATE] [-for NAME] [-offline] [-json] [-config FILE] [-change ID -apply [-n] [-gerrit URL]]",
	short: "say whether the tree is frozen for a release, and tag a change if so",
	long: `Freeze says whether a branch (master by default) is open or frozen for a
release on DATE (today by default): which release, since when, when the tree
is expected to reopen and the release to be made, and the source of each
fact.

The sources, in order of trust: the calendar of freeze windows in the
configuration (freeze.calendar: Go's releases from Go 1.4 on), the
schedule rule for releases beyond it (freeze.rule), and live signals, unless
-offline: on Gerrit, the release branch and the open changes tagged
wait-release or ex-wait-release; on GitHub, the release's open milestone,
its due date and its open release-blocker issues; the latest stable release
in go.dev/dl's list (freeze.live). A live signal overrides the rule but not
the calendar; where sources disagree, the output says so. A live source
that does not answer within freeze.live.timeout is reported and skipped.
Live signals tell about the present, so they are read only when DATE is
today.

With -change ID -apply, freeze acts on a Gerrit change: when the tree is
frozen, it posts once a message naming the release and the expected
reopening and tags the change wait-release; when the tree is open and the
change carries wait-release, it posts once that the tree is open and swaps
the tag for ex-wait-release. -n shows what it would do and changes nothing.
The server is -gerrit, else review.gerrit; it is also the one read for live
signals. Credentials as for 'patchbot post'.

The exit status is 0 when the tree is open, 3 when it is frozen (with -json
too), 2 for bad flags or configuration (a malformed date, an unknown
branch, a calendar with inverted or overlapping windows), and 1 when acting
on the change failed. See 'patchbot doc freeze'.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		cfgFile := configFlag(fs)
		atFlag := fs.String("at", "", "answer for `DATE` (2014-11-06, or an RFC 3339 time) instead of now")
		branch := fs.String("for", "master", "the branch `NAME` to answer for")
		oldBranch := renamed(fs, "branch", "for")
		offline := fs.Bool("offline", false, "use the calendar and the rule only; read no server")
		jsonOut := fs.Bool("json", false, "print the answer as JSON")
		change := fs.String("change", "", "with -apply: the Gerrit change `ID` to act on: a number, project~number or Change-Id")
		apply := fs.Bool("apply", false, "act on -change: tag it wait-release while frozen, ex-wait-release once open, and say so once")
		dryRun := fs.Bool("n", false, "with -apply: print what would be done; change nothing")
		gerritURL := fs.String("gerrit", "", "the Gerrit server's `URL` for -apply and live signals (default: review.gerrit for -apply, freeze.live.gerrit for signals)")
		return func(e *env, args []string) error {
			oldBranch.warn(e, "freeze")
			if len(args) > 0 {
				return usagef("unexpected arguments: %q", args)
			}
			at := time.Now()
			if *atFlag != "" {
				var err error
				if at, err = job.ParseAt(*atFlag); err != nil {
					return usagef("-at: %v", err)
				}
			}
			switch {
			case *apply && *change == "":
				return usagef("-apply needs -change ID")
			case *change != "" && !*apply:
				return usagef("-change needs -apply (without it, freeze only answers)")
			case *dryRun && !*apply:
				return usagef("-n needs -apply")
			}
			cfg, err := config.Load(*cfgFile)
			if err != nil {
				return err
			}
			req := &job.Request{Steps: []string{job.StepFreeze}, Branch: *branch, At: at, DryRun: *dryRun,
				Freeze: job.FreezeSettings{Offline: *offline, Apply: *apply}}
			if *gerritURL != "" || *apply {
				req.Gerrit = &job.Gerrit{Server: *gerritURL, Change: *change}
			}
			fr, err := job.Freeze(e.ctx, req, cfg, job.Env{Log: e.log("freeze")})
			if fr == nil {
				return jobError(err, map[string]string{"branch": "-for", "gerrit.change": "-apply"})
			}
			st, res, applyErr := fr.Status, fr.Apply, err
			if *jsonOut {
				if err := writeJSON(e.stdout, fr); err != nil {
					return err
				}
			} else {
				if err := st.WriteText(e.stdout); err != nil {
					return err
				}
				if res != nil {
					if err := res.WriteText(e.stdout); err != nil {
						return err
					}
				}
			}
			if applyErr != nil {
				return applyErr
			}
			if st.Frozen {
				return frozenError{st}
			}
			return nil
		}
	},
}

// A frozenError ends a run whose answer is "frozen" with exit status 3;
// the answer itself is already on stdout.
type frozenError struct{ st *freeze.Status }

func (e frozenError) Error() string {
	return fmt.Sprintf("%s is frozen for %s (exit status %d)", e.st.Branch, freeze.Display(e.st.Release), exitFrozen)
}

func (frozenError) ExitCode() int { return exitFrozen }
