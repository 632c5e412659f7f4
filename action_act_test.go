package patchbot_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/testenv"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// The act tests run the action and the example workflows on a real
// Actions runner, nektos/act, in host mode (every step on this machine, no
// Docker), offline, on recorded events, against the fake GitHub at our
// boundary (reviewtest). What act cannot fetch here is replaced, and each
// replacement is said in actWorkflow.

// actBinary returns the path of act: PATCHBOT_ACT, else act on PATH, else
// in the go command's bin directory, where go install puts it.
func actBinary(t *testing.T) string {
	t.Helper()
	path := os.Getenv("PATCHBOT_ACT")
	var err error
	if path == "" {
		if path, err = exec.LookPath("act"); err != nil {
			gobin := goEnv(t, "GOBIN")
			if gobin == "" {
				gobin = filepath.Join(goEnv(t, "GOPATH"), "bin")
			}
			if _, serr := os.Stat(filepath.Join(gobin, "act")); serr == nil {
				path, err = filepath.Join(gobin, "act"), nil
			}
		}
	}
	testenv.Need(t, testenv.Act, err)
	return path
}

// actWorkflow rewrites a workflow for act offline, step by step, and says
// so in each step's name: actions/checkout without ref: is act's copy of
// the workspace (at the commit under test); actions/setup-go is the host's
// Go, which is on PATH; upload-artifact and download-artifact copy to and
// from $ARTIFACTS/NAME. patchbot/patchbot@main stays: act is told to take
// it from a copy of this checkout (--local-repository), as the runner
// fetches it from GitHub; bench's args get -benchtime 1000x first, for
// time. Every other step is the workflow's own, as it is.
func actWorkflow(t *testing.T, src []byte) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	jobs := mapValue(doc.Content[0], "jobs")
	if jobs == nil {
		t.Fatal("no jobs")
	}
	for i := 1; i < len(jobs.Content); i += 2 {
		steps := mapValue(jobs.Content[i], "steps")
		for _, step := range steps.Content {
			uses := mapValue(step, "uses")
			if uses == nil {
				continue
			}
			action, _, _ := strings.Cut(uses.Value, "@")
			with := mapValue(step, "with")
			input := func(name string) string {
				if v := mapValue(with, name); v != nil {
					return v.Value
				}
				return ""
			}
			run := func(name, script string, env ...string) {
				keep := &yaml.Node{Kind: yaml.MappingNode}
				for _, k := range []string{"id", "if", "continue-on-error"} {
					if v := mapValue(step, k); v != nil {
						keep.Content = append(keep.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
					}
				}
				e := &yaml.Node{Kind: yaml.MappingNode}
				for j := 0; j < len(env); j += 2 {
					e.Content = append(e.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: env[j]}, &yaml.Node{Kind: yaml.ScalarNode, Value: env[j+1]})
				}
				keep.Content = append(keep.Content,
					&yaml.Node{Kind: yaml.ScalarNode, Value: "name"}, &yaml.Node{Kind: yaml.ScalarNode, Value: name},
					&yaml.Node{Kind: yaml.ScalarNode, Value: "shell"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "bash"},
					&yaml.Node{Kind: yaml.ScalarNode, Value: "env"}, e,
					&yaml.Node{Kind: yaml.ScalarNode, Value: "run"}, &yaml.Node{Kind: yaml.ScalarNode, Value: script})
				*step = *keep
			}
			switch action {
			case "actions/checkout":
				deleteKey(with, "ref")
			case "actions/setup-go":
				run("setup-go (act: the host's Go, on PATH)", "go version")
			case "actions/upload-artifact":
				run("upload-artifact (act: a copy to $ARTIFACTS)", `mkdir -p "$ARTIFACTS/$NAME" && cp "$FILE" "$ARTIFACTS/$NAME/"`,
					"NAME", input("name"), "FILE", input("path"))
			case "actions/download-artifact":
				run("download-artifact (act: a copy from $ARTIFACTS)", `[ -d "$ARTIFACTS/$NAME" ] && mkdir -p "$DEST" && cp -R "$ARTIFACTS/$NAME/." "$DEST/"`,
					"NAME", input("name"), "DEST", input("path"))
			case "patchbot/patchbot":
				// act takes it from a copy of this checkout: --local-repository.
				// bench's benchmarks run 1000 times a run, not for a second.
				if input("command") == "bench" {
					if args := mapValue(with, "args"); args != nil {
						args.Value = "-benchtime\n1000x\n" + args.Value
					}
				}
			default:
				t.Fatalf("a step uses %s, which act cannot fetch here and actWorkflow does not replace", uses.Value)
			}
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func deleteKey(m *yaml.Node, key string) {
	if m == nil {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// The user's module of the act tests is TestActionEntryPoint's (evilOld,
// evilNew), whose head adds BenchmarkEvil, which prints workflow commands,
// and the head here adds BenchmarkPoison too, which does what it can
// against the jobs that run after it:
// it replaces the patchbot that runs it with a program that leaves a mark
// when run, plants one beside the result it is to upload, and writes what
// it replaced and every token it can read in the environment of a process
// of the act run (ACT=true: not the other tests') to a file.
const (
	userPoison = `package m

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const mark, found = %q, %q

var poison = "#!/bin/sh\necho \"poisoned patchbot ran: $*\" >>" + mark + "\necho '{}'\n"

func BenchmarkPoison(b *testing.B) {
	var replaced []string
	for pid := os.Getppid(); pid > 1; {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if strings.TrimSpace(string(comm)) == "patchbot" {
			exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
			exe = strings.TrimSuffix(exe, " (deleted)") // replaced by an earlier run
			if err == nil && os.WriteFile(exe+".new", []byte(poison), 0o755) == nil && os.Rename(exe+".new", exe) == nil {
				replaced = append(replaced, "replaced "+exe)
			}
		}
		if r := os.Getenv("RUNNER_TEMP"); r != "" {
			os.MkdirAll(filepath.Join(r, "patchbot"), 0o755)
			os.WriteFile(filepath.Join(r, "patchbot", "patchbot"), []byte(poison), 0o755)
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		pid, _ = strconv.Atoi(f[1])
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	tokens := replaced
	for _, p := range procs {
		env, _ := os.ReadFile(p)
		if !strings.Contains("\x00"+string(env), "\x00ACT=true\x00") {
			continue // not a step of an act run: another test's process
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.Contains(k, "TOKEN") && v != "" && !strings.HasPrefix(k, "PATCHBOT_TEST_") {
				tokens = append(tokens, p+": "+kv)
			}
		}
	}
	os.WriteFile(found, []byte(strings.Join(tokens, "\n")), 0o644)
	for i := 0; i < b.N; i++ {
	}
}
`
)

// An actRepo is a user's repository as the act tests run it: base and head
// commits of a Go module; and the action, a copy of this checkout.
type actRepo struct {
	dir, base, head      string
	slow                 string // head, with BenchmarkSum 100 times slower
	action               string
	mark, found, secrets string
}

func newActRepo(t *testing.T) *actRepo {
	t.Helper()
	tmp := t.TempDir()
	r := &actRepo{dir: filepath.Join(tmp, "repo"), action: filepath.Join(tmp, "patchbot"), mark: filepath.Join(tmp, "poisoned"), found: filepath.Join(tmp, "tokens-found"),
		secrets: filepath.Join(tmp, "secrets")}
	git := gittest.Open(t, r.dir).Git
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(r.dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("m.go", "package m\n")
	write("m_test.go", evilOld)
	git("init", "-q", "-b", "main")
	git("remote", "add", "origin", "https://github.com/gopher/m")
	git("add", "-A")
	git("commit", "-q", "-m", "m: add")
	r.base = git("rev-parse", "HEAD")
	write("m_test.go", evilNew)
	write("poison_test.go", fmt.Sprintf(userPoison, r.mark, r.found))
	git("add", "-A")
	git("commit", "-q", "-m", "m: benchmarks that say and do things")
	r.head = git("rev-parse", "HEAD")
	write("m_test.go", strings.Replace(evilNew, "s += i", "s += i\n\t\tfor j := 0; j < 100; j++ {\n\t\t\ts += j ^ i\n\t\t}", 1))
	git("commit", "-q", "-a", "-m", "m: a slower Sum")
	r.slow = git("rev-parse", "HEAD")
	git("checkout", "-q", r.head)

	// The action: this checkout's files as they are now, committed or not.
	root, _ := os.Getwd()
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted, not yet committed
			}
			t.Fatal(err)
		}
		info, _ := os.Stat(filepath.Join(root, name))
		dst := filepath.Join(r.action, name)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(r.secrets, []byte("GITHUB_TOKEN="+reviewtest.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// An actRun is what one act run left: its log, exit status, and the files
// its workflow's probe steps wrote to $ARTIFACTS.
type actRun struct {
	log       string
	status    int
	artifacts string
}

// run runs act on the workflow src (rewritten by actWorkflow) for the
// event, with payload as the event's JSON, in r's repository checked out
// at r.head, with the fake GitHub's API and a fake gh (bin) on PATH.
func (r *actRepo) run(t *testing.T, act, event, workflow string, src []byte, payload any, gh *reviewtest.GitHub, artifacts, bin string) *actRun {
	t.Helper()
	tmp := t.TempDir()
	wf := filepath.Join(tmp, workflow)
	if err := os.WriteFile(wf, actWorkflow(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, _ := json.Marshal(payload)
	evFile := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(evFile, ev, 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	os.MkdirAll(home, 0o755)
	cmd := exec.Command(act, event, "-e", evFile, "-W", wf,
		"-P", "ubuntu-latest=-self-hosted", "--action-offline-mode",
		"--local-repository", "patchbot/patchbot@main="+r.action,
		"--secret-file", r.secrets,
		"--env", "GITHUB_API_URL="+gh.URL,
		"--env", "ARTIFACTS="+artifacts)
	cmd.Dir = r.dir
	// The runner's environment, and nothing of ours: no token of a
	// developer's shell reaches a step. The go command's caches are
	// shared, and it is offline.
	cmd.Env = []string{
		"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOPROXY=off", "GOTOOLCHAIN=local",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Gopher", "GIT_AUTHOR_EMAIL=gopher@example.com",
		"GIT_COMMITTER_NAME=Gopher", "GIT_COMMITTER_EMAIL=gopher@example.com",
	}
	start := time.Now()
	log, status := runLogged(t, cmd)
	run := &actRun{log: string(log), status: status, artifacts: artifacts}
	t.Logf("act %s -W %s: exit status %d in %v", event, workflow, run.status, time.Since(start).Round(time.Second))
	if strings.Contains(run.log, reviewtest.Token) {
		t.Errorf("act %s: the log shows the token", event)
	}
	return run
}

// fakeGH writes a gh (GitHub's CLI) that answers the two calls the example
// workflows make, from the fake's pull request n: its head and base, and
// the open pull request with a head SHA.
func fakeGH(t *testing.T, n int, head, base string) string {
	t.Helper()
	bin := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
case "$*" in
"api repos/gopher/m/pulls/%d --jq "*) echo '%s %s' ;;
"api --paginate repos/gopher/m/pulls?state=open&per_page=100 --jq "*) [ "$HEAD_SHA" = %s ] && echo %d ;;
*) echo "fake gh: $*: not faked" >&2; exit 1 ;;
esac
`, n, head, base, head, n)
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestActionOnAct runs on act, in order, what a pull request goes through
// with the example workflows: bench-pr.yml on its pull_request event (its
// code runs: a benchmark that prints workflow commands, and one that
// tries to poison what runs after it), bench-pr-comment.yml on the
// workflow_run event that follows (the answer, posted from the artifact as
// data), twice (the comment is edited, not doubled), and bench-comment.yml
// on an issue_comment "/patchbot bench" from the owner. Then the exit
// statuses, on a workflow of our own.
func TestActionOnAct(t *testing.T) {
	if testing.Short() {
		t.Skip("runs act, which builds patchbot and runs benchmarks")
	}
	act := actBinary(t)
	r := newActRepo(t)
	gh := reviewtest.NewGitHub("gopher/m")
	defer gh.Close()
	pr := gh.AddPullRequest(0, "open")
	gh.SetPullRequest(pr, reviewtest.PullRequest{Head: r.head, HeadRef: "feature", Base: "main"})
	bin := fakeGH(t, pr, r.head, r.base)
	artifacts := t.TempDir()
	example := func(name string) []byte {
		src, err := os.ReadFile("docs/examples/workflows/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return probe(t, src)
	}
	prEvent := map[string]any{
		"action": "synchronize", "number": pr,
		"pull_request": map[string]any{"number": pr, "head": map[string]any{"sha": r.head, "ref": "feature"}, "base": map[string]any{"sha": r.base, "ref": "main"}},
		"repository":   map[string]any{"full_name": "gopher/m", "name": "m", "owner": map[string]any{"login": "gopher"}},
	}

	// 1. The pull request's benchmarks.
	run := r.run(t, act, "pull_request", "bench-pr.yml", example("bench-pr.yml"), prEvent, gh, artifacts, bin)
	if run.status != 0 {
		t.Fatalf("bench-pr.yml: act exit status %d\n%s", run.status, run.log)
	}
	out := run.steps(t, "bench")["bench"].Outputs
	if out["exit-status"] != "0" || out["regressions"] != "0" || !strings.HasSuffix(out["result"], "/patchbot/bench.json") {
		t.Errorf("bench-pr.yml: the bench step's outputs %q; want exit-status 0, regressions 0 (not the benchmark's 999), the result", out)
	}
	for _, line := range []string{"::set-env:: PATH", "::set-output:: regressions=999"} {
		if strings.Contains(run.log, line) {
			t.Errorf("bench-pr.yml: act obeyed a benchmark's command: %q in its log", line)
		}
	}
	if !strings.Contains(run.log, "hunter2") {
		t.Errorf("bench-pr.yml: the benchmark's ::add-mask:: was obeyed (hunter2 is masked in the log)")
	}
	result, err := os.ReadFile(filepath.Join(artifacts, "patchbot-bench", "bench.json"))
	if err != nil {
		t.Fatalf("bench-pr.yml uploaded no result: %v\n%s", err, run.log)
	}
	if !bytes.Contains(result, []byte(r.head)) {
		t.Errorf("the result does not name the pull request's head %s", r.head[:12])
	}
	if _, err := os.Stat(r.mark); !os.IsNotExist(err) {
		t.Errorf("a poisoned patchbot ran in bench-pr.yml: %s (%v)", readFile(t, r.mark), err)
	}
	if found, err := os.ReadFile(r.found); err != nil {
		t.Errorf("BenchmarkPoison did not run: %v", err)
	} else {
		if bytes.Contains(found, []byte(reviewtest.Token)) {
			t.Errorf("the benchmark found the token in an environment:\n%s", found)
		}
		// The attack was real: the binary that ran the benchmark was
		// replaced. No job after ran it (the mark, above and below).
		if !bytes.Contains(found, []byte("replaced ")) {
			t.Errorf("BenchmarkPoison found no patchbot to replace:\n%s", found)
		}
	}

	// 2. The answer, from the default branch, twice.
	runEvent := map[string]any{
		"action": "completed",
		"workflow_run": map[string]any{"id": 4242, "event": "pull_request", "conclusion": "success", "head_sha": r.head,
			"head_branch": "feature", "pull_requests": []any{}},
		"repository": prEvent["repository"],
	}
	for i := range 2 {
		run = r.run(t, act, "workflow_run", "bench-pr-comment.yml", example("bench-pr-comment.yml"), runEvent, gh, artifacts, bin)
		if run.status != 0 {
			t.Fatalf("bench-pr-comment.yml (%d): act exit status %d\n%s", i+1, run.status, run.log)
		}
	}
	comments := gh.Comments()
	if len(comments) != 1 {
		t.Fatalf("after two answers, %d comments; want one, edited in place", len(comments))
	}
	body := comments[0].Body
	for _, want := range []string{r.head[:12], "| benchmark |", "Sum"} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment has no %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "::set-output") && !strings.Contains(body, "```") {
		t.Errorf("the comment shows the benchmark's output outside a code block:\n%s", body)
	}
	if _, err := os.Stat(r.mark); !os.IsNotExist(err) {
		t.Errorf("a poisoned patchbot ran in the answer: %s (%v)", readFile(t, r.mark), err)
	}

	// 3. "/patchbot bench" in a comment, from the owner.
	gh.SetComments(nil)
	os.RemoveAll(artifacts)
	os.MkdirAll(artifacts, 0o755)
	commentEvent := map[string]any{
		"action": "created",
		"issue":  map[string]any{"number": pr, "pull_request": map[string]any{"url": gh.URL + "/repos/gopher/m/pulls/" + fmt.Sprint(pr)}},
		"comment": map[string]any{"id": 1, "body": "/patchbot bench " + r.head[:12], "author_association": "OWNER",
			"user": map[string]any{"login": "gopher"}},
		"repository": prEvent["repository"],
	}
	run = r.run(t, act, "issue_comment", "bench-comment.yml", example("bench-comment.yml"), commentEvent, gh, artifacts, bin)
	if run.status != 0 {
		t.Fatalf("bench-comment.yml: act exit status %d\n%s", run.status, run.log)
	}
	if cs := gh.Comments(); len(cs) != 1 || !strings.Contains(cs[0].Body, r.head[:12]) || !strings.Contains(cs[0].Body, "| benchmark |") {
		t.Errorf("bench-comment.yml: comments %+v; want one, with the table, naming %s", cs, r.head[:12])
	}
	if _, err := os.Stat(r.mark); !os.IsNotExist(err) {
		t.Errorf("a poisoned patchbot ran in bench-comment.yml: %s (%v)", readFile(t, r.mark), err)
	}
}

// actStatuses is a workflow of our own: the action's exit statuses and
// outputs. (Not the step summary: act empties its file before each step
// and keeps none; TestActionEntryPoint checks it.)
const actStatuses = `name: statuses
on: workflow_dispatch
permissions: {}
jobs:
  bench:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
      - id: regression
        uses: patchbot/patchbot@main
        with:
          command: bench
          args: |
            -fail-on-regression
            -bench
            ^BenchmarkSum$
            -count
            5
            ${{ github.event.inputs.head }}
            ${{ github.event.inputs.slow }}
          fail: "false"
      - id: usage
        uses: patchbot/patchbot@main
        with:
          command: post
          fail: "false"
      - id: frozen
        uses: patchbot/patchbot@main
        with:
          command: freeze
          args: |
            -offline
            -at
            2024-06-15
          fail: "false"
      - id: open
        uses: patchbot/patchbot@main
        with:
          command: freeze
          args: |
            -offline
            -at
            2024-09-15
      - id: invalid
        continue-on-error: true
        uses: patchbot/patchbot@main
        with:
          command: "bench; rm -rf /"
`

// TestActionOnActStatuses runs the action on act once for each of its exit
// statuses: 1 for a regression with -fail-on-regression, 2 for a usage
// error and for an input command that is not a command (which fails the
// step), 3 for a frozen tree; and checks the outputs.
func TestActionOnActStatuses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs act, which builds patchbot and runs benchmarks")
	}
	act := actBinary(t)
	r := newActRepo(t)
	gh := reviewtest.NewGitHub("gopher/m")
	defer gh.Close()
	artifacts := t.TempDir()
	event := map[string]any{"inputs": map[string]any{"head": r.head, "slow": r.slow},
		"repository": map[string]any{"full_name": "gopher/m", "name": "m", "owner": map[string]any{"login": "gopher"}}}
	run := r.run(t, act, "workflow_dispatch", "statuses.yml", probe(t, []byte(actStatuses)), event, gh, artifacts, t.TempDir())
	if run.status != 0 {
		t.Fatalf("act exit status %d\n%s", run.status, run.log)
	}
	steps := run.steps(t, "bench")
	for _, tt := range []struct {
		id, outcome string
		outputs     map[string]string
	}{
		{"regression", "success", map[string]string{"exit-status": "1", "regressions": "1"}},
		{"usage", "success", map[string]string{"exit-status": "2"}},
		{"frozen", "success", map[string]string{"exit-status": "3", "frozen": "true"}},
		{"open", "success", map[string]string{"exit-status": "0", "frozen": "false"}},
		{"invalid", "failure", map[string]string{"exit-status": "2"}},
	} {
		got := steps[tt.id]
		if got.Outcome != tt.outcome {
			t.Errorf("step %s: outcome %s, want %s", tt.id, got.Outcome, tt.outcome)
		}
		for k, v := range tt.outputs {
			if got.Outputs[k] != v {
				t.Errorf("step %s: output %s = %q, want %q (outputs %q)", tt.id, k, got.Outputs[k], v, got.Outputs)
			}
		}
	}
}

// probe adds to each job of a workflow a last step, run whatever happened
// before it, that writes the outputs and outcome of each of its steps to
// $ARTIFACTS/steps-JOB.json, for the test to read.
func probe(t *testing.T, src []byte) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	jobs := mapValue(doc.Content[0], "jobs")
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		name := jobs.Content[i].Value
		steps := mapValue(jobs.Content[i+1], "steps")
		var step yaml.Node
		text := fmt.Sprintf(`name: probe (the act test's)
if: always()
shell: bash
env:
  STEPS: ${{ toJSON(steps) }}
run: printf '%%s' "$STEPS" > "$ARTIFACTS/steps-%s.json"
`, name)
		if err := yaml.Unmarshal([]byte(text), &step); err != nil {
			t.Fatal(err)
		}
		steps.Content = append(steps.Content, step.Content[0])
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A stepResult is what the steps context says of a step.
type stepResult struct {
	Outputs map[string]string `json:"outputs"`
	Outcome string            `json:"outcome"`
}

// steps returns job's steps as the probe wrote them.
func (run *actRun) steps(t *testing.T, job string) map[string]stepResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(run.artifacts, "steps-"+job+".json"))
	if err != nil {
		t.Fatalf("no probe: %v\n%s", err, run.log)
	}
	var steps map[string]stepResult
	if err := json.Unmarshal(data, &steps); err != nil {
		t.Fatalf("probe: %v\n%s", err, data)
	}
	return steps
}
