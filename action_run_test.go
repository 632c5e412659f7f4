package patchbot_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/actions"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/benchrun"
)

// buildPatchbot builds cmd/patchbot with the action's build step,
// scripts/action-build, and returns the binary's path.
func buildPatchbot(t *testing.T) string {
	t.Helper()
	s := runBuild(t, "PATH="+os.Getenv("PATH"))
	if s.status != 0 {
		t.Fatalf("scripts/action-build: exit status %d\n%s", s.status, s.log)
	}
	bin := s.outputs(t, s.output)["bin"]
	if !strings.HasPrefix(bin, filepath.Dir(s.output)+"/patchbot-action.") {
		t.Fatalf("scripts/action-build: output bin %q, want a new directory in RUNNER_TEMP", bin)
	}
	return bin
}

// runBuild runs scripts/action-build as action.yml does, in the action's
// directory, with the go command of the PATH in vars.
func runBuild(t *testing.T, vars ...string) *step {
	t.Helper()
	tmp := t.TempDir()
	s := &step{output: filepath.Join(tmp, "output")}
	cmd := exec.Command("/bin/bash", "scripts/action-build")
	cmd.Env = append([]string{
		"HOME=" + tmp, "RUNNER_TEMP=" + tmp, "GITHUB_OUTPUT=" + s.output,
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOPROXY=off",
		// What a user's job may have set: the action's build must not take it.
		"GOFLAGS=-mod=vendor", "GOWORK=" + filepath.Join(tmp, "go.work"),
	}, vars...)
	s.log, s.status = runLogged(t, cmd)
	return s
}

// TestActionBuildGo checks what the action's build says to a job whose Go
// cannot build patchbot: none on PATH, or one older than go.mod's go line
// (a go command that says it is Go 1.22.5). The job's own Go is the one
// the build uses; nothing else is installed.
func TestActionBuildGo(t *testing.T) {
	bin := t.TempDir()
	goScript := "#!/bin/sh\n[ \"$*\" = 'env GOVERSION' ] && echo go1.22.5 && exit 0\necho \"this go does not $*\" >&2; exit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	need := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(readFile(t, "go.mod"))[1]
	for _, tt := range []struct{ path, want string }{
		{"/nonexistent:/bin", "::error::patchbot action: no Go on PATH: put actions/setup-go before patchbot's step"},
		{bin + ":/bin", "::error::patchbot action: patchbot needs Go " + need + " or newer to build, and this job's Go is go1.22.5: set go-version: \"" + need + "\""},
	} {
		s := runBuild(t, "PATH="+tt.path)
		if s.status != 2 || !strings.HasPrefix(string(s.log), tt.want) || strings.Count(string(s.log), "\n") != 1 {
			t.Errorf("PATH=%s: exit status %d, log %q; want 2 and one line starting %q", tt.path, s.status, s.log, tt.want)
		}
		if _, err := os.Stat(s.output); err == nil {
			t.Errorf("PATH=%s: the build set outputs", tt.path)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A step is a run of the action's entry point, scripts/action-run, as the
// runner runs it: the runner's files are plain files, its log the
// script's stdout and stderr.
type step struct {
	dir                      string
	output, summary, envFile string
	log                      []byte
	status                   int
}

func runStep(t *testing.T, bin, dir string, vars ...string) *step {
	t.Helper()
	tmp := t.TempDir()
	s := &step{dir: dir, output: filepath.Join(tmp, "output"), summary: filepath.Join(tmp, "summary.md"), envFile: filepath.Join(tmp, "env")}
	root, _ := os.Getwd()
	cmd := exec.Command("bash", filepath.Join(root, "scripts/action-run"))
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + tmp,
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"),
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod",
		"GIT_CONFIG_NOSYSTEM=1",
		"GITHUB_ACTIONS=true", "RUNNER_TEMP=" + tmp,
		"GITHUB_OUTPUT=" + s.output, "GITHUB_STEP_SUMMARY=" + s.summary, "GITHUB_ENV=" + s.envFile,
		"PATCHBOT=" + bin,
	}
	cmd.Env = append(cmd.Env, vars...)
	s.log, s.status = runLogged(t, cmd)
	return s
}

// runLogged runs cmd, stdout and stderr together as a runner's log, and
// returns the log and the exit status.
func runLogged(t *testing.T, cmd *exec.Cmd) ([]byte, int) {
	t.Helper()
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return log.Bytes(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return log.Bytes(), 0
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func (s *step) outputs(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, s.log)
	}
	m, err := actions.ParseKeyValues(data)
	if err != nil {
		t.Fatalf("%s: %v:\n%s", file, err, data)
	}
	return m
}

// The package of TestActionEntryPoint: its old side has one benchmark,
// its new side another that prints workflow commands and fails.
const (
	evilOld = `package m

import "testing"

func BenchmarkSum(b *testing.B) {
	s := 0
	for i := 0; i < b.N; i++ {
		s += i
	}
	_ = s
}
`
	evilNew = evilOld + `
func BenchmarkEvil(b *testing.B) {
	println("::add-mask::hunter2")
	println("::set-output name=regressions::999")
	println("::set-env name=PATH::/tmp/evil")
	println("::error::pwned")
	b.Fatal("::stop-commands::fake\n::endgroup::")
}
`
)

// TestActionEntryPoint runs the action's entry point, scripts/action-run,
// as action.yml runs it, on a change whose new benchmark prints
// ::add-mask::, ::set-output and other workflow commands: they reach the
// log only inside the stop-commands block, and the outputs, the step
// summary and GITHUB_ENV are as docs/action.md says.
func TestActionEntryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds patchbot and runs benchmarks")
	}
	bin := buildPatchbot(t)
	dir := t.TempDir()
	git := gittest.Open(t, dir).Git
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("m.go", "package m\n")
	write("m_test.go", evilOld)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "m: add")
	write("m_test.go", evilNew)
	git("commit", "-q", "-a", "-m", "m: a benchmark that says things")

	// -select all: the change cannot reach BenchmarkSum, whose rows the
	// outputs are made of.
	s := runStep(t, bin, dir, "PATCHBOT_COMMAND=bench", "PATCHBOT_ARGS=-select\nall\n-count\n2\n-benchtime\n10x\n", "PATCHBOT_FAIL=true")
	t.Logf("the step's log:\n%s", s.log)
	if s.status != 0 {
		t.Fatalf("exit status %d", s.status)
	}

	// The log: patchbot's group, and in it one stop-commands block that
	// holds every line the benchmark printed.
	cmds := actions.Commands(s.log)
	if len(cmds) != 3 || cmds[0] != "::group::patchbot bench" || !regexp.MustCompile(`^::stop-commands::[0-9a-f]{32}$`).MatchString(cmds[1]) || cmds[2] != "::endgroup::" {
		t.Fatalf("the runner would act on %q; want the group, the stop-commands and the group's end only", cmds)
	}
	token := strings.TrimPrefix(cmds[1], "::stop-commands::")
	log := string(s.log)
	start, end := strings.Index(log, cmds[1]+"\n"), strings.Index(log, "\n::"+token+"::\n")
	if start < 0 || end < start {
		t.Fatalf("no block from %q to ::%s::", cmds[1], token)
	}
	inside, outside := log[start:end], log[:start]+log[end:]
	for _, line := range []string{"::add-mask::hunter2", "::set-output name=regressions::999", "::set-env name=PATH::/tmp/evil", "::error::pwned"} {
		if !strings.Contains(inside, line) {
			t.Errorf("%q is not in the block", line)
		}
		if strings.Contains(outside, line) {
			t.Errorf("%q is outside the block", line)
		}
	}

	// The outputs.
	out := s.outputs(t, s.output)
	result := filepath.Join(filepath.Dir(s.output), "patchbot-bench.json")
	if out["exit-status"] != "0" || out["result"] != result || out["regressions"] != "0" || len(out) != 3 {
		t.Errorf("outputs %q; want exit-status 0, result %s, regressions 0 (the benchmark's 999 is not one)", out, result)
	}
	if env := s.outputs(t, s.envFile); env["PATCHBOT_RESULT"] != result || len(env) != 1 {
		t.Errorf("GITHUB_ENV %q; want PATCHBOT_RESULT=%s", env, result)
	}
	f, err := os.Open(result)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := benchrun.ReadJSON(f)
	if err != nil {
		t.Fatalf("the result %s: %v", result, err)
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Tail, "::add-mask::hunter2") {
		t.Errorf("the result's failures: %+v; want BenchmarkEvil's, with what it printed", res.Failures)
	}

	// The summary: the table, the failure's output in a code block.
	summary, err := os.ReadFile(s.summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## patchbot bench\n", "| benchmark | old ns/op | new ns/op | delta |", "| Sum-", "- FAIL new example.com/m: exit status 1", "  ::add-mask::hunter2\n"} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("the summary has no %q:\n%s", want, summary)
		}
	}
}

// TestActionEntryPointFails checks the exit status and the outputs of a
// command that fails: the step fails with patchbot's status, unless the
// input fail is "false"; either way exit-status says it.
func TestActionEntryPointFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds patchbot")
	}
	bin := buildPatchbot(t)
	dir := t.TempDir()
	for _, fail := range []string{"true", "false"} {
		// A result file that is not there: a usage mistake, exit 2.
		s := runStep(t, bin, dir, "PATCHBOT_COMMAND=post", "PATCHBOT_ARGS=-github\ngopher/codec#7\nmissing.json", "PATCHBOT_FAIL="+fail)
		want := 2
		if fail == "false" {
			want = 0
		}
		if s.status != want {
			t.Errorf("fail=%s: exit status %d, want %d; log:\n%s", fail, s.status, want, s.log)
		}
		out := s.outputs(t, s.output)
		if out["exit-status"] != "2" || out["result"] == "" {
			t.Errorf("fail=%s: outputs %q, want exit-status 2 and the result's path", fail, out)
		}
		if cmds := actions.Commands(s.log); len(cmds) != 4 || !strings.HasPrefix(cmds[3], "::error::patchbot post failed (exit status 2)") {
			t.Errorf("fail=%s: the runner would act on %q; want the group, the block, its end and an ::error::", fail, cmds)
		}
	}
	// freeze's exit status 3 is the output frozen.
	for _, tt := range []struct{ at, frozen, status string }{{"2024-06-15", "true", "3"}, {"2024-09-15", "false", "0"}} {
		s := runStep(t, bin, dir, "PATCHBOT_COMMAND=freeze", "PATCHBOT_ARGS=-offline\n-at\n"+tt.at, "PATCHBOT_FAIL=false")
		if out := s.outputs(t, s.output); out["frozen"] != tt.frozen || out["exit-status"] != tt.status || s.status != 0 {
			t.Errorf("freeze at %s: outputs %q, exit status %d; want frozen %s, exit-status %s, 0\n%s", tt.at, out, s.status, tt.frozen, tt.status, s.log)
		}
	}

	// An input command that is not a command is refused before anything
	// runs: exit status 2, which fail "false" keeps in the output only.
	for _, fail := range []string{"true", "false"} {
		s := runStep(t, bin, dir, "PATCHBOT_COMMAND=bench; rm -rf /", "PATCHBOT_FAIL="+fail)
		want := 2
		if fail == "false" {
			want = 0
		}
		if s.status != want || !strings.HasPrefix(string(s.log), "::error::patchbot action: the input command must be") {
			t.Errorf("a bad command, fail=%s: exit status %d, log %q; want %d", fail, s.status, s.log, want)
		}
		if out := s.outputs(t, s.output); out["exit-status"] != "2" || len(out) != 1 {
			t.Errorf("a bad command, fail=%s: outputs %q, want exit-status 2 only", fail, out)
		}
		if _, err := os.Stat(s.envFile); err == nil {
			t.Errorf("a bad command, fail=%s: wrote GITHUB_ENV", fail)
		}
	}
}

// TestActionToken checks where the input github-token goes: GITHUB_TOKEN
// for the commands that talk to GitHub, and nowhere in bench's
// environment, whose benchmarks run the pull request's code (a token the
// workflow itself put in GITHUB_TOKEN is taken away too).
func TestActionToken(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "patchbot")
	envOut := filepath.Join(dir, "env.txt")
	script := "#!/bin/sh\nenv > " + envOut + "\necho '{}'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ cmd, want string }{
		{"post", "GITHUB_TOKEN=input-token"},
		{"sweep", "GITHUB_TOKEN=input-token"},
		{"bench", ""},
	} {
		s := runStep(t, fake, dir, "PATCHBOT_COMMAND="+tt.cmd, "PATCHBOT_GITHUB_TOKEN=input-token", "GITHUB_TOKEN=workflow-token")
		if s.status != 0 {
			t.Fatalf("%s: exit status %d\n%s", tt.cmd, s.status, s.log)
		}
		env := readFile(t, envOut)
		var got []string
		for _, line := range strings.Split(env, "\n") {
			if strings.Contains(line, "TOKEN") {
				got = append(got, line)
			}
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("%s: patchbot's environment has %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
