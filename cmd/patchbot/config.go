package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/patchbot/patchbot/config"
)

var cmdConfig = &command{
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
			var buf bytes.Buffer
			enc := yaml.NewEncoder(&buf)
			enc.SetIndent(2)
			if err := enc.Encode(c); err != nil {
				return err
			}
			if err := enc.Close(); err != nil {
				return err
			}
			if *jsonOut {
				// Go through the YAML form so that values read as they are
				// written in the file ("10m", "5%", "2014-11-06"), not as Go
				// stores them.
				var n yaml.Node
				if err := yaml.Unmarshal(buf.Bytes(), &n); err != nil {
					return err
				}
				v, err := plainValue(&n)
				if err != nil {
					return err
				}
				return writeJSON(e.stdout, v)
			}
			_, err = e.stdout.Write(buf.Bytes())
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

// plainValue turns a YAML node into maps, lists and scalars for JSON,
// keeping timestamps as the text they are written as.
func plainValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return plainValue(n.Content[0])
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := plainValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := plainValue(c)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	}
	if n.Tag == "!!timestamp" {
		return n.Value, nil
	}
	var v any
	err := n.Decode(&v)
	return v, err
}
