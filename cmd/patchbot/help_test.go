package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateHelp = flag.Bool("update-help", false, "rewrite testdata/help/*.txt from each command's -h")

// TestHelp holds every command's -h to its golden in testdata/help (run
// with -update-help after a change of flags or text, and read the diff):
// it prints without a panic (a flag's zero value is asked for its String),
// exits 0, and a usage line that lists flags lists every one but the
// deprecated spellings (one that says [flags] lists none).
func TestHelp(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
			if code := run(e, []string{c.name, "-h"}); code != 0 {
				t.Errorf("patchbot %s -h: exit status %d\n%s", c.name, code, &errOut)
			}
			got := out.String() + errOut.String()
			if strings.Contains(got, "panic") {
				t.Errorf("patchbot %s -h panics:\n%s", c.name, got)
			}
			golden := filepath.Join("testdata", "help", c.name+".txt")
			if *updateHelp {
				if err := os.MkdirAll(filepath.Dir(golden), 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (make it with go test -run TestHelp -update-help)", err)
			}
			if got != string(want) {
				t.Errorf("patchbot %s -h differs from %s (go test -run TestHelp -update-help rewrites it):\n%s", c.name, golden, got)
			}
			if c.setup == nil || strings.Contains(c.args, "[flags]") {
				return
			}
			fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
			c.setup(fs)
			// The flags of a push, which run's usage line names
			// together as "[push flags]" (port's lists them).
			push := flag.NewFlagSet("push", flag.ContinueOnError)
			definePushFlags(push)
			fs.VisitAll(func(f *flag.Flag) {
				if strings.HasPrefix(f.Usage, "deprecated spelling") || strings.HasPrefix(f.Usage, "removed:") {
					return
				}
				if strings.Contains(c.args, "[push flags]") && push.Lookup(f.Name) != nil {
					return
				}
				for _, end := range []string{" ", "]", "|"} {
					if strings.Contains(c.args, "-"+f.Name+end) {
						return
					}
				}
				t.Errorf("patchbot %s's usage line lacks -%s: %s", c.name, f.Name, c.args)
			})
		})
	}
}
