package main

import (
	"encoding/json"
	"flag"
	"io"

	"github.com/patchbot/patchbot/config"
)

var cmdConfig = &subcommand{
	name:  "config",
	args:  "[-config FILE] [-json]",
	short: "check a configuration file and print the configuration in force",
	long: `Config loads the built-in configuration (config.yaml in the repository),
overlays the file named by -config, checks the result and prints it.

Every command that reads configuration takes the same -config flag, so this is
the way to see what they will use, and to check a file before a scheduled run
depends on it: an unknown key or a bad value is reported with the file, line
and key, and exit status 2.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		file := configFlag(fs)
		jsonOut := fs.Bool("json", false, "print the configuration as JSON instead of YAML")
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected arguments")
			}
			c, err := config.Load(*file)
			if err != nil {
				return err
			}
			if *jsonOut {
				v, err := c.Plain()
				if err != nil {
					return err
				}
				return writeJSON(e.stdout, v)
			}
			data, err := c.YAML()
			if err != nil {
				return err
			}
			_, err = e.stdout.Write(data)
			return err
		}
	},
}

// configFlag defines the -config flag every command that reads the
// configuration shares.
func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "overlay the built-in configuration with `FILE`")
}

// writeJSON writes v as indented JSON: what -json prints on every command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "Name <email>" stays readable
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
