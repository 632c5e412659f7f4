package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExitCodes holds every command to one exit-code table: 2 for a usage
// mistake, a flag it does not have or an input that is not there, whatever
// the command. A command added to the table without its cases here fails
// the test.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	missing := func(name string) string { return filepath.Join(dir, name) }
	cases := map[string][][]string{
		"run":        {{missing("nosuch.patch")}},
		"port":       {{missing("nosuch.patch")}},
		"freeze":     {{"-config", missing("nosuch.yaml")}, {"-at", "2014-11-31"}},
		"bench":      {{"-old", missing("old.txt"), "-new", missing("new.txt")}, {"a", "b", "c"}},
		"bisect":     {{"HEAD"}, {"-repo", missing("norepo"), "HEAD~1", "HEAD"}, {"-threshold", "0%", "a", "b"}},
		"track":      {{"extra"}, {"-every", "0"}, {"-github", "gopher"}, {"-db", "q.db"}},
		"post":       {{"-github", "gopher/codec#7", missing("result.json")}, {"-github", "gopher/codec#7"}},
		"serve":      {{"-config", missing("nosuch.yaml")}},
		"sweep":      {{"-config", missing("nosuch.yaml")}, {"-only", "nosuch"}},
		"config":     {{"-config", missing("nosuch.yaml")}},
		"version":    {{"extra"}},
		"doc":        {{"nosuch"}},
		"help":       {{"nosuch"}},
		"completion": {{}, {"fish"}},
	}
	for _, c := range commands {
		if _, ok := cases[c.name]; !ok {
			t.Errorf("command %s has no case here: give it its usage mistakes", c.name)
		}
		cases[c.name] = append(cases[c.name], []string{"-nosuchflag"})
	}
	for name, calls := range cases {
		for _, args := range calls {
			var stdout, stderr bytes.Buffer
			e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
			if code := run(e, append([]string{name}, args...)); code != exitUsage {
				t.Errorf("patchbot %s %s: exit status %d, want %d\n%s", name, strings.Join(args, " "), code, exitUsage, stderr.String())
			}
			if !strings.HasPrefix(stderr.String(), "patchbot "+name+": ") {
				t.Errorf("patchbot %s %s: stderr %q does not begin with the command's name", name, strings.Join(args, " "), stderr.String())
			}
		}
	}
}

// TestParseFlags checks that flags may come after arguments, as go test
// takes them, and that "--" ends the flags.
func TestParseFlags(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		count string
		n     bool
		rest  []string
	}{
		{[]string{"-count", "3", "HEAD~1"}, "3", false, []string{"HEAD~1"}},
		{[]string{"HEAD~1", "-count", "3"}, "3", false, []string{"HEAD~1"}},
		{[]string{"a", "-n", "b", "-count=4", "c"}, "4", true, []string{"a", "b", "c"}},
		{[]string{"a", "--", "-n", "-count=4"}, "1", false, []string{"a", "-n", "-count=4"}},
		{[]string{"--", "-x"}, "1", false, []string{"-x"}},
		{[]string{"-", "-n"}, "1", true, []string{"-"}},
		{nil, "1", false, nil},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		count := fs.String("count", "1", "")
		n := fs.Bool("n", false, "")
		rest, err := parseFlags(fs, tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if *count != tt.count || *n != tt.n || !slices.Equal(rest, tt.rest) {
			t.Errorf("%q: count %s, n %v, arguments %q; want %s, %v, %q", tt.args, *count, *n, rest, tt.count, tt.n, tt.rest)
		}
	}
}
