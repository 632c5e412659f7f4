package queue

import (
	"encoding/json"
	"testing"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// TestNewJob: one constructor makes every job from a decision, whichever
// review it came from, in one form; the JSON is what the queue stores and
// its unique fields what makes a redelivery a no-op.
func TestNewJob(t *testing.T) {
	const c = "5a295b08adeb1b23f1b7d1a0d49e2c1e5b4f6a7c"
	gh := target("github:gopher/codec#7")
	gr := target("gerrit:go-review.example.com:12")
	ghReq := job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("gopher/codec#7")}}
	grReq := job.Request{Branch: "master", Gerrit: &job.Gerrit{Server: "https://go-review.example.com", Change: "12", Revision: c}}
	bench := &command.Command{Name: "bench", Count: 5}
	for _, tc := range []struct {
		name string
		t    review.Target
		rev  review.Revision
		d    command.Decision
		o    Origin
		req  job.Request
		want string // the Args as JSON; "" for an error
	}{
		{"github run", gh, review.Revision{Commit: c}, command.Decision{Verdict: command.Run, Command: bench},
			Origin{Who: "alice", Author: "alice", Message: "42", Delivery: "d-1"}, job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("gopher/codec#7"), HeadSHA: c}},
			`{"review":"github:gopher/codec#7","revision":"` + c + `","command":"bench","who":"alice","delivery":"d-1","message":"42","request":{"steps":["bench","post"],"bench":{"count":5},"github":{"pull_request":"gopher/codec#7","head_sha":"` + c + `"}}}`},
		{"gerrit run", gr, review.Revision{PatchSet: 3, Commit: c}, command.Decision{Verdict: command.Run, Command: bench},
			Origin{Who: "r@example.com", Author: "1000001", Message: "abc", Delivery: "abc"}, grReq,
			`{"review":"gerrit:go-review.example.com:12","revision":"3:` + c + `","command":"bench","who":"r@example.com","delivery":"abc","message":"abc","request":{"steps":["bench","post"],"branch":"master","bench":{"count":5},"gerrit":{"server":"https://go-review.example.com","change":"12","revision":"` + c + `"}}}`},
		{"github help", gh, review.Revision{}, command.Decision{Verdict: command.Answer, Reply: "the help"},
			Origin{Who: "alice", Author: "alice", Message: "42", Delivery: "d-1"}, ghReq,
			`{"review":"github:gopher/codec#7","reply":"message:42","command":"help","who":"alice","delivery":"d-1","message":"42","request":{"steps":["post"],"post":{"kind":"help-42","text":"the help"},"github":{"pull_request":"gopher/codec#7"}}}`},
		{"gerrit refusal", gr, review.Revision{PatchSet: 3, Commit: c}, command.Decision{Verdict: command.Refuse, Reply: "Sorry"},
			Origin{Who: "r@example.com", Author: "1000001", Message: "abc", Delivery: "abc"}, grReq,
			`{"review":"gerrit:go-review.example.com:12","reply":"author:1000001","command":"refuse","who":"r@example.com","delivery":"abc","message":"abc","request":{"steps":["post"],"post":{"kind":"refusal-1000001","text":"Sorry"},"gerrit":{"server":"https://go-review.example.com","change":"12","revision":"` + c + `"}}}`},
		// A login's capitals and punctuation do not make another refusal.
		{"github refusal", gh, review.Revision{}, command.Decision{Verdict: command.Refuse, Reply: "Sorry"},
			Origin{Who: "Bob.X", Author: "Bob.X", Message: "43"}, ghReq,
			`{"review":"github:gopher/codec#7","reply":"author:bob-x","command":"refuse","who":"Bob.X","message":"43","request":{"steps":["post"],"post":{"kind":"refusal-bob-x","text":"Sorry"},"github":{"pull_request":"gopher/codec#7"}}}`},
		{"run without a revision", gh, review.Revision{}, command.Decision{Verdict: command.Run, Command: bench}, Origin{Who: "alice"}, ghReq, ""},
		{"run without a command", gh, review.Revision{Commit: c}, command.Decision{Verdict: command.Run}, Origin{Who: "alice"}, ghReq, ""},
		{"help without a message", gh, review.Revision{}, command.Decision{Verdict: command.Answer, Reply: "x"}, Origin{Who: "alice"}, ghReq, ""},
		{"refusal without an author", gh, review.Revision{}, command.Decision{Verdict: command.Refuse, Reply: "x"}, Origin{Message: "1"}, ghReq, ""},
		{"a reply with no text", gh, review.Revision{}, command.Decision{Verdict: command.Answer}, Origin{Message: "1"}, ghReq, ""},
		{"ignore", gh, review.Revision{Commit: c}, command.Decision{Verdict: command.Ignore}, Origin{Message: "1"}, ghReq, ""},
	} {
		a, err := NewJob(tc.t, tc.rev, tc.d, tc.o, tc.req)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: NewJob = %s; want an error", tc.name, must(json.Marshal(a)))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := string(must(json.Marshal(a))); got != tc.want {
			t.Errorf("%s:\n\t%s\nwant\n\t%s", tc.name, got, tc.want)
		}
		if err := a.Validate(); err != nil {
			t.Errorf("%s: the job is not valid: %v", tc.name, err)
		}
	}
	// The command applies to a copy: the caller's request is unchanged.
	req := job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("gopher/codec#7"), HeadSHA: c}}
	if _, err := NewJob(gh, review.Revision{Commit: c}, command.Decision{Verdict: command.Run, Command: bench}, Origin{}, req); err != nil || req.Steps != nil {
		t.Errorf("NewJob changed the caller's request: %+v, %v", req, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
