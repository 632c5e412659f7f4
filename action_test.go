package patchbot_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/patchbot/patchbot/internal/testenv"
)

// The workflows of this repository: its own, and the examples to copy.
func workflowFiles(t *testing.T) (own, examples []string) {
	t.Helper()
	own, _ = filepath.Glob(".github/workflows/*.yml")
	examples, _ = filepath.Glob("docs/examples/workflows/*.yml")
	if len(own) == 0 || len(examples) == 0 {
		t.Fatalf("workflows: own %q, examples %q; want some of each", own, examples)
	}
	return own, examples
}

// thisAction is how the examples name this repository's action; the
// project's own workflows use it as ./.
const thisAction = "patchbot/patchbot@"

// actionsAllowed are the actions the workflows may use besides this one:
// GitHub's own, each pinned to a commit with its version in a comment, the
// form Dependabot updates (TestWorkflowsPinned). No actions/cache: see
// docs/action.md, Security.
var actionsAllowed = []string{"actions/checkout", "actions/setup-go", "actions/upload-artifact", "actions/download-artifact"}

// pinned is a uses: line of an action pinned to a commit, with its version.
var pinned = regexp.MustCompile(`^\s*(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$`)

// shellcheck returns the path of shellcheck, or "" when it is not
// installed: the lint then leaves the run: scripts out. When the run
// requires shellcheck (testenv.Shellcheck), as scripts/test does, its
// absence fails t instead.
func shellcheck(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("shellcheck")
	if !testenv.Have(t, testenv.Shellcheck, err) {
		return ""
	}
	return path
}

// TestWorkflowsLint lints every workflow and, through the ones that use
// it as ./, action.yml, with actionlint (and shellcheck, for the run:
// scripts, when it is installed). An example names the action as
// patchbot/patchbot@REF, which actionlint cannot look into; it is linted
// a second time with uses: ./ instead, so that its inputs are checked
// against action.yml too.
func TestWorkflowsLint(t *testing.T) {
	own, examples := workflowFiles(t)
	root, _ := os.Getwd()
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: shellcheck(t), Oneline: true})
	if err != nil {
		t.Fatal(err)
	}
	lint := func(path string, src []byte) {
		out.Reset()
		errs, err := l.Lint(path, src, proj)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind)
		}
	}
	for _, path := range append(own, examples...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lint(path, src)
		if slices.Contains(examples, path) {
			local := bytes.ReplaceAll(src, []byte("uses: "+thisAction+"main"), []byte("uses: ./"))
			if bytes.Equal(local, src) {
				t.Errorf("%s does not use %smain", path, thisAction)
			}
			lint(path+" (with uses: ./)", local)
		}
	}
}

// TestWorkflowsShape checks, on actionlint's parse of each workflow, what
// lint rules do not: that each uses this repository's action (./ for the
// project's own, patchbot/patchbot@REF for the examples) and no action but
// it and GitHub's own; that no run: script has ${{ }} in it (inputs go
// through env:); that none is triggered by pull_request_target; and that
// the workflows that run a pull request's code have no permissions and no
// secrets.
func TestWorkflowsShape(t *testing.T) {
	own, examples := workflowFiles(t)
	runsPRCode := map[string]bool{"bench-pr.yml": true}
	for _, path := range append(own, examples...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w, errs := actionlint.Parse(src)
		if len(errs) > 0 {
			t.Errorf("%s: %v", path, errs[0])
			continue
		}
		isExample := slices.Contains(examples, path)
		usesThis := false
		for _, ev := range w.On {
			if ev.EventName() == "pull_request_target" {
				t.Errorf("%s: pull_request_target runs with the base repository's rights: use the two-workflow pattern", path)
			}
		}
		for id, job := range w.Jobs {
			setupGo := false
			for i, step := range job.Steps {
				where := path + ": job " + id + " step " + string(rune('1'+i))
				switch e := step.Exec.(type) {
				case *actionlint.ExecRun:
					if strings.Contains(e.Run.Value, "${{") {
						t.Errorf("%s: ${{ }} inside a run: script; pass it through env:", where)
					}
				case *actionlint.ExecAction:
					uses := e.Uses.Value
					switch {
					case uses == "./" && !isExample, isExample && strings.HasPrefix(uses, thisAction):
						usesThis = true
					case strings.HasPrefix(uses, thisAction) || uses == "./":
						t.Errorf("%s: uses %s: an example uses %s…, the project's own workflows ./", where, uses, thisAction)
					case !slices.Contains(actionsAllowed, strings.Split(uses, "@")[0]):
						t.Errorf("%s: uses %s, which is neither this repository's action nor one of %q", where, uses, actionsAllowed)
					}
					if strings.HasPrefix(uses, "actions/setup-go@") {
						setupGo = true
						if c := e.Inputs["cache"]; c == nil || c.Value == nil || c.Value.Value != "false" {
							t.Errorf("%s: setup-go without cache: false; no job may restore or save a cache (docs/action.md)", where)
						}
					}
					if uses == "./" || strings.HasPrefix(uses, thisAction) {
						if !setupGo {
							t.Errorf("%s: patchbot's step comes before actions/setup-go; the action builds with the job's Go", where)
						}
					}
				}
			}
		}
		if !usesThis && filepath.Base(path) != "ci.yml" {
			t.Errorf("%s does not use this repository's action", path)
		}
		if runsPRCode[filepath.Base(path)] {
			if w.Permissions == nil || w.Permissions.All != nil || len(w.Permissions.Scopes) != 0 {
				t.Errorf("%s runs a pull request's code: want permissions: {}", path)
			}
			for id, job := range w.Jobs {
				if job.Permissions != nil {
					t.Errorf("%s: job %s sets permissions; the workflow's {} must hold", path, id)
				}
			}
			if bytes.Contains(src, []byte("secrets.")) {
				t.Errorf("%s runs a pull request's code and names a secret", path)
			}
		}
	}
}

// TestWorkflowsPinned checks every uses: line of action.yml and the
// workflows: this repository's action (./, or patchbot/patchbot@REF in an
// example, which the user pins: docs/action.md), or an action pinned to a
// full commit with its version in a comment, one commit per action
// across the files, so that a user who pins patchbot pins all it runs.
func TestWorkflowsPinned(t *testing.T) {
	own, examples := workflowFiles(t)
	seen := map[string]string{} // action -> "SHA # version", first file
	for _, path := range append(append(own, examples...), "action.yml") {
		for i, line := range strings.Split(readFile(t, path), "\n") {
			trim := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
			if !strings.HasPrefix(trim, "uses:") {
				continue
			}
			where := fmt.Sprintf("%s:%d", path, i+1)
			uses := strings.TrimSpace(strings.TrimPrefix(trim, "uses:"))
			if uses == "./" || slices.Contains(examples, path) && uses == thisAction+"main" {
				continue
			}
			m := pinned.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: %q is not pinned: want OWNER/REPO@SHA # vX.Y.Z", where, uses)
				continue
			}
			pin := m[2] + " # " + m[3]
			if first, ok := seen[m[1]]; ok && !strings.HasPrefix(first, pin) {
				t.Errorf("%s: %s@%s, and %s elsewhere: pin one commit", where, m[1], pin, first)
			} else if !ok {
				seen[m[1]] = pin + " (" + where + ")"
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no pinned action found: the test reads nothing")
	}
}

// TestActionMetadata checks action.yml as actionlint reads it: a composite
// action whose inputs and outputs are the documented ones, that uses no
// other action (no setup-go: the job's Go builds patchbot; no cache), whose
// run: steps each name a shell and have no ${{ }} in their script, and
// whose scripts pass shellcheck when it is installed.
func TestActionMetadata(t *testing.T) {
	root, _ := os.Getwd()
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := actionlint.NewLocalActionsCache(proj, nil).FindMetadata("./")
	if err != nil || md == nil {
		t.Fatalf("action.yml: %v", err)
	}
	if md.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", md.Runs.Using)
	}
	var inputs, outputs []string
	for name := range md.Inputs {
		inputs = append(inputs, name)
	}
	for name := range md.Outputs {
		outputs = append(outputs, name)
	}
	slices.Sort(inputs)
	slices.Sort(outputs)
	if want := []string{"args", "command", "fail", "github-token", "result", "working-directory"}; !slices.Equal(inputs, want) {
		t.Errorf("inputs %q, want %q (docs/action.md lists them)", inputs, want)
	}
	if want := []string{"exit-status", "frozen", "regressions", "result"}; !slices.Equal(outputs, want) {
		t.Errorf("outputs %q, want %q (docs/action.md lists them)", outputs, want)
	}
	if !strings.Contains(readFile(t, "action.yml"), "    default: ${{ github.token }}\n") {
		t.Errorf("action.yml: github-token's default is not ${{ github.token }}")
	}
	var scripts []string
	for i, s := range md.Runs.Steps {
		step, _ := s.(map[string]any)
		if uses, _ := step["uses"].(string); uses != "" {
			t.Errorf("step %d uses %s: the action runs its own scripts only", i+1, uses)
			continue
		}
		run, _ := step["run"].(string)
		scripts = append(scripts, run)
		if shell, _ := step["shell"].(string); shell != "bash" {
			t.Errorf("step %d (run: %q) has shell %q, want bash", i+1, run, shell)
		}
		if strings.Contains(run, "${{") {
			t.Errorf("step %d: ${{ }} in the script %q", i+1, run)
		}
	}
	if want := []string{`"$GITHUB_ACTION_PATH/scripts/action-build"`, `"$GITHUB_ACTION_PATH/scripts/action-run"`}; !slices.Equal(scripts, want) {
		t.Errorf("the steps run %q, want %q", scripts, want)
	}
	if sc := shellcheck(t); sc != "" {
		out, err := exec.Command(sc, "scripts/action-run", "scripts/action-build").CombinedOutput()
		if err != nil {
			t.Errorf("shellcheck scripts/action-run scripts/action-build: %v\n%s", err, out)
		}
	}
}

// TestZizmor audits action.yml, the project's workflows and every example
// (zizmor scans only .github/workflows in a directory, so the examples are
// named one by one) with zizmor, offline, with zizmor.yml, where each
// finding kept is ignored with its reason: nothing at medium severity or
// above may be left.
func TestZizmor(t *testing.T) {
	path := os.Getenv("PATCHBOT_ZIZMOR")
	var err error
	if path == "" {
		path, err = exec.LookPath("zizmor")
	}
	testenv.Need(t, testenv.Zizmor, err)
	_, examples := workflowFiles(t)
	args := append([]string{"--offline", "--no-progress", "--config", "zizmor.yml", "--min-severity", "medium", "--format", "plain",
		"action.yml", ".github/workflows"}, examples...)
	cmd := exec.Command(path, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("zizmor %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, f := range append([]string{"action.yml"}, examples...) {
		if !bytes.Contains(out, []byte("completed "+f)) {
			t.Errorf("zizmor did not audit %s:\n%s", f, out)
		}
	}
}
