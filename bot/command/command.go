// Package command reads the commands reviewers write to patchbot in review
// messages (Gerrit) and pull-request comments (GitHub), such as
//
//	/patchbot bench -count 10 ./codec
//
// and decides who may ask (trust.go). It is pure: text and facts in, a
// value out; it talks to no server and runs nothing.
//
// A command is a line of its own that starts with "/patchbot" (after at
// most three spaces, and any zero-width spaces or byte order marks, which
// show as nothing). Parse reads at most the first MaxMessage bytes of a
// message and returns its one command, if any; a message with two command
// lines is an error, not two jobs, and so is a command line that the limit
// cuts. A command line is a line GitHub shows as text of its own
// (markdown.go reads the message as CommonMark and GitHub Flavored
// Markdown do): lines that quote ("> /patchbot bench", and the lines that
// lazily continue a quote), lines in code (indented four spaces, inside a
// ``` or ~~~ fence or a code span) and lines in raw HTML (a comment, a
// <pre> or <code> element, an HTML block) are not commands: they are
// someone's words shown, not asked, or not shown at all.
//
// Each command is a Rule in one table: its name, its synopsis, what it
// does, and a parse func that reads its arguments strictly, within limits
// (Rules; Help is generated from the table). Arguments are split at
// spaces, without quotes, escapes or any other shell meaning. A command
// that is not understood is an *Error that says, in words for a reviewer,
// what is wrong; HelpReply is the one reply to it.
//
// A Command turns into the fields of a job.Request it sets (Apply): the
// steps and the bench settings. What the job is bound to (the repository,
// the revisions, the change or pull request and its commit) is the
// caller's, from the event the command came in: nothing in a comment can
// set it.
package command

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/job"
)

// Bounds of what Parse reads: a message comes from anyone who can comment.
const (
	// MaxMessage is how much of a message Parse reads: GitHub's limit
	// on a comment (65,536 characters) in bytes. A command further down
	// is not seen.
	MaxMessage = 64 << 10
	// MaxLine is the longest command line, in bytes: room for every
	// option and MaxPackages patterns of MaxPattern bytes.
	MaxLine = 4096
	// MaxArgs is the most arguments a command line may have, before
	// any rule looks at them.
	MaxArgs = 32
	// MaxError bounds the text of an *Error, in bytes.
	MaxError = 300
)

// Prefix starts every command line.
const Prefix = "/patchbot"

// A Command is one command of a review message.
type Command struct {
	Name string   // the rule's name: "bench"
	Args []string // the arguments, normalised: what String writes after the name
	Line int      // the 1-based line of the message it was on

	// The settings the rule read from the arguments.
	Count    int      // bench -count N; 0: Auto, or else the configuration's
	Auto     bool     // bench -count auto
	AA       bool     // bench -aa: the revision against itself
	Bench    string   // bench -bench; "": every benchmark
	Packages []string // bench's packages, as ./path patterns; none: those the change affects
}

// String returns the command as a line that Parse reads back as the same
// command.
func (c *Command) String() string {
	return strings.Join(append([]string{Prefix, c.Name}, c.Args...), " ")
}

// Job reports whether the command is a job to queue. Help is not: its
// answer is HelpReply's text, written at once.
func (c *Command) Job() bool {
	r := ruleNamed(c.Name)
	return r != nil && r.apply != nil
}

// Apply sets the fields of req that the command decides: Steps, and for
// bench the Bench settings it was given. It sets nothing that binds the
// job to a revision or a review (Repo, Base, Head, Gerrit, GitHub): the
// caller fills those from the event the command came in.
func (c *Command) Apply(req *job.Request) {
	if r := ruleNamed(c.Name); r != nil && r.apply != nil {
		r.apply(c, req)
	}
}

// An Error is a command line that patchbot did not understand: the line,
// the command (if its name was known) and what is wrong, in words for the
// reviewer who wrote it. Its text is one line of at most MaxError bytes.
type Error struct {
	Line    int    // 1-based line of the message
	Command string // the rule's name; "" when the name was not known
	Msg     string // what is wrong and what to write instead
}

func (e *Error) Error() string {
	s := fmt.Sprintf("line %d: ", e.Line)
	if e.Command != "" {
		s += Prefix + " " + e.Command + ": "
	}
	return abbrev.Clip(s+e.Msg, MaxError)
}

// quote shows a value a reviewer wrote in an error: quoted, on one line,
// and short.
func quote(s string) string {
	return fmt.Sprintf("%q", abbrev.Clip(s, 40))
}

// Parse returns the command in the text of one review message or comment:
// nil and no error when there is none, an *Error when the command line is
// not understood, when there are two of them, or when MaxMessage cuts the
// command line.
func Parse(text string) (*Command, error) {
	cut := len(text) >= MaxMessage && !lineEndAt(text, MaxMessage)
	if len(text) > MaxMessage {
		text = text[:MaxMessage]
	}
	lastLine := strings.Count(text, "\n") + 1
	var found *Command
	var foundErr error
	for _, l := range commandLines(text) {
		if found != nil || foundErr != nil {
			return nil, &Error{Line: l.n, Msg: "one command per message, please: write this one in a message of its own"}
		}
		if cut && l.n == lastLine {
			foundErr = &Error{Line: l.n, Msg: fmt.Sprintf("the line is cut at the message limit (%d bytes) and may have said more: write the command in a shorter message", MaxMessage)}
			continue
		}
		found, foundErr = parseLine(l.n, l.rest)
	}
	if foundErr != nil {
		return nil, foundErr
	}
	return found, nil
}

// lineEndAt reports whether text has a line end at byte i: a message of
// MaxMessage bytes or more whose last line read has none may have been
// cut there, by Parse or before it.
func lineEndAt(text string, i int) bool {
	return i < len(text) && (text[i] == '\n' || text[i] == '\r')
}

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// parseLine parses the rest of a command line after the prefix.
func parseLine(n int, rest string) (*Command, error) {
	switch {
	case len(rest)+len(Prefix) > MaxLine:
		return nil, &Error{Line: n, Msg: fmt.Sprintf("the line is longer than %d bytes", MaxLine)}
	case !utf8.ValidString(rest):
		return nil, &Error{Line: n, Msg: "the line is not valid UTF-8"}
	case strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }):
		return nil, &Error{Line: n, Msg: "the line has control characters in it"}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return nil, &Error{Line: n, Msg: "no command given: write " + Prefix + " and a command, such as " + Prefix + " help"}
	}
	name, args := fields[0], fields[1:]
	r := ruleNamed(name)
	if r == nil {
		return nil, &Error{Line: n, Msg: fmt.Sprintf("unknown command %s: the commands are %s", quote(name), strings.Join(names(), ", "))}
	}
	if len(args) > MaxArgs {
		return nil, &Error{Line: n, Command: name, Msg: fmt.Sprintf("%d arguments: at most %d", len(args), MaxArgs)}
	}
	c := &Command{Name: name, Line: n}
	if msg := r.parse(c, args); msg != "" {
		return nil, &Error{Line: n, Command: name, Msg: msg}
	}
	if c.Args == nil {
		c.Args = []string{}
	}
	return c, nil
}

// names returns the rules' names, in the table's order.
func names() []string {
	var ns []string
	for _, r := range rules {
		ns = append(ns, r.Name)
	}
	return ns
}

func ruleNamed(name string) *Rule {
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.Name == name })
	if i < 0 {
		return nil
	}
	return &rules[i]
}
