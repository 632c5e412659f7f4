package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/testenv"
)

// The real payloads: the npm package @octokit/webhooks-examples, which
// scripts/fetch-webhook-examples fetches at this version (and checks
// against its SHA-256) and names in this variable.
const (
	envWebhookExamples = "PATCHBOT_WEBHOOK_EXAMPLES"
	examplesVersion    = "7.6.1"
)

// An example is one payload of the package.
type example struct {
	source string // the directory: api.github.com, ghes-35, ...
	event  string // its event's name, as X-GitHub-Event says it
	n      int    // its place among its event's examples
	body   []byte // the payload, as the package has it
}

// loadExamples returns the package's payloads from every directory of
// it, or why it cannot.
func loadExamples() ([]example, error) {
	dir := os.Getenv(envWebhookExamples)
	if dir == "" {
		return nil, errors.New(envWebhookExamples + " is not set")
	}
	var pkg struct{ Name, Version string }
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %v", envWebhookExamples, dir, err)
	}
	if pkg.Name != "@octokit/webhooks-examples" || pkg.Version != examplesVersion {
		return nil, fmt.Errorf("%s=%s holds %s %s; want @octokit/webhooks-examples %s", envWebhookExamples, dir, pkg.Name, pkg.Version, examplesVersion)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "index.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s=%s: no */index.json in it", envWebhookExamples, dir)
	}
	var out []example
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var events []struct {
			Name     string
			Examples []json.RawMessage
		}
		if err := json.Unmarshal(data, &events); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		for _, ev := range events {
			for i, body := range ev.Examples {
				out = append(out, example{source: filepath.Base(filepath.Dir(f)), event: ev.Name, n: i, body: body})
			}
		}
	}
	return out, nil
}

func (x example) String() string { return fmt.Sprintf("%s %s #%d", x.source, x.event, x.n) }

// TestWebhookExamples feeds every payload of @octokit/webhooks-examples
// (api.github.com's and GitHub Enterprise's: every event type GitHub
// sends, some with digits in their names) through the webhook, signed
// with the test secret: none is answered 5xx, ping is a pong, and every
// other one is ignored (200): the package's issue_comment events are on
// issues, not pull requests, or edit or delete a comment. Then each
// issue_comment that creates a comment is made a command on a pull
// request, all else in the payload as GitHub sent it: a reviewer's bench
// is queued, a help is a reply job, a stranger's command a refusal job.
func TestWebhookExamples(t *testing.T) {
	examples, err := loadExamples()
	testenv.Need(t, testenv.WebhookExamples, err)
	// The package's issue_comment events are all in Codertocat/Hello-World.
	e := newEnvFor(t, "Codertocat/Hello-World", false, func(c *Config) { c.Logger = nil })
	e.gh.SetPermission("Codertocat", "write")
	e.gh.SetHead(1, head1)

	counts := map[string]int{} // outcome: examples
	events := map[string]bool{}
	for i, x := range examples {
		events[x.event] = true
		w := e.serve(request(fmt.Sprintf("example-%d", i), x.event, x.body))
		got := strings.TrimSpace(w.Body.String())
		want := "ignored: "
		if x.event == "ping" {
			want = "pong"
		}
		switch {
		case w.Code >= 500:
			t.Errorf("%s: %d %s; want no 5xx", x, w.Code, got)
		case w.Code != http.StatusOK || !strings.HasPrefix(got, want):
			t.Errorf("%s: %d %s; want 200 %s...", x, w.Code, got, want)
		}
		counts[fmt.Sprintf("%d %s", w.Code, strings.SplitN(got, ":", 2)[0])]++
	}
	if r := e.gh.Requests(); len(r) > 0 {
		t.Errorf("the examples as they are made requests to GitHub: %q", r)
	}
	e.wantJobs()
	names := slices.Sorted(maps.Keys(events))
	t.Logf("%d payloads of %d event types: %v", len(examples), len(events), counts)
	if !slices.Contains(names, "projects_v2_item") {
		t.Errorf("no projects_v2_item among the events %q", names)
	}

	// The issue_comment events that create a comment, as commands on a
	// pull request. Each gets a comment id of its own, and the stranger a
	// login of its own: one refusal per author.
	var created []example
	for _, x := range examples {
		var p struct{ Action string }
		if x.event == "issue_comment" && json.Unmarshal(x.body, &p) == nil && p.Action == "created" {
			created = append(created, x)
		}
	}
	if len(created) == 0 {
		t.Fatal("no issue_comment example creates a comment")
	}
	var want []string
	id := int64(900000)
	for _, tc := range []struct {
		name  string
		login string // "": the payload's own (Codertocat, who may write)
		body  string
		// want is the answer's start: "queued job" (a new job, or for a
		// bench on the head already queued, the reply to the comment
		// that says so).
		want    []string
		command string // the job's, for the queue's identities
	}{
		{"bench", "", "/patchbot bench", []string{"queued job"}, "bench"},
		{"help", "", "/patchbot help", []string{"queued job"}, "help"},
		{"not understood", "", "/patchbot benhc", []string{"queued job"}, "help"},
		{"a stranger", "stranger", "/patchbot bench", []string{"queued job"}, "refuse"},
	} {
		for i, x := range created {
			id++
			login := tc.login
			if login != "" {
				login = fmt.Sprintf("%s-%d", login, i)
			}
			body := asCommand(t, x.body, id, login, tc.body)
			w := e.serve(request(fmt.Sprintf("command-%d", id), "issue_comment", body))
			got := strings.TrimSpace(w.Body.String())
			if w.Code/100 != 2 || !slices.ContainsFunc(tc.want, func(p string) bool { return strings.HasPrefix(got, p) }) {
				t.Errorf("%s as %s: %d %s; want 2xx, one of %q", x, tc.name, w.Code, got, tc.want)
			}
			switch tc.command {
			case "bench":
				if i == 0 {
					want = append(want, "bench github:Codertocat/Hello-World#1 @ "+head1)
				} else {
					// Asked already: one reply to this comment.
					want = append(want, fmt.Sprintf("help github:Codertocat/Hello-World#1 @ message:%d", id))
				}
			case "help":
				want = append(want, fmt.Sprintf("help github:Codertocat/Hello-World#1 @ message:%d", id))
			case "refuse":
				want = append(want, "refuse github:Codertocat/Hello-World#1 @ author:"+login)
			}
		}
	}
	e.wantJobs(want...)
	t.Logf("%d issue_comment payloads that create a comment, each made 4 commands on a pull request: %d jobs", len(created), len(want))
}

// asCommand returns the issue_comment payload body made a command: on a
// pull request, written now by login ("": the payload's own author), its
// comment's id and text replaced, and every other field as it was.
func asCommand(t *testing.T, body []byte, id int64, login, text string) []byte {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	issue, _ := p["issue"].(map[string]any)
	comment, _ := p["comment"].(map[string]any)
	user, _ := comment["user"].(map[string]any)
	repo, _ := p["repository"].(map[string]any)
	if issue == nil || comment == nil || user == nil || repo == nil {
		t.Fatalf("an issue_comment payload without its issue, comment, author or repository: %.200s", body)
	}
	issue["pull_request"] = map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/%s/pulls/%v", repo["full_name"], issue["number"])}
	comment["id"] = id
	comment["body"] = text
	comment["created_at"] = testNow.Format(time.RFC3339)
	if login != "" {
		user["login"] = login
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
