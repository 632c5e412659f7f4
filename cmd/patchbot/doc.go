package main

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/patchbot/patchbot"
)

var cmdDoc = &subcommand{
	name:  "doc",
	args:  "[PAGE]",
	short: "print a page of patchbot's documentation",
	long: `Doc prints a page of patchbot's documentation, the docs/ directory of its
repository, which the binary carries: where a message says "see 'patchbot
doc sandbox'", that is the page. With no argument it lists the pages.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		return func(e *env, args []string) error {
			switch len(args) {
			case 0:
				pages, err := docPages()
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, "The pages ('patchbot doc PAGE' prints one):")
				fmt.Fprintln(e.stdout)
				for _, p := range pages {
					fmt.Fprintf(e.stdout, "\t%-16s %s\n", p.name, p.title)
				}
				return nil
			case 1:
				name := strings.TrimSuffix(strings.TrimPrefix(args[0], "docs/"), ".md")
				data, err := patchbot.Docs.ReadFile("docs/" + name + ".md")
				if err != nil || strings.Contains(name, "/") {
					pages, _ := docPages()
					var names []string
					for _, p := range pages {
						names = append(names, p.name)
					}
					msg := fmt.Sprintf("no page %q", args[0])
					if near := nearest(name, names); near != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", near)
					}
					return usagef("%s; 'patchbot doc' lists them", msg)
				}
				_, err = e.stdout.Write(data)
				return err
			}
			return usagef("too many arguments")
		}
	},
}

// A docPage is a page of docs/: its name for 'patchbot doc' and its title,
// the text of its first heading.
type docPage struct{ name, title string }

func docPages() ([]docPage, error) {
	files, err := fs.Glob(patchbot.Docs, "docs/*.md")
	if err != nil {
		return nil, err
	}
	var pages []docPage
	for _, f := range files {
		// The README of docs/ is the index of the pages for a reader of
		// the repository; this list is the binary's index.
		if path.Base(f) == "README.md" {
			continue
		}
		data, err := patchbot.Docs.ReadFile(f)
		if err != nil {
			return nil, err
		}
		title := ""
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			if t, ok := strings.CutPrefix(sc.Text(), "# "); ok {
				title = strings.ReplaceAll(t, "`", "")
				break
			}
		}
		pages = append(pages, docPage{strings.TrimSuffix(path.Base(f), ".md"), title})
	}
	return pages, nil
}
