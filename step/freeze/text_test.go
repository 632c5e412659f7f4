package freeze

import (
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/review"
)

// TestStatusWriteText checks the text of a status, as 'patchbot freeze'
// prints it.
func TestStatusWriteText(t *testing.T) {
	tests := []struct {
		name string
		st   *Status
		want string
	}{
		{
			name: "frozen",
			st: &Status{
				Branch: "master", At: day("2014-11-06"), Frozen: true, Release: "go1.4",
				FreezeStart: day("2014-09-01"), Reopen: day("2014-12-10"),
				Source: "calendar",
				Facts: []Fact{
					{Source: "calendar", Text: "go1.4: frozen since 2014-09-01"},
					{Source: "gerrit", Text: "release-branch.go1.4 exists"},
				},
				Disagreements: []string{"gerrit says open"},
			},
			want: `master: frozen on 2014-11-06
The tree is frozen for Go 1.4 since 2014-09-01 (calendar); it is expected to reopen around 2014-12-10.

release       go1.4
freeze begins 2014-09-01 (calendar)
reopens       2014-12-10 (calendar)
release date  unknown

facts:
  calendar   go1.4: frozen since 2014-09-01
  gerrit     release-branch.go1.4 exists

disagreements:
  gerrit says open
`,
		},
		{
			name: "release branch",
			st:   &Status{Branch: "release-branch.go1.4", At: day("2014-11-06"), ReleaseBranch: true, Release: "go1.4"},
			want: `release-branch.go1.4: open on 2014-11-06
release-branch.go1.4 is a release branch: the release freeze does not apply to it.
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.st.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteText:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestApplyResultWriteText checks the text of what -apply did, as
// 'patchbot freeze -apply' prints it after the status.
func TestApplyResultWriteText(t *testing.T) {
	tests := []struct {
		name string
		r    *ApplyResult
		want string
	}{
		{
			name: "open, untagged",
			r:    &ApplyResult{Change: "12"},
			want: "\nchange 12 is not tagged wait-release: nothing to do\n",
		},
		{
			name: "frozen, tagged",
			r:    &ApplyResult{Change: "12", Frozen: true},
			want: "\nchange 12 is already tagged wait-release: nothing to do\n",
		},
		{
			name: "dry run",
			r:    &ApplyResult{Change: "12", Frozen: true, Add: []string{WaitRelease}, Remove: []string{}, Message: "The tree is frozen.", DryRun: true},
			want: "\nchange 12: would add [wait-release], remove [], and post:\n    The tree is frozen.\n",
		},
		{
			name: "posted",
			r: &ApplyResult{
				Change: "12", Frozen: true, Add: []string{WaitRelease}, After: []string{"codec", WaitRelease}, Message: "The tree is frozen.",
				Post: &review.PostResult{Server: "gerrit", URL: "https://go-review.googlesource.com/c/go/+/12", Change: "12", PatchSet: 2, Kind: MessageKind, Action: review.Posted},
			},
			want: "\ngerrit: posted the freeze message on https://go-review.googlesource.com/c/go/+/12 (patch set 2)\nchange 12: hashtags now [codec wait-release]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteText = %q, want %q", got, tt.want)
			}
		})
	}
}
