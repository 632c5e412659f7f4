package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/patchbot/patchbot"
)

var cmdHelp = &subcommand{
	name:  "help",
	args:  "[command | topic]",
	short: "show help for patchbot, one of its commands, or a topic",
	long: `Help with no argument lists the commands and the help topics. With a
command's name, it prints that command's usage, what it does and its flags.
With a topic's name (sandbox, action, review, ...), it prints the topic's
page of the documentation, as 'patchbot doc TOPIC' does.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		return func(e *env, args []string) error {
			switch len(args) {
			case 0:
				fmt.Fprint(e.stdout, mainUsage())
				return nil
			case 1:
				if c := lookup(args[0]); c != nil {
					fmt.Fprint(e.stdout, commandHelp(c))
					return nil
				}
				if data, ok := topic(args[0]); ok {
					_, err := e.stdout.Write(data)
					return err
				}
				msg := fmt.Sprintf("unknown command or topic %q", args[0])
				if near := nearest(args[0], helpNames()); near != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", near)
				}
				return usagef("%s; 'patchbot help' lists them", msg)
			}
			return usagef("too many arguments")
		}
	},
}

// commandPages names the page of docs/ of each command whose page is not
// named after it; the others' is NAME.md.
var commandPages = map[string]string{
	"post":       "review",
	"version":    "version",
	"help":       "version",
	"doc":        "version",
	"completion": "version",
}

// commandPage returns the name of c's page of docs/, or "" if it has none.
func commandPage(c *subcommand) string {
	name := c.name
	if p, ok := commandPages[name]; ok {
		name = p
	}
	if _, err := patchbot.Docs.ReadFile("docs/" + name + ".md"); err != nil {
		return ""
	}
	return name
}

// topic returns the page of the help topic name: a page of docs/ whose
// name is not a command's, as 'go help gopath' is a topic and not a
// command. Any such page will do ("help review" prints post's page); the
// list of topics names only the pages that are no command's.
func topic(name string) ([]byte, bool) {
	if lookup(name) != nil || strings.ContainsAny(name, "/.") {
		return nil, false
	}
	data, err := patchbot.Docs.ReadFile("docs/" + name + ".md")
	return data, err == nil
}

// topics lists the help topics: the pages of docs/ that are no
// command's.
func topics() []docPage {
	pages, _ := docPages()
	own := map[string]bool{}
	for _, c := range commands {
		own[commandPage(c)] = true
	}
	var list []docPage
	for _, p := range pages {
		if !own[p.name] {
			list = append(list, p)
		}
	}
	return list
}

// helpNames lists what 'patchbot help' takes: commands and pages.
func helpNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	pages, _ := docPages()
	for _, p := range pages {
		if lookup(p.name) == nil {
			names = append(names, p.name)
		}
	}
	return names
}

// commandHelp returns c's usage line, description and flags, and names
// the command's page of the documentation when it has one.
func commandHelp(c *subcommand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: patchbot %s %s\n\n%s\n", c.name, c.args, strings.TrimSpace(c.long))
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.setup(fs)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	if page := commandPage(c); page != "" {
		fmt.Fprintf(&b, "\nThe whole page, with examples: 'patchbot doc %s'.\n", page)
	}
	return b.String()
}
