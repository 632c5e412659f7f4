package patchbot_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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
// GitHub's own.
var actionsAllowed = []string{"actions/checkout@v4", "actions/setup-go@v5", "actions/cache@v4", "actions/upload-artifact@v4", "actions/download-artifact@v4"}

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
	runsPRCode := map[string]bool{"bench-pr.yml": true, "bench.yml": true}
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
					case !slices.Contains(actionsAllowed, uses):
						t.Errorf("%s: uses %s, which is neither this repository's action nor one of %q", where, uses, actionsAllowed)
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

// TestActionMetadata checks action.yml as actionlint reads it: a composite
// action whose inputs and outputs are the documented ones, whose run:
// steps each name a shell and have no ${{ }} in their script, and whose
// scripts pass shellcheck when it is installed.
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
	if want := []string{"args", "cache", "command", "fail", "result", "working-directory"}; !slices.Equal(inputs, want) {
		t.Errorf("inputs %q, want %q (docs/action.md lists them)", inputs, want)
	}
	if want := []string{"exit-status", "frozen", "regressions", "result"}; !slices.Equal(outputs, want) {
		t.Errorf("outputs %q, want %q (docs/action.md lists them)", outputs, want)
	}
	setupGo := false
	for i, s := range md.Runs.Steps {
		step, _ := s.(map[string]any)
		if uses, _ := step["uses"].(string); uses != "" {
			if !slices.Contains(actionsAllowed, uses) {
				t.Errorf("step %d uses %s", i+1, uses)
			}
			if strings.HasPrefix(uses, "actions/setup-go@") {
				with, _ := step["with"].(map[string]any)
				setupGo = with["go-version-file"] == "${{ github.action_path }}/go.mod"
			}
			continue
		}
		run, _ := step["run"].(string)
		if shell, _ := step["shell"].(string); shell != "bash" {
			t.Errorf("step %d (run: %q) has shell %q, want bash", i+1, run, shell)
		}
		if strings.Contains(run, "${{") {
			t.Errorf("step %d: ${{ }} in the script %q", i+1, run)
		}
	}
	if !setupGo {
		t.Errorf("no actions/setup-go step with go-version-file: ${{ github.action_path }}/go.mod")
	}
	if sc := shellcheck(t); sc != "" {
		out, err := exec.Command(sc, "scripts/action-run", "scripts/action-build").CombinedOutput()
		if err != nil {
			t.Errorf("shellcheck scripts/action-run scripts/action-build: %v\n%s", err, out)
		}
	}
}
