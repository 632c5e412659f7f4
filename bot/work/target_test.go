package work

import (
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// TestCheckTarget: a job's replies go to its own review only. The request
// must name the job's review and revision, typed in the job and written
// out in the request; a revision is "PATCHSET:COMMIT" on Gerrit and
// "COMMIT" on GitHub, as the queue stores it.
func TestCheckTarget(t *testing.T) {
	const c1, c2 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	cfg := config.Default()
	gerrit := func(server, change, commit string) job.Request {
		return job.Request{Gerrit: &job.Gerrit{Server: server, Change: change, Revision: commit}}
	}
	for _, tc := range []struct {
		name     string
		review   string
		revision string
		req      job.Request
		ok       bool
	}{
		{"github", "github:owner/repo#1", c1, job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("owner/repo#1"), HeadSHA: c1}}, true},
		{"github, another pull request", "github:owner/repo#1", c1, job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("owner/repo#2"), HeadSHA: c1}}, false},
		{"github, a patch set", "github:owner/repo#1", "3:" + c1, job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("owner/repo#1"), HeadSHA: c1}}, false},
		{"github, another head", "github:owner/repo#1", c1, job.Request{GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("owner/repo#1"), HeadSHA: c2}}, false},
		{"github job, gerrit request", "github:owner/repo#1", c1, gerrit("https://go-review.googlesource.com", "1", c1), false},
		{"gerrit", "gerrit:go-review.googlesource.com:12", "3:" + c1, gerrit("https://go-review.googlesource.com", "12", c1), true},
		{"gerrit, the host in capitals", "gerrit:go-review.googlesource.com:12", "3:" + c1, gerrit("https://GO-review.googlesource.com/", "12", c1), true},
		// A server under a path: its jobs were refused before the
		// target was typed ("gerrit:HOST:" was the prefix looked for).
		{"gerrit under a path", "gerrit:example.com/gerrit:12", "3:" + c1, gerrit("https://example.com/gerrit/", "12", c1), true},
		{"gerrit, another server", "gerrit:go-review.googlesource.com:12", "3:" + c1, gerrit("https://example.com", "12", c1), false},
		{"gerrit, another change", "gerrit:go-review.googlesource.com:12", "3:" + c1, gerrit("https://go-review.googlesource.com", "13", c1), false},
		{"gerrit, another commit", "gerrit:go-review.googlesource.com:12", "3:" + c1, gerrit("https://go-review.googlesource.com", "12", c2), false},
		{"gerrit, no patch set", "gerrit:go-review.googlesource.com:12", c1, gerrit("https://go-review.googlesource.com", "12", c1), false},
		{"no target in the request", "gerrit:go-review.googlesource.com:12", "3:" + c1, job.Request{}, false},
	} {
		rev, err := review.ParseRevision(tc.revision)
		if err != nil {
			t.Fatal(err)
		}
		a := &queue.Args{Review: mustTarget(t, tc.review), Revision: rev, Command: "bench"}
		err = checkTarget(a, &tc.req, cfg)
		if (err == nil) != tc.ok {
			t.Errorf("%s: checkTarget = %v; want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !queue.IsPermanent(err) {
			t.Errorf("%s: %v is not permanent: a retry would fail the same way", tc.name, err)
		}
	}
}
