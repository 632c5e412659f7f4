package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/patchbot/patchbot/step/freeze/freezetest"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// The scripts in testdata/script/freeze_servers read live signals from a
// fake GitHub and a served release list, and act on changes of the real
// Gerrit (the scripts that need it skip without it). Like
// TestPostServers, they run apart for the servers' environment and their
// commands.
func TestFreezeServers(t *testing.T) {
	testscript.Run(t, serverScripts("testdata/script/freeze_servers", func(v map[any]any) { v[freezeFakesKey{}] = new(freezeFakes) }, map[string]func(*testscript.TestScript, bool, []string){
		"newchange":   cmdNewChange,
		"freezefakes": cmdFreezeFakes,
	}))
}

// The fakes a script started are kept in its Values under this key.
type (
	freezeFakesKey struct{}
	freezeFakes    struct {
		github *reviewtest.GitHub
		dl     *freezetest.Downloads
	}
)

// freezefakes starts a fake GitHub of golang/go and a release list server
// for the rest of the script, points GITHUB_API_URL at the fake, and
// writes live.yaml: a configuration whose live sources are the fakes and
// whose rule makes today frozen, whatever day today is, for a release of
// its own (go9.N, exported as $RELEASE, its milestone as $MILESTONE, its
// due date as $DUE).
// The fake GitHub has the milestone open with one release-blocker issue.
// The list served is FILE in $WORK; 'freezefakes dl FILE' serves another.
func cmdFreezeFakes(ts *testscript.TestScript, neg bool, args []string) {
	f := ts.Value(freezeFakesKey{}).(*freezeFakes)
	if neg || len(args) != 1 && !(len(args) == 2 && args[0] == "dl") {
		ts.Fatalf("usage: freezefakes FILE | freezefakes dl FILE")
	}
	if len(args) == 2 {
		if f.dl == nil {
			ts.Fatalf("freezefakes dl: no fakes started")
		}
		f.dl.Serve(ts.MkAbs(args[1]))
		return
	}
	f.dl = freezetest.NewDownloads(ts.MkAbs(args[0]))
	ts.Defer(f.dl.Close)
	f.github = reviewtest.NewGitHub("golang/go")
	ts.Defer(f.github.Close)

	// A rule of three-month cycles whose freezes begin on the first Monday
	// of a month and last two months: anchored at the month of today's
	// cycle, it makes today frozen for its first release, go9.1.
	today := time.Now().UTC()
	month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	if firstMonday := month.AddDate(0, 0, (8-int(month.Weekday()))%7); today.Before(firstMonday) {
		month = month.AddDate(0, -1, 0)
	}
	due := month.AddDate(0, 2, 14)
	m := f.github.AddMilestone("Go9.1", "open", due)
	f.github.AddMilestone("Go9.2", "open", time.Time{})
	f.github.AddIssue(m, "open", "release-blocker")
	f.github.AddIssue(m, "open", "NeedsFix")

	cfg := fmt.Sprintf(`freeze:
  rule:
    first: go9.1
    first_freeze: %s
    cycle_months: 3
    freeze: {month: 0, week: 1}
    reopen: {month: 2, week: 1}
    release: {month: 2, week: 2}
  live:
    gerrit: ""
    github: golang/go
    downloads: %s
    timeout: 5s
`, month.Format("2006-01"), f.dl.URL)
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), "live.yaml"), []byte(cfg), 0o666))
	ts.Setenv("GITHUB_API_URL", f.github.URL)
	f.github.AddToken(scriptToken, reviewtest.Bot)
	ts.Setenv("GITHUB_TOKEN", scriptToken)
	ts.Setenv("RELEASE", "go9.1")
	ts.Setenv("MILESTONE", "Go9.1")
	ts.Setenv("DUE", due.Format(time.DateOnly))
}
