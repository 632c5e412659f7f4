package main

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/patchbot/patchbot"
)

var cmdVersion = &subcommand{
	name:  "version",
	args:  "[-json]",
	short: "print patchbot's version and the revision it was built from",
	long: `Version prints patchbot's version (the newest in CHANGELOG.md), the
module version the binary was installed at when it was, the VCS revision it
was built from (with its time, and "+dirty" when the tree had uncommitted
changes), and the Go toolchain that built it. '--version' is the same.

A binary from 'go install ...@version' has a module version; one built in a
checkout with 'go build' has a revision; 'go run' records neither, and version
says so rather than inventing one.`,
	setup: func(fs *flag.FlagSet) func(*env, []string) error {
		jsonOut := fs.Bool("json", false, "print one JSON object")
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected arguments")
			}
			v := readVersion()
			if *jsonOut {
				return writeJSON(e.stdout, v)
			}
			fmt.Fprintf(e.stdout, "patchbot %s\n", v.Version)
			if v.Module != "" {
				fmt.Fprintf(e.stdout, "module version %s\n", v.Module)
			}
			switch {
			case v.Revision == "":
				fmt.Fprintln(e.stdout, "revision unknown (built without VCS information)")
			case v.Modified:
				fmt.Fprintf(e.stdout, "revision %s+dirty (%s)\n", v.Revision, v.Time)
			default:
				fmt.Fprintf(e.stdout, "revision %s (%s)\n", v.Revision, v.Time)
			}
			fmt.Fprintf(e.stdout, "built with %s %s/%s\n", v.Go, v.GOOS, v.GOARCH)
			return nil
		}
	},
}

// versionInfo is what 'patchbot version -json' prints.
type versionInfo struct {
	Version  string `json:"version"`            // patchbot.Version
	Module   string `json:"module,omitempty"`   // the module version, when installed at one
	Revision string `json:"revision,omitempty"` // vcs.revision
	Time     string `json:"time,omitempty"`     // vcs.time
	Modified bool   `json:"modified,omitempty"` // vcs.modified
	Go       string `json:"go"`
	GOOS     string `json:"goos"`
	GOARCH   string `json:"goarch"`
}

func readVersion() versionInfo {
	v := versionInfo{Version: patchbot.Version, Go: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Module = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}
