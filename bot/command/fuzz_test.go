package command

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics; that a command it returns is
// bounded (its arguments, its packages, its line within the message) and
// re-renders to a line that parses back to the same command; and that
// every error is an *Error of one line of at most MaxError bytes. The seed
// corpus is in testdata/fuzz/FuzzParse: hostile arguments, quotes,
// fences, HTML, Gerrit and GitHub messages.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"/patchbot bench -count 10 -bench ^BenchmarkWriteInts$ ./codec",
		"Patch Set 2:\n\n> /patchbot bench\n\n/patchbot freeze\n",
		"```\n/patchbot bench\n```\n/patchbot help",
		"/patchbot bench -count 1000000 -bench ( ../../x",
		Help(),
		"LGTM <!-- not yet\n/patchbot bench -count 50\n-->\n\u200b/patchbot freeze",
		"<pre>\n/patchbot bench\n</pre>\n<code>\n/patchbot freeze\n</code>",
		"> /patchbot bench\n/patchbot bench -count 5\n\n- > x\n/patchbot help",
		"| a |\n| - |\n/patchbot bench\n\n[x]: /u '\n/patchbot help\n'",
		strings.Repeat("x", MaxMessage-len("/patchbot bench -count 5")-1) + "\n/patchbot bench -count 50",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := Parse(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			msg := err.Error()
			if len(msg) > MaxError || strings.ContainsAny(msg, "\r\n") || !utf8.ValidString(msg) {
				t.Fatalf("error is not one short line of UTF-8 (%d bytes): %q", len(msg), msg)
			}
			if c != nil {
				t.Fatalf("a command and an error: %v, %v", c, err)
			}
			return
		}
		if c == nil {
			return
		}
		lines := strings.Count(text[:min(len(text), MaxMessage)], "\n") + 1
		switch {
		case ruleNamed(c.Name) == nil:
			t.Fatalf("command %q is no rule", c.Name)
		case c.Line < 1 || c.Line > lines:
			t.Fatalf("command on line %d of %d", c.Line, lines)
		case len(c.Args) > MaxArgs || len(c.Packages) > MaxPackages || c.Count < 0 || c.Count > MaxCount || len(c.Bench) > MaxBenchRE:
			t.Fatalf("command out of bounds: %#v", c)
		case len(c.String()) > MaxLine:
			t.Fatalf("command renders to %d bytes", len(c.String()))
		}
		for _, p := range c.Packages {
			if escapes(p) {
				t.Fatalf("package %q escapes the repository", p)
			}
		}
		again, err := Parse(c.String())
		if err != nil {
			t.Fatalf("%q parses back with an error: %v", c.String(), err)
		}
		again.Line = c.Line
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("%q parses back as %#v, want %#v", c.String(), again, c)
		}
	})
}

// escapes reports whether the package pattern p could name a directory
// outside the repository: it is not "." or "./..." rooted, or an element
// other than a last "..." holds "..".
func escapes(p string) bool {
	if p != "." && !strings.HasPrefix(p, "./") {
		return true
	}
	elems := strings.Split(p, "/")
	if elems[len(elems)-1] == "..." {
		elems = elems[:len(elems)-1]
	}
	for _, e := range elems {
		if strings.Contains(e, "..") {
			return true
		}
	}
	return false
}

// TestEscapes holds the fuzz oracle to the patterns that escape: an
// oracle that let ./../... pass would let a parser that did pass too.
func TestEscapes(t *testing.T) {
	for p, want := range map[string]bool{
		".": false, "./...": false, "./codec": false, "./a/b/...": false,
		"./../...": true, "./a/../../...": true, "../x": true, "/etc": true,
		"codec": true, "./..": true, "./a..b/...": true,
		"./.../x": true, // the oracle is the stricter: "..." only last
	} {
		if got := escapes(p); got != want {
			t.Errorf("escapes(%q) = %v, want %v", p, got, want)
		}
	}
}
