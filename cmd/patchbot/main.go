// Command patchbot takes a Go contributor's patch from "I have a patch" to
// "my change is reviewed". See 'patchbot help' and docs/ for the commands.
//
// This file holds the command table, flag parsing and exit codes; the work of
// each command is done by the packages under bot/, job/ and step/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/actions"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
)

// Exit codes, as DESIGN.md fixes them for scripts.
const (
	exitOK     = 0
	exitFailed = 1 // the job failed: a patch does not apply, a post was refused
	exitUsage  = 2 // bad flags, arguments or configuration
)

// A subcommand is one of patchbot's commands.
type subcommand struct {
	name  string // as typed: "bench"
	args  string // what follows the name in the usage line: "[flags] [BASE [HEAD]]"
	short string // one line for 'patchbot help'
	long  string // the rest of 'patchbot help NAME': what it does, in full

	// setup defines the command's flags on fs and returns the function that
	// runs the command once they are parsed. Keeping the flag values in the
	// closure, rather than in package variables, lets help list the flags
	// without running anything.
	setup func(fs *flag.FlagSet) func(e *env, args []string) error
}

// commands is the table of subcommands, in the order help lists them: the
// steps of the job in their order, then the tool's own. Only commands that
// work are here.
var commands []*subcommand

func init() {
	commands = []*subcommand{
		cmdRun,
		cmdPort,
		cmdFreeze,
		cmdBench,
		cmdBisect,
		cmdTrack,
		cmdPost,
		cmdServe,
		cmdSweep,
		cmdConfig,
		cmdVersion,
		cmdDoc,
		cmdCompletion,
		cmdHelp,
	}
}

func lookup(name string) *subcommand {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// An env is what a command may touch of the outside world. Commands write
// through it, never to os.Stdout directly, so tests can run them in-process.
type env struct {
	ctx    context.Context // cancelled on interrupt
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	// words words the libraries' remedies as the running command's flags
	// (flagWords); set by run once the command is known.
	words func(field string) string

	// getenv reads the environment, for what patchbot learns of the
	// runner it is in (GITHUB_ACTIONS); nil reads nothing, as in tests
	// that run commands in-process.
	getenv func(string) string

	// gha is the GitHub Actions step the command runs in, or nil; set
	// by run for the commands of inActions.
	gha *actions.Runner
}

// log returns the writer of the libraries' log lines for the command
// name: each line on stderr, prefixed, its remedies worded as flags.
func (e *env) log(name string) io.Writer {
	return &linePrefixer{w: e.stderr, prefix: "patchbot " + name + ": ", words: e.words}
}

// tell returns a job.Env's Tell for the running command: each line on
// stdout, its remedies worded as the command's flags.
func (e *env) tell() func(string) {
	return func(line string) { fmt.Fprintln(e.stdout, remedy.Word(line, e.words)) }
}

// A usageError is an error in how patchbot was called: exit status 2, with
// the command's usage line printed after the message.
type usageError struct {
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// An exitCoder is an error that asks for a particular exit status, such as
// a frozen tree (3).
type exitCoder interface {
	error
	ExitCode() int
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run runs the patchbot command line args and returns the exit status.
func run(e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, mainUsage())
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		return unknownCommand(e, name)
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runFn := c.setup(fs)
	e.words = flagWords(fs)
	rest, err := parseFlags(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, commandHelp(c))
			return exitOK
		}
		return report(e, c, usagef("%v%s", err, flagSuggestion(fs, err)))
	}
	if gha := actions.FromEnv(e.getenv); gha != nil && inActions[c.name] {
		return runInActions(e, gha, c, fs, rest, runFn)
	}
	return report(e, c, runFn(e, rest))
}

// parseFlags parses args with fs, flags and arguments in any order, as go
// test takes them ('patchbot bench HEAD~2 -count 5' is 'patchbot bench
// -count 5 HEAD~2'), and returns the arguments. "--" ends the flags: what
// follows it is arguments, even when it starts with "-".
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, nil
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// unknownCommand says that name is not a command, with the nearest
// command when one is close (a typo), in two lines rather than the whole
// usage.
func unknownCommand(e *env, name string) int {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(e.stderr, "patchbot: unknown command %q", name)
	if near := nearest(name, names); near != "" {
		fmt.Fprintf(e.stderr, "; did you mean %q?", near)
	}
	fmt.Fprint(e.stderr, "\nRun 'patchbot help' for the commands.\n")
	return exitUsage
}

// flagSuggestion returns "; did you mean -NAME?" for the flag package's
// error about an undefined flag, when a flag of fs is near it.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := nearest(name, names); near != "" {
		return fmt.Sprintf("; did you mean -%s?", near)
	}
	return ""
}

// nearest returns the one name in names within a typo of word (an edit
// distance of at most 2, and less than half word's length), or "".
func nearest(word string, names []string) string {
	best, bestD, ties := "", 3, 0
	for _, n := range names {
		d := editDistance(word, n)
		switch {
		case d < bestD:
			best, bestD, ties = n, d, 0
		case d == bestD:
			ties++
		}
	}
	if best == "" || ties > 0 || 2*bestD >= len(word) {
		return ""
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment) between a and b: insertions, deletions, substitutions and
// transpositions of adjacent bytes each count one.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// report prints err, if any, on stderr after the command's name (and the
// usage, for usage errors) and returns the exit status it calls for.
func report(e *env, c *subcommand, err error) int {
	if err == nil {
		return exitOK
	}
	if ue, ok := errors.AsType[*usageError](err); ok {
		msg := remedy.Word(ue.msg, e.words)
		if c == nil {
			fmt.Fprintf(e.stderr, "patchbot: %s\n\n%s", msg, mainUsage())
		} else {
			fmt.Fprintf(e.stderr, "patchbot %s: %s\nusage: patchbot %s %s\nRun 'patchbot help %s' for details.\n",
				c.name, msg, c.name, c.args, c.name)
		}
		return exitUsage
	}
	// The libraries name options as fields of a job request, in braces
	// (internal/remedy): here they are the command's flags.
	fmt.Fprintf(e.stderr, "patchbot %s: %s\n", c.name, remedy.Word(strings.TrimRight(err.Error(), "\n"), e.words))
	if _, ok := errors.AsType[*config.Error](err); ok {
		return exitUsage
	}
	// A package pattern that names no package is an input that is not
	// there, as a missing file is.
	if _, ok := errors.AsType[*benchrun.PackageError](err); ok {
		return exitUsage
	}
	if ec, ok := errors.AsType[exitCoder](err); ok {
		return ec.ExitCode()
	}
	return exitFailed
}

func mainUsage() string {
	var b strings.Builder
	b.WriteString("patchbot takes a patch from \"I have a patch\" to \"my change is reviewed\".\n\n")
	b.WriteString("Usage:\n\n\tpatchbot <command> [flags] [arguments]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.short)
	}
	b.WriteString("\nRun 'patchbot help <command>' for more about a command.\n\nAdditional help topics:\n\n")
	for _, p := range topics() {
		fmt.Fprintf(&b, "\t%-10s %s\n", p.name, p.title)
	}
	b.WriteString("\nRun 'patchbot help <topic>' for more about that topic.\n")
	return b.String()
}
