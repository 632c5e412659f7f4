package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/bot/sweep"
	"github.com/patchbot/patchbot/internal/actions"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/freeze"
)

// testRunner returns the GitHub Actions runner of a step whose files are in a
// temporary directory.
func testRunner(t *testing.T) *actions.Runner {
	dir := t.TempDir()
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_ENV": filepath.Join(dir, "env")}
	return actions.FromEnv(func(k string) string { return vars[k] })
}

func readOutputs(t *testing.T, gha *actions.Runner) map[string]string {
	t.Helper()
	data, _ := os.ReadFile(gha.Output)
	m, err := actions.ParseKeyValues(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestActionsRun checks what run leaves in a GitHub Actions step: its
// review message as the summary, and the outputs frozen and regressions.
func TestActionsRun(t *testing.T) {
	bench, err := benchrun.CompareFiles("../../step/benchrun/testdata/codec-old.txt", "../../step/benchrun/testdata/codec-new.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		res  *job.Result
		want map[string]string
	}{
		{"frozen", &job.Result{Freeze: &freeze.Status{Frozen: true}, Bench: bench, Post: &job.PostRecord{MarkdownMessage: "**frozen** message"}},
			map[string]string{"frozen": "true", "regressions": "0"}},
		{"open, no bench", &job.Result{Freeze: &freeze.Status{Frozen: false}}, map[string]string{"frozen": "false"}},
		{"failed at port", &job.Result{}, map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gha := testRunner(t)
			e := &env{gha: gha}
			if err := e.actionsRun(tt.res, 0.05); err != nil {
				t.Fatal(err)
			}
			if got := readOutputs(t, gha); len(got) != len(tt.want) || got["frozen"] != tt.want["frozen"] || got["regressions"] != tt.want["regressions"] {
				t.Errorf("outputs %q, want %q", got, tt.want)
			}
			summary, _ := os.ReadFile(gha.Summary)
			if want := tt.res.Post != nil; want != strings.Contains(string(summary), "## patchbot run\n\n**frozen** message") {
				t.Errorf("summary %q", summary)
			}
		})
	}
	// Regressions over the threshold only: WriteInts got better, so a
	// result with the sides swapped has regressions.
	swapped, _ := benchrun.CompareFiles("../../step/benchrun/testdata/codec-new.txt", "../../step/benchrun/testdata/codec-old.txt", nil)
	gha := testRunner(t)
	(&env{gha: gha}).actionsRun(&job.Result{Bench: swapped}, 0.05)
	if got := readOutputs(t, gha)["regressions"]; got == "0" || got == "" {
		t.Errorf("regressions of the swapped result = %q, want some", got)
	}
}

// TestRunInActions checks the frame around a command: the group on
// stderr, the command's stdout and stderr inside stop-commands blocks, the
// error reported inside, and an annotation of fixed words outside.
func TestRunInActions(t *testing.T) {
	c := &subcommand{name: "bench", args: "", setup: nil}
	for _, jsonOut := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		e := &env{ctx: context.Background(), stdout: &stdout, stderr: &stderr, words: func(s string) string { return s }}
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		fs.Bool("json", jsonOut, "")
		gha := testRunner(t)
		code := runInActions(e, gha, c, fs, nil, func(e *env, args []string) error {
			e.stdout.Write([]byte("::set-output name=x::1\n"))
			e.stderr.Write([]byte("::add-mask::hunter2"))
			return errors.New("::error::from the patch")
		})
		if code != exitFailed {
			t.Errorf("exit status %d, want %d", code, exitFailed)
		}
		errCmds := actions.Commands(stderr.Bytes())
		if len(errCmds) != 4 || errCmds[0] != "::group::patchbot bench" || errCmds[1] != "::stop-commands::"+gha.Token() ||
			errCmds[2] != "::endgroup::" || errCmds[3] != "::error::patchbot bench failed (exit status 1): see the group above" {
			t.Errorf("json=%v: stderr's commands %q:\n%s", jsonOut, errCmds, stderr.String())
		}
		if !strings.Contains(stderr.String(), "patchbot bench: ::error::from the patch\n") {
			t.Errorf("the error is not in stderr's block:\n%s", stderr.String())
		}
		outCmds := actions.Commands(stdout.Bytes())
		if jsonOut {
			// JSON is data for a file: no frame, as it was written.
			if stdout.String() != "::set-output name=x::1\n" {
				t.Errorf("json: stdout %q", stdout.String())
			}
		} else if len(outCmds) != 1 || outCmds[0] != "::stop-commands::"+gha.Token() {
			t.Errorf("stdout's commands %q:\n%s", outCmds, stdout.String())
		}
	}
}

// TestActionsSweep checks what sweep leaves in a GitHub Actions step: what
// it did and its report, in a code block, as the summary; the output
// frozen.
func TestActionsSweep(t *testing.T) {
	gha := testRunner(t)
	res := &sweep.Result{Freeze: &freeze.Status{Frozen: true}, Tasks: []*sweep.TaskResult{
		{Task: "freeze", Actions: []sweep.Action{{Change: "12", What: "wait-release added <b>```"}}},
		{Task: "report", Report: "master: frozen on 2026-12-01\n"},
	}}
	if err := (&env{gha: gha}).actionsSweep(res); err != nil {
		t.Fatal(err)
	}
	if got := readOutputs(t, gha); got["frozen"] != "true" || len(got) != 1 {
		t.Errorf("outputs %q, want frozen true", got)
	}
	summary, _ := os.ReadFile(gha.Summary)
	want := "## patchbot sweep\n\n````\nfreeze: change 12: wait-release added <b>```\nmaster: frozen on 2026-12-01\n````\n\n"
	if string(summary) != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
}
