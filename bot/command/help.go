package command

import (
	"strings"
)

// Help returns the help text: every rule's synopsis and what it does, from
// the table. The synopses are indented four spaces, as code, so that the
// help text, quoted or not, holds no command line Parse would read.
func Help() string {
	var b strings.Builder
	b.WriteString("patchbot answers these commands, each on a line of its own in a review\nmessage or comment, one command per message:\n")
	for _, r := range rules {
		b.WriteString("\n    " + r.Synopsis + "\n")
		for _, line := range wrap(r.Doc, 72) {
			b.WriteString("        " + line + "\n")
		}
	}
	b.WriteString("\nQuoted lines (> ...), code and HTML comments are not read as commands.\n")
	return b.String()
}

// HelpReply returns the one reply to a command that was not understood:
// what is wrong, then the help text. What is wrong quotes the reviewer's
// words ("unknown command \"@octocat\""), so it passes through esc, the
// escaper of the reply's medium (escape.Markdown for GitHub, escape.Gerrit
// for Gerrit): the reply must not mention, link or render what they wrote.
func HelpReply(err error, esc func(string) string) string {
	return "patchbot did not run that: " + esc(err.Error()) + "\n\n" + Help()
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
