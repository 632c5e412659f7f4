package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/patchbot/patchbot/bot/sweep"
	"github.com/patchbot/patchbot/internal/actions"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
)

// inActions are the commands that, in a GitHub Actions step, fold their log
// in a group, frame what they print in a stop-commands block, write the
// step summary and set the step's outputs (docs/action.md).
var inActions = map[string]bool{"bench": true, "run": true, "post": true, "sweep": true}

// runInActions runs the command c, whose flags fs has parsed, as run does,
// in the GitHub Actions step gha: between ::group:: and ::endgroup:: on
// stderr, and with everything it prints on stderr, and on stdout unless
// that is JSON (a result, for a file), in a stop-commands block, since much
// of it comes from the patch or the benchmarks (names, output, compiler
// errors) and must not be read as workflow commands. Only patchbot's own
// lines, outside the block, are: the group, and an ::error:: annotation of
// fixed words when the command fails.
func runInActions(e *env, gha *actions.Runner, c *subcommand, fs *flag.FlagSet, args []string, runFn func(*env, []string) error) int {
	actions.StartGroup(e.stderr, "patchbot "+c.name)
	inner := *e
	inner.gha = gha
	errFrame := gha.Frame(e.stderr)
	inner.stderr = errFrame
	var outFrame *actions.Frame
	if !jsonOutput(fs) {
		outFrame = gha.Frame(e.stdout)
		inner.stdout = outFrame
	}
	code := report(&inner, c, runFn(&inner, args))
	if outFrame != nil {
		outFrame.Close()
	}
	errFrame.Close()
	actions.EndGroup(e.stderr)
	if code != exitOK {
		actions.Error(e.stderr, fmt.Sprintf("patchbot %s failed (exit status %d): see the group above", c.name, code))
	}
	return code
}

// jsonOutput reports whether the command's stdout is JSON: -json, or
// -format json.
func jsonOutput(fs *flag.FlagSet) bool {
	if f := fs.Lookup("json"); f != nil && f.Value.String() == "true" {
		return true
	}
	f := fs.Lookup("format")
	return f != nil && f.Value.String() == string(benchrun.JSON)
}

// actionsBench does what bench does in GitHub Actions once it has a
// result: the table in the step summary, and in the log when stdout is the
// JSON result; the regressions over the threshold as the output
// regressions.
func (e *env) actionsBench(res *benchrun.Result, threshold float64, jsonOut bool) error {
	if e.gha == nil {
		return nil
	}
	if jsonOut {
		if err := res.Write(e.stderr, benchrun.Benchcmp); err != nil {
			return err
		}
	}
	if err := e.gha.WriteSummary("## patchbot bench\n\n" + res.String(benchrun.Markdown)); err != nil {
		return fmt.Errorf("step summary: %v", err)
	}
	return e.setOutputs("regressions", strconv.Itoa(len(res.Regressions(threshold))))
}

// setOutputs sets step outputs, name then value.
func (e *env) setOutputs(kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := e.gha.SetOutput(kv[i], kv[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// actionsRun does what run does in GitHub Actions once the job ended: the
// review message in the step summary, and the outputs frozen and
// regressions, when the freeze and bench steps ran.
func (e *env) actionsRun(res *job.Result, threshold float64) error {
	if e.gha == nil || res == nil {
		return nil
	}
	if res.Post != nil && res.Post.MarkdownMessage != "" {
		if err := e.gha.WriteSummary("## patchbot run\n\n" + res.Post.MarkdownMessage); err != nil {
			return fmt.Errorf("step summary: %v", err)
		}
	}
	if res.Freeze != nil {
		if err := e.setOutputs("frozen", strconv.FormatBool(res.Freeze.Frozen)); err != nil {
			return err
		}
	}
	if res.Bench != nil {
		return e.setOutputs("regressions", strconv.Itoa(len(res.Bench.Regressions(threshold))))
	}
	return nil
}

// actionsSweep does what sweep does in GitHub Actions once the tasks ran:
// what they did and the report as the step summary (in a code block: the
// changes' subjects are anyone's text), and the output frozen.
func (e *env) actionsSweep(res *sweep.Result) error {
	if e.gha == nil || res == nil {
		return nil
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		return err
	}
	if err := e.gha.WriteSummary("## patchbot sweep\n\n" + actions.CodeBlock(b.String())); err != nil {
		return fmt.Errorf("step summary: %v", err)
	}
	if res.Freeze != nil {
		return e.setOutputs("frozen", strconv.FormatBool(res.Freeze.Frozen))
	}
	return nil
}
