package queue

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// TestArgsBound: a job is named by its revision or, running nothing, by
// its reply key, in the text the logs and the status page have always
// shown; the stored JSON has the one it has, and reads back the same.
func TestArgsBound(t *testing.T) {
	const c = "5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c"
	gh := target("github:gopher/codec#7")
	pr := review.MustParsePullRequest("gopher/codec#7")
	post := job.Request{Steps: []string{job.StepPost}, GitHub: &job.GitHub{PullRequest: pr}, Post: job.PostSettings{Kind: "help-1007", Text: "help"}}
	until := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		a    Args
		str  string // String()
		json string // the unique fields' part of the JSON
	}{
		{"gerrit run", Args{Review: target("gerrit:go-review.googlesource.com:123"), Revision: review.Revision{PatchSet: 3, Commit: c}, Command: "bench",
			Request: job.Request{Gerrit: &job.Gerrit{Server: "https://go-review.googlesource.com", Change: "123", Revision: c}}},
			"bench gerrit:go-review.googlesource.com:123 @ 3:" + c,
			`{"review":"gerrit:go-review.googlesource.com:123","revision":"3:` + c + `","command":"bench",`},
		{"github run", Args{Review: gh, Revision: review.Revision{Commit: c}, Command: "bench", Options: "-count 10"},
			"bench -count 10 github:gopher/codec#7 @ " + c,
			`{"review":"github:gopher/codec#7","revision":"` + c + `","command":"bench","options":"-count 10",`},
		{"help", Args{Review: gh, Reply: MessageKey("1007"), Command: CommandHelp, Request: post},
			"help github:gopher/codec#7 @ message:1007",
			`{"review":"github:gopher/codec#7","reply":"message:1007","command":"help",`},
		{"refusal", Args{Review: gh, Reply: AuthorKey("Bob.X"), Command: CommandRefuse, Request: post},
			"refuse github:gopher/codec#7 @ author:bob-x",
			`{"review":"github:gopher/codec#7","reply":"author:bob-x","command":"refuse",`},
		{"decide", Args{Review: gh, Reply: DeferKey(77), Command: CommandDecide, Request: post,
			Deferred: &Deferred{Comment: 77, Action: "created", Login: "alice", Body: "/patchbot bench", Until: until}},
			"decide github:gopher/codec#7 @ defer:77",
			`{"review":"github:gopher/codec#7","reply":"defer:77","command":"decide",`},
	} {
		if err := tc.a.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if got := tc.a.String(); got != tc.str {
			t.Errorf("%s: String() = %q; want %q", tc.name, got, tc.str)
		}
		data := must(json.Marshal(&tc.a))
		if !strings.HasPrefix(string(data), tc.json) {
			t.Errorf("%s: JSON\n\t%s\nwant it to start\n\t%s", tc.name, data, tc.json)
		}
		var back Args
		if err := json.Unmarshal(data, &back); err != nil {
			t.Errorf("%s: decoding %s: %v", tc.name, data, err)
			continue
		}
		if back.Revision != tc.a.Revision || back.Reply != tc.a.Reply || back.String() != tc.str {
			t.Errorf("%s: read back as %s (revision %+v, reply %q)", tc.name, &back, back.Revision, back.Reply)
		}
	}
}
