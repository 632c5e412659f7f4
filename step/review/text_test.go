package review

import (
	"strings"
	"testing"
)

// TestDescribe checks the line for each action of a post.
func TestDescribe(t *testing.T) {
	gerrit := PostResult{Server: "gerrit", URL: "https://go-review.googlesource.com/c/go/+/12", Change: "12", PatchSet: 3, Kind: "bench"}
	github := PostResult{Server: "github", URL: "https://github.com/o/r/pull/3#issuecomment-7", Change: "o/r#3", Kind: "bench"}
	tests := []struct {
		r    PostResult
		a    Action
		want string
	}{
		{gerrit, Posted, "gerrit: posted the bench message on https://go-review.googlesource.com/c/go/+/12 (patch set 3)"},
		{gerrit, AlreadyPosted, "gerrit: the bench message is already on https://go-review.googlesource.com/c/go/+/12 (patch set 3); not posted again"},
		{gerrit, WouldPost, "gerrit: would post the bench message on https://go-review.googlesource.com/c/go/+/12 (patch set 3):"},
		{PostResult{Server: "gerrit", Change: "12", Kind: "run"}, WouldPost, "gerrit: would post the run message on 12:"},
		{github, Created, "github: created the bench comment https://github.com/o/r/pull/3#issuecomment-7"},
		{github, Updated, "github: updated the bench comment https://github.com/o/r/pull/3#issuecomment-7"},
		{github, Unchanged, "github: the bench comment https://github.com/o/r/pull/3#issuecomment-7 already says this; not changed"},
		{PostResult{Server: "github", Change: "o/r#3", Kind: "bench"}, WouldCreate, "github: would create a bench comment on o/r#3:"},
		{github, WouldUpdate, "github: would update the bench comment https://github.com/o/r/pull/3#issuecomment-7 to:"},
		{github, Action("other"), "github: other https://github.com/o/r/pull/3#issuecomment-7"},
	}
	for _, tt := range tests {
		r := tt.r
		r.Action = tt.a
		if got := r.Describe(); got != tt.want {
			t.Errorf("Describe of %s %s = %q, want %q", r.Server, r.Action, got, tt.want)
		}
	}
}

// TestPostWriteText checks that the text follows the line of a dry run,
// indented, and only then.
func TestPostWriteText(t *testing.T) {
	text := "WriteInts 1.51x\n\n  trailing  \n"
	for _, tt := range []struct {
		a    Action
		want string
	}{
		{Posted, "gerrit: posted the bench message on 12\n"},
		{WouldPost, "gerrit: would post the bench message on 12:\n    WriteInts 1.51x\n\n      trailing\n"},
	} {
		r := &PostResult{Server: "gerrit", Change: "12", Kind: "bench", Action: tt.a}
		var b strings.Builder
		if err := r.WriteText(&b, text); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("WriteText, %s = %q, want %q", tt.a, got, tt.want)
		}
	}
}

// TestPushWriteText checks the text of a push in both forms: after a port
// (with its branch) and in a run's post step (without).
func TestPushWriteText(t *testing.T) {
	const commit = "eae988a43327eae988a43327eae988a43327eae9"
	remote, ref := "https://go-review.googlesource.com/go", "refs/for/master%topic=fast-path"
	pushed := &PushResult{Remote: remote, Ref: ref, Commit: commit, Changes: []PushedChange{
		{URL: "https://go-review.googlesource.com/c/go/+/12", Subject: "codec: fast path", New: true, WIP: true},
		{URL: "https://go-review.googlesource.com/c/go/+/11", Subject: "codec: tests"},
	}}
	tests := []struct {
		name   string
		r      *PushResult
		branch string
		want   string
	}{
		{"dry run", &PushResult{Remote: remote, Ref: ref, Commit: commit, DryRun: true}, "port/5a295b08adeb",
			"dry run: would push eae988a43327 (branch port/5a295b08adeb) to " + remote + " as " + ref + "\n"},
		{"dry run, run", &PushResult{Remote: remote, Ref: ref, Commit: commit, DryRun: true}, "",
			"dry run: would push eae988a43327 to " + remote + " as " + ref + "\n"},
		{"no new changes", &PushResult{Remote: remote, Ref: ref, Commit: commit, NoNewChanges: true}, "port/5a295b08adeb",
			"\nno new changes: Gerrit already has eae988a43327 (branch port/5a295b08adeb)\n"},
		{"no new changes, run", &PushResult{Remote: remote, Ref: ref, Commit: commit, NoNewChanges: true}, "",
			"no new changes: Gerrit already has eae988a43327\n"},
		{"pushed", pushed, "port/5a295b08adeb",
			"\npushed eae988a43327 (branch port/5a295b08adeb) to " + remote + " as " + ref + ":\n" +
				"    https://go-review.googlesource.com/c/go/+/12 codec: fast path [WIP] [NEW]\n" +
				"    https://go-review.googlesource.com/c/go/+/11 codec: tests\n"},
		{"pushed, run", pushed, "",
			"pushed eae988a43327 to " + remote + " as " + ref + ":\n" +
				"    https://go-review.googlesource.com/c/go/+/12 codec: fast path [WIP] [NEW]\n" +
				"    https://go-review.googlesource.com/c/go/+/11 codec: tests\n"},
		{"no change listed", &PushResult{Remote: remote, Ref: ref, Commit: commit}, "b",
			"\npushed eae988a43327 (branch b) to " + remote + " as " + ref + ":\n    (Gerrit's answer listed no change)\n"},
		{"no change listed, run", &PushResult{Remote: remote, Ref: ref, Commit: commit}, "",
			"pushed eae988a43327 to " + remote + " as " + ref + ":\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.r.WriteText(&b, tt.branch); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("%s: WriteText = %q, want %q", tt.name, got, tt.want)
		}
	}
}
