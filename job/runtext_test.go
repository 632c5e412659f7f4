package job

import (
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/port"
	"github.com/patchbot/patchbot/step/review"
)

// TestWriteStep checks the text of each step, as 'patchbot run' prints it
// when the step ends, from the result alone.
func TestWriteStep(t *testing.T) {
	date := time.Date(2014, 11, 6, 15, 4, 5, 0, time.UTC)
	pr := &port.Result{
		Repo: "/tmp/patchbot-run-1/clone", Branch: "port/5a295b08adeb",
		Base: "fedcba9876543210fedcba9876543210fedcba98", Head: "0123456789abcdef0123456789abcdef01234567",
		Commits: []*port.Commit{{Hash: "0123456789abcdef0123456789abcdef01234567", Subject: "codec: fast path", ChangeID: "I1", Author: "Gopher <gopher@example.com>", AuthorDate: date}},
	}
	var portText strings.Builder
	if err := pr.WriteText(&portText); err != nil {
		t.Fatal(err)
	}
	frozen := &freeze.Status{
		Branch: "master", At: date, Frozen: true, Release: "go1.4",
		FreezeStart: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC), Reopen: time.Date(2014, 12, 10, 0, 0, 0, 0, time.UTC),
		Source: "calendar", Disagreements: []string{"gerrit says open"},
	}
	bench := &benchrun.Result{Run: &benchrun.RunInfo{Packages: []string{"./codec", "./x"}, Count: 5, Benchtime: "100ms", Wall: 61400 * time.Millisecond}}
	const msg = "The tree is frozen.\n\nWriteInts 1.51x\n"
	const md = "**WriteInts** 1.51x\n"

	tests := []struct {
		name string
		step string
		res  *Result
		want string
	}{
		{"port", StepPort, &Result{Repo: "/home/gopher/go", Port: pr}, "== port\n" + portText.String()},
		{"port, dry run", StepPort, &Result{Repo: "/home/gopher/go", Scratch: "/tmp/patchbot-run-1", Port: pr},
			"== port: dry run: in a scratch clone of /home/gopher/go, /tmp/patchbot-run-1/clone\n" + portText.String()},
		{"port, example", StepPort, &Result{Scratch: "/tmp/patchbot-run-1", Example: true, Port: pr},
			"== port: the built-in example, in /tmp/patchbot-run-1/clone\n" + portText.String()},
		{"freeze", StepFreeze, &Result{Freeze: frozen},
			"\n== freeze\nmaster: " + frozen.Line() + "\n    note: gerrit says open\n"},
		{"bench", StepBench, &Result{Bench: bench},
			"\n== bench: ./codec ./x, 5 runs per side of 100ms, 1m1s\n" + bench.String(benchrun.Benchcmp)},
		{"bench, nothing", StepBench, &Result{NoBench: "the patch touches no package with benchmarks"},
			"\n== bench\nnothing to run: the patch touches no package with benchmarks\n"},
		{"post, printed", StepPost, &Result{Post: &PostRecord{Message: msg, Printed: true, Posts: []*review.PostResult{}}},
			"\n== post\nno review target ({gerrit.push}, {gerrit.change} or {github}); the message it would post:\n" +
				"    The tree is frozen.\n\n    WriteInts 1.51x\n"},
		{"post, dry run push", StepPost, &Result{Post: &PostRecord{
			Message: msg, Printed: true,
			Push:     &review.PushResult{Remote: "http://gerrit/a/p", Ref: "refs/for/master", Commit: pr.Head, DryRun: true},
			Hashtags: &freeze.ApplyResult{Change: "p~master~I1", Frozen: true, Add: []string{freeze.WaitRelease}, Message: "Frozen.", DryRun: true},
		}}, "\n== post\ndry run: would push 0123456789ab to http://gerrit/a/p as refs/for/master\n" +
			"dry run: would set hashtags on p~master~I1: add wait-release\n" +
			"dry run: would post the freeze message:\n    Frozen.\n" +
			"dry run: nothing was pushed, so there is no change to post to; the message it would post:\n" +
			"    The tree is frozen.\n\n    WriteInts 1.51x\n"},
		{"post, posted", StepPost, &Result{Post: &PostRecord{
			Message: msg, MarkdownMessage: md,
			Push: &review.PushResult{Remote: "http://gerrit/a/p", Ref: "refs/for/master", Commit: pr.Head,
				Changes: []review.PushedChange{{URL: "http://gerrit/c/p/+/12", Subject: "codec: fast path", New: true}}},
			Hashtags: &freeze.ApplyResult{Change: "p~master~I1", Frozen: true, Add: []string{freeze.WaitRelease}, Remove: []string{"ex-wait-release"}, Message: "Frozen.",
				Post: &review.PostResult{Server: "gerrit", URL: "http://gerrit/c/p/+/12", Change: "p~master~I1", PatchSet: 1, Kind: freeze.MessageKind, Action: review.Posted}},
			Posts: []*review.PostResult{
				{Server: "gerrit", URL: "http://gerrit/c/p/+/12", Change: "p~master~I1", PatchSet: 1, Kind: MessageKind, Action: review.Posted},
				{Server: "github", Change: "o/r#3", Kind: MessageKind, Action: review.WouldCreate},
			},
		}}, "\n== post\npushed 0123456789ab to http://gerrit/a/p as refs/for/master:\n" +
			"    http://gerrit/c/p/+/12 codec: fast path [NEW]\n" +
			"set hashtags on p~master~I1: add wait-release, remove ex-wait-release\n" +
			"gerrit: posted the freeze message on http://gerrit/c/p/+/12 (patch set 1)\n" +
			"gerrit: posted the run message on http://gerrit/c/p/+/12 (patch set 1)\n" +
			"github: would create a run comment on o/r#3:\n    **WriteInts** 1.51x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.res.WriteStep(&b, tt.step); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteStep(%s):\n%s\nwant:\n%s", tt.step, got, tt.want)
			}
		})
	}
	if err := new(Result).WriteStep(new(strings.Builder), "deploy"); err == nil {
		t.Error("WriteStep of an unknown step: no error")
	}
}
