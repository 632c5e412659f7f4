package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

var cmdCompletion = &subcommand{
	name:  "completion",
	args:  "bash|zsh",
	short: "print a shell completion script for bash or zsh",
	long: `Completion prints a script that completes patchbot's commands and each
command's flags in bash or zsh, made from the command table of this binary
(so it is as current as the binary). Load it from the shell's startup file:

	bash (~/.bashrc):  source <(patchbot completion bash)
	zsh (~/.zshrc):    source <(patchbot completion zsh)

help's and doc's arguments complete as commands, topics and pages; other
arguments that are not flags complete as file names.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		return func(e *env, args []string) error {
			if len(args) != 1 {
				return usagef("name the shell: bash or zsh")
			}
			switch args[0] {
			case "bash":
				return writeCompletion(e.stdout, "bash")
			case "zsh":
				return writeCompletion(e.stdout, "zsh")
			}
			return usagef("no completion for %q: bash or zsh", args[0])
		}
	},
}

// writeCompletion writes the completion script for shell. zsh runs the
// bash one through its bashcompinit, which zsh ships for that.
func writeCompletion(w io.Writer, shell string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s completion for patchbot: 'patchbot completion %s' prints it.\n", shell, shell)
	if shell == "zsh" {
		// compinit first (the .zshrc of most zsh users has run it).
		b.WriteString("(( $+functions[compdef] )) || { autoload -U +X compinit && compinit; }\n")
		b.WriteString("autoload -U +X bashcompinit && bashcompinit\n")
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	b.WriteString("# shellcheck disable=SC2207 # no name or flag has a space; file names split on newlines only\n")
	b.WriteString("_patchbot() {\n")
	b.WriteString("\tlocal cur=${COMP_WORDS[COMP_CWORD]} words\n")
	b.WriteString("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(&b, "\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n", strings.Join(names, " "))
	b.WriteString("\t\treturn\n\tfi\n")
	b.WriteString("\tcase ${COMP_WORDS[1]} in\n")
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.setup(fs)
		var flags []string
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.HasPrefix(f.Usage, "deprecated") {
				flags = append(flags, "-"+f.Name)
			}
		})
		sort.Strings(flags)
		words := flags
		switch c.name {
		case "help":
			words = helpNames()
		case "doc":
			words = nil
			pages, _ := docPages()
			for _, p := range pages {
				words = append(words, p.name)
			}
		case "completion":
			words = []string{"bash", "zsh"}
		}
		fmt.Fprintf(&b, "\t%s) words=\"%s\" ;;\n", c.name, strings.Join(words, " "))
	}
	b.WriteString("\t*) words= ;;\n\tesac\n")
	b.WriteString("\tif [[ $cur == -* || ${COMP_WORDS[1]} == help || ${COMP_WORDS[1]} == doc || ${COMP_WORDS[1]} == completion ]]; then\n")
	b.WriteString("\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	b.WriteString("\telse\n\t\tlocal IFS=$'\\n'\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n")
	b.WriteString("complete -o filenames -F _patchbot patchbot\n")
	_, err := io.WriteString(w, b.String())
	return err
}
