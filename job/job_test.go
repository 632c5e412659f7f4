package job

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/example"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
)

// full is a request with every field set, a patch that is not UTF-8
// among them. (Its time has an offset but no zone name: JSON keeps the
// offset, which is all a time in a request means.)
var full = Request{
	Steps:   []string{StepPort, StepFreeze, StepBench, StepPost},
	Repo:    "/src/go",
	Onto:    "origin/master",
	Patches: []Patch{{Name: "a.patch", Data: []byte("diff --git a/x b/x\n+caf\xe9\n")}, {Name: "b.patch", Data: []byte{0, 1, 2}}},
	Branch:  "release-branch.go1.4",
	At:      time.Date(2014, 11, 6, 10, 32, 0, 0, time.FixedZone("", -8*3600)),
	Bench: BenchSettings{Packages: []string{"./codec", "./..."}, Bench: "Ints$", Count: 20, Benchtime: "100x", OutDir: "/tmp/out",
		CPU: "1,2", Timeout: 5 * time.Minute, Order: "shuffled", Seed: 42},
	Port:   PortSettings{Branch: "fix", Checkout: true, Fuzz: 2, RejectDir: "/tmp/rej", Author: "A <a@b>", Message: "m", Remaps: []string{"src/pkg/=src/"}},
	Freeze: FreezeSettings{Offline: true, Apply: true, NoTag: true},
	Post:   PostSettings{Kind: "note", Text: "hello\n"},
	Gerrit: &Gerrit{Server: "https://go-review.googlesource.com", Push: &Push{
		Project: "go", Topic: "fast", Hashtags: []string{"a", "b"}, Reviewers: []string{"r@golang.org"}, CC: []string{"c@golang.org"}, WIP: true}},
	GitHub: &GitHub{PullRequest: review.MustParsePullRequest("golang/go#12"), HeadSHA: strings.Repeat("ab", 20)},
	DryRun: true,
	Keep:   true,
}

// TestRequestJSON checks that a request round-trips through JSON
// unchanged, field for field and byte for byte.
func TestRequestJSON(t *testing.T) {
	for _, r := range []Request{{}, full, {Repo: "r", Steps: []string{StepBench, StepPost}, Base: "HEAD~1", Head: "HEAD", GitHub: &GitHub{PullRequest: review.MustParsePullRequest("o/r#1")}}} {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Request
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("decoding %s: %v", data, err)
		}
		if !reflect.DeepEqual(back, r) {
			t.Errorf("round trip changed the request:\n got %+v\nwant %+v\njson %s", back, r, data)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(again, data) {
			t.Errorf("second encoding differs:\n%s\n%s", again, data)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("Validate(%s) = %v", data, err)
		}
	}
	if data, _ := json.Marshal(Request{}); string(data) != "{}" {
		t.Errorf("the zero request is %s, want {}", data)
	}
}

// TestValidate checks that each kind of invalid request is refused with a
// *remedy.FieldError naming the field.
func TestValidate(t *testing.T) {
	patch := []Patch{{Name: "p", Data: []byte("x")}}
	tests := []struct {
		name string
		r    Request
		want string
	}{
		{"unknown step", Request{Steps: []string{"deploy"}}, `steps[0] "deploy": unknown step (the steps are port, freeze, bench, post)`},
		{"step twice", Request{Steps: []string{"bench", "bench"}}, `steps[1] "bench": given twice`},
		{"patches without repo", Request{Patches: patch}, "repo: patches need a repository to port onto (without both, the job is the built-in example)"},
		{"onto for the example", Request{Onto: "HEAD"}, `onto "HEAD": needs patches and a repository (the built-in example ports onto its own base)`},
		{"port without patches", Request{Repo: "r"}, "patches: the port step needs a patch (or leave the port step out and give base and head)"},
		{"base with port", Request{Repo: "r", Patches: patch, Base: "a", Head: "b"}, `base "a": base and head are for a job without the port step, which makes its own`},
		{"head alone", Request{Repo: "r", Steps: []string{"bench"}, Head: "a"}, `base: missing: a head needs a base to compare it with`},
		{"order", Request{Bench: BenchSettings{Order: "random"}}, `bench.order: unknown order "random" (want interleaved, shuffled or sequential)`},
		{"unnamed patch", Request{Repo: "r", Patches: []Patch{{Data: []byte("x")}}}, "patches[0].name: missing: name each patch, for messages"},
		{"bad branch", Request{Branch: "a..b"}, `branch: "a..b" is not a branch name like master or release-branch.go1.4`},
		{"count", Request{Bench: BenchSettings{Count: -1}}, `bench.count "-1": must be from 1 to 1000`},
		{"count too large", Request{Bench: BenchSettings{Count: 1000000}}, `bench.count "1000000": must be from 1 to 1000`},
		{"long regexp", Request{Bench: BenchSettings{Bench: strings.Repeat("a", 1001)}}, `bench.bench: a regexp of 1001 bytes: at most 1000`},
		{"benchtime", Request{Bench: BenchSettings{Benchtime: "fast"}}, `bench.benchtime: "fast" is neither a duration (1s) nor a count of iterations (100x)`},
		{"regexp", Request{Bench: BenchSettings{Bench: "("}}, "bench.bench \"(\": not a regular expression: error parsing regexp: missing closing ): `(`"},
		{"package", Request{Bench: BenchSettings{Packages: []string{"./a", "-exec=sh"}}}, `bench.packages[1] "-exec=sh": not a package pattern like ./codec or ./...`},
		{"server", Request{Gerrit: &Gerrit{Server: "go-review", Change: "1"}}, `gerrit.server: server URL "go-review" is not an http:// or https:// URL`},
		{"change and push", Request{Gerrit: &Gerrit{Change: "1", Push: &Push{}}}, "gerrit.push: a push posts to the change it pushes: give change or push, not both"},
		{"neither", Request{Gerrit: &Gerrit{}}, "gerrit.change: missing: give the change to post to, or a push"},
		{"push without port", Request{Repo: "r", Steps: []string{"bench", "post"}, Base: "a", Head: "b", Gerrit: &Gerrit{Push: &Push{}}}, "gerrit.push: a push needs the port step, whose last commit it pushes"},
		{"project", Request{Gerrit: &Gerrit{Push: &Push{Project: "a b"}}}, `gerrit.push.project: "a b" is not a Gerrit project name like go or team/tools`},
		{"pull request", Request{GitHub: &GitHub{PullRequest: review.PullRequest{Owner: "..", Repo: "go", Number: 1}}}, `github.pull_request: "../go#1" is not a pull request like owner/repo#12`},
		{"no pull request", Request{GitHub: &GitHub{}}, `github.pull_request: missing: give the pull request, OWNER/REPO#N`},
		{"head sha", Request{GitHub: &GitHub{PullRequest: review.MustParsePullRequest("golang/go#1"), HeadSHA: "HEAD"}}, `github.head_sha "HEAD": not a commit: want 40 lower-case hex digits`},
	}
	for _, tt := range tests {
		err := tt.r.Validate()
		fe, ok := errors.AsType[*remedy.FieldError](err)
		if !ok || err.Error() != tt.want {
			t.Errorf("%s: Validate = %v (%T)\nwant *remedy.FieldError %s", tt.name, err, err, tt.want)
			continue
		}
		for _, flag := range []string{"-count", "-pkg", "-for", "-onto "} {
			if strings.Contains(fe.Reason, flag) {
				t.Errorf("%s: the reason names the CLI flag %s: %s", tt.name, flag, fe.Reason)
			}
		}
	}
}

// TestPrepareSetup checks what prepare finds before anything is done:
// credentials, the freeze's branch and date.
func TestPrepareSetup(t *testing.T) {
	ctx := context.Background()
	noEnv := Env{Getenv: func(string) string { return "" }}
	tests := []struct {
		name string
		r    Request
		want string
	}{
		{"no Gerrit credentials", Request{Gerrit: &Gerrit{Server: "http://127.0.0.1:1", Change: "12"}},
			"no credentials for Gerrit http://127.0.0.1:1: set PATCHBOT_GERRIT_USER and PATCHBOT_GERRIT_PASSWORD (an HTTP password), or add 127.0.0.1 to ~/.gitcookies; nothing was done"},
		{"no GitHub token", Request{GitHub: &GitHub{PullRequest: review.MustParsePullRequest("o/r#1")}}, "no credentials: set GITHUB_TOKEN; nothing was done"},
		{"no server", Request{Gerrit: &Gerrit{Change: "12"}}, "gerrit.server: missing: give the Gerrit server's URL (or set review.gerrit in the configuration)"},
		{"example push without project", Request{Gerrit: &Gerrit{Server: "http://127.0.0.1:1", Push: &Push{}}},
			"gerrit.push.project: missing: the built-in example's scratch repository has no remote origin to take the project from"},
		{"bench without a repository", Request{Steps: []string{StepBench, StepPost}, GitHub: &GitHub{PullRequest: review.MustParsePullRequest("o/r#1")}, DryRun: true},
			"repo: missing: the bench step without the port step benchmarks a repository's base and head"},
		{"date out of range", Request{At: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}, "at: 9999-12-31: the answer would name a date after 9999-12-31 (reopens +10000-01-17), which no output can show; ask about an earlier day"},
	}
	for _, tt := range tests {
		_, err := prepare(ctx, &tt.r, nil, noEnv)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: prepare = %v\nwant %s", tt.name, err, tt.want)
		}
	}
	// A dry run needs no credentials.
	r := Request{Gerrit: &Gerrit{Server: "http://127.0.0.1:1", Change: "12"}, GitHub: &GitHub{PullRequest: review.MustParsePullRequest("o/r#1")}, DryRun: true}
	if _, err := prepare(ctx, &r, nil, noEnv); err != nil {
		t.Errorf("a dry run without credentials: %v", err)
	}
	// A branch no freeze policy governs is no mistake: the freeze step
	// will say so.
	r = Request{Branch: "main", DryRun: true}
	if p, err := prepare(ctx, &r, nil, noEnv); err != nil || !p.Freeze.Status.NoPolicy {
		t.Errorf("a run for main: %v; want no freeze policy", err)
	}
	// A job without the freeze step asks the freeze nothing: a pull
	// request into main (GitHub's default branch) is benchmarked.
	r = Request{Steps: []string{StepBench, StepPost}, Repo: t.TempDir(), Base: "a", Head: "b", Branch: "main", GitHub: &GitHub{PullRequest: review.MustParsePullRequest("o/r#1")}, DryRun: true}
	if _, err := prepare(ctx, &r, nil, noEnv); err != nil {
		t.Errorf("a bench of a pull request into main: %v", err)
	}
}

// TestRequestFile runs the request in testdata/push.json through the
// library alone, against the real Gerrit: the example's patch ported onto
// its base (pushed to a branch of the test project first), the freeze
// forced to frozen by the configuration, the benchmarks, the push and the
// post. The change on Gerrit then has exactly one run message, the one the
// result composes (the one 'patchbot run' posts, which composes it with
// the same function from the same result), and the wait-release hashtag.
func TestRequestFile(t *testing.T) {
	gs := gerrittest.Get(t)
	for k, v := range map[string]string{
		"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "Administrator", "GIT_AUTHOR_EMAIL": "admin@example.com",
		"GIT_COMMITTER_NAME": "Administrator", "GIT_COMMITTER_EMAIL": "admin@example.com",
	} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := example.WriteBase(ctx, dir); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	rand.Read(b)
	branch := "job-test-" + hex.EncodeToString(b)
	auth := base64.StdEncoding.EncodeToString([]byte(gs.User + ":" + gs.Password))
	g := gittest.Open(t, dir)
	g.Git("remote", "add", "origin", gs.URL+"/a/"+gs.Project)
	g.Git("-c", "http.extraHeader=Authorization: Basic "+auth, "push", "-q", "origin", "HEAD:refs/heads/"+branch)

	data, err := os.ReadFile("testdata/push.json")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"REPO": dir, "BRANCH": branch, "GERRIT": gs.URL, "PATCH": base64.StdEncoding.EncodeToString(example.Patch())}
	data = []byte(os.Expand(string(data), func(k string) string { return vars[k] }))
	var req Request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("frozen.yaml", []byte(fmt.Sprintf("freeze:\n  branches: [master, %s]\n  projects: [\"*\"]\n  calendar:\n    go1.99: {freeze: 2030-01-01, reopen: 2030-02-01, release: 2030-02-01}\n", branch)))
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Getenv: func(k string) string {
		return map[string]string{"PATCHBOT_GERRIT_USER": gs.User, "PATCHBOT_GERRIT_PASSWORD": gs.Password, "HOME": os.Getenv("HOME")}[k]
	}}
	res, err := Run(ctx, &req, cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	if res.Post == nil || res.Post.Push == nil || len(res.Post.Posts) != 1 || res.Post.Posts[0].Action != review.Posted {
		t.Fatalf("want one push and one post, got %+v", res.Post)
	}
	want := Compose(res, benchrun.Gerrit)
	if res.Post.Message != want {
		t.Errorf("the result's message is not the composed one:\n%s\nwant:\n%s", res.Post.Message, want)
	}
	var runs []string
	for _, m := range gs.Messages(t, res.Post.Change) {
		if m.Tag == review.Tag(MessageKind) {
			runs = append(runs, m.Message)
		}
	}
	// Gerrit starts the message with "Patch Set N:" and trims its end.
	if len(runs) != 1 || !strings.HasSuffix(runs[0], "\n\n"+strings.TrimSpace(want)) {
		t.Errorf("change %s has %d run messages, want one ending with the composed message:\n%s\nwant:\n%s", res.Post.Change, len(runs), strings.Join(runs, "\n---\n"), want)
	}
	if !strings.Contains(want, "Freeze: The tree is frozen for Go 1.99") || !strings.Contains(want, "WriteInts/impl=codec") {
		t.Errorf("the message lacks the freeze or the table:\n%s", want)
	}
	var hashtags []string
	gs.Do(t, "GET", "/changes/"+res.Post.Change+"/hashtags", nil, &hashtags)
	if !strings.Contains(strings.Join(hashtags, " "), "wait-release") {
		t.Errorf("change %s has hashtags %q, want wait-release", res.Post.Change, hashtags)
	}
}

// TestDryRunRejects checks that a dry run of the whole job, whose port is
// made in a scratch clone, writes no rejects into the user's directories
// when the patch does not apply (job.Port's dry run writes none either).
func TestDryRunRejects(t *testing.T) {
	for k, v := range map[string]string{"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "Gopher", "GIT_AUTHOR_EMAIL": "gopher@example.com",
		"GIT_COMMITTER_NAME": "Gopher", "GIT_COMMITTER_EMAIL": "gopher@example.com"} {
		t.Setenv(k, v)
	}
	r := gittest.New(t)
	r.Commit("base", map[string]string{"a.txt": "a\n"})
	repo := r.Dir
	rej := t.TempDir() + "/rej"
	bad := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n"
	req := &Request{Repo: repo, Patches: []Patch{{Name: "bad.patch", Data: []byte(bad)}}, DryRun: true, Port: PortSettings{RejectDir: rej}}
	if _, err := Run(context.Background(), req, nil, Env{}); err == nil || !strings.Contains(err.Error(), "does not apply") {
		t.Fatalf("Run = %v, want the port to fail", err)
	}
	if _, err := os.Stat(rej); !os.IsNotExist(err) {
		t.Errorf("a dry run wrote %s (%v)", rej, err)
	}
}
