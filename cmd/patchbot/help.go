package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

var cmdHelp = &subcommand{
	name:  "help",
	args:  "[command]",
	short: "show help for patchbot or one of its commands",
	long: `Help with no argument lists the commands. With a command's name, it prints
that command's usage, what it does and its flags.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		return func(e *env, args []string) error {
			switch len(args) {
			case 0:
				fmt.Fprint(e.stdout, mainUsage())
				return nil
			case 1:
				c := lookup(args[0])
				if c == nil {
					return usagef("unknown command %q; 'patchbot help' lists them", args[0])
				}
				fmt.Fprint(e.stdout, commandHelp(c))
				return nil
			}
			return usagef("too many arguments")
		}
	},
}

// commandHelp returns c's usage line, description and flags.
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
	return b.String()
}
