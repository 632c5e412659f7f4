package command

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/patchbot/patchbot/job"
)

// Limits of the arguments of the rules.
const (
	MaxCount    = 50  // bench -count: runs per side a comment may ask for
	MaxBenchRE  = 200 // bench -bench: bytes of the regexp
	MaxPackages = 20  // bench: package patterns
	MaxPattern  = 100 // bench: bytes of one package pattern
)

// A Rule is one command: its name, its synopsis and what it does (the
// help text and docs/serve.md are made of these), how it reads its
// arguments and what it sets in a job.
type Rule struct {
	Name     string // "bench"
	Synopsis string // "/patchbot bench [-count N|auto] [-aa] [-bench REGEXP] [PKG...]"
	Doc      string // what it does, in sentences for a reviewer

	// parse reads the arguments into c, setting c.Args to their
	// normalised form; it returns what is wrong, or "".
	parse func(c *Command, args []string) string
	// apply sets the fields of a job the command decides; nil for a
	// command that is not a job (help).
	apply func(c *Command, req *job.Request)
}

// rules is the table of commands, in the order help lists them.
var rules = []Rule{
	{
		Name:     "bench",
		Synopsis: Prefix + " bench [-count N|auto] [-aa] [-bench REGEXP] [PKG...]",
		Doc: "Benchmarks the packages at the change's base and at the revision this message is on, " +
			"interleaved, and replies with the comparison. " +
			"PKG is a package pattern of the repository such as ./codec, ./... or codec/... " +
			fmt.Sprintf("(at most %d; default: the benchmarks the change can affect). ", MaxPackages) +
			fmt.Sprintf("-count N is the runs per side, 1 to %d; -count auto runs each benchmark until it is decided "+
				"faster, slower, the same or undecided (default: the configuration's, auto unless set). ", MaxCount) +
			"-aa compares the revision with itself, one binary on both sides: whatever it flags is a false alarm of this machine. " +
			fmt.Sprintf("-bench REGEXP picks the benchmarks as go test -bench does, at most %d bytes (default: all).", MaxBenchRE),
		parse: parseBench,
		apply: func(c *Command, req *job.Request) {
			req.Steps = []string{job.StepBench, job.StepPost}
			req.Bench.Count = c.Count
			req.Bench.Auto = c.Auto
			req.Bench.AA = c.AA
			req.Bench.Bench = c.Bench
			req.Bench.Packages = slices.Clone(c.Packages)
		},
	},
	{
		Name:     "freeze",
		Synopsis: Prefix + " freeze",
		Doc: "Replies whether the change's branch is frozen for a release now: which release, " +
			"since when, and when the tree is expected to reopen.",
		parse: noArgs,
		apply: func(c *Command, req *job.Request) {
			req.Steps = []string{job.StepFreeze, job.StepPost}
		},
	},
	{
		Name:     "help",
		Synopsis: Prefix + " help",
		Doc:      "Replies with this list of commands.",
		parse:    noArgs,
	},
}

// Rules returns the table of commands, in the order help lists them.
func Rules() []Rule { return slices.Clone(rules) }

func noArgs(c *Command, args []string) string {
	if len(args) > 0 {
		return fmt.Sprintf("takes no arguments, and %s was given", quote(strings.Join(args, " ")))
	}
	return ""
}

// parseBench reads [-count N|auto] [-aa] [-bench REGEXP] [PKG...]. Options
// are -name VALUE or -name=VALUE (-aa alone), each at most once, before or
// among the packages; a word that starts with "-" is always an option.
func parseBench(c *Command, args []string) string {
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			p, msg := checkPattern(a)
			if msg != "" {
				return msg
			}
			if slices.Contains(c.Packages, p) {
				return fmt.Sprintf("package %s is given twice", quote(a))
			}
			if len(c.Packages) == MaxPackages {
				return fmt.Sprintf("more than %d packages: name fewer, or a pattern such as ./... that covers them", MaxPackages)
			}
			c.Packages = append(c.Packages, p)
			continue
		}
		name, val, hasVal := strings.Cut(a[1:], "=")
		if name != "count" && name != "bench" && name != "aa" {
			return fmt.Sprintf("unknown option %s: the options are -count N or auto, -aa and -bench REGEXP", quote(a))
		}
		if seen[name] {
			return fmt.Sprintf("-%s is given twice", name)
		}
		seen[name] = true
		if name == "aa" {
			if hasVal {
				return "-aa takes no value"
			}
			c.AA = true
			continue
		}
		if !hasVal {
			if i+1 == len(args) {
				return fmt.Sprintf("-%s needs a value after it", name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "count":
			if val == "auto" {
				c.Auto = true
				break
			}
			n, ok := smallNumber(val)
			if !ok || n < 1 || n > MaxCount {
				return fmt.Sprintf("-count %s: give a number of runs from 1 to %d, or auto", quote(val), MaxCount)
			}
			c.Count = n
		case "bench":
			if msg := checkBenchRE(val); msg != "" {
				return msg
			}
			c.Bench = val
		}
	}
	switch {
	case c.Auto:
		c.Args = append(c.Args, "-count", "auto")
	case c.Count > 0:
		c.Args = append(c.Args, "-count", strconv.Itoa(c.Count))
	}
	if c.AA {
		c.Args = append(c.Args, "-aa")
	}
	if c.Bench != "" {
		c.Args = append(c.Args, "-bench", c.Bench)
	}
	c.Args = append(c.Args, c.Packages...)
	return ""
}

// smallNumber parses 1 to 3 decimal digits, and nothing else (no sign, no
// spaces, no 0x).
func smallNumber(s string) (int, bool) {
	if s == "" || len(s) > 3 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func checkBenchRE(re string) string {
	switch {
	case re == "":
		return "-bench needs a regexp, such as -bench WriteInts"
	case len(re) > MaxBenchRE:
		return fmt.Sprintf("-bench: the regexp has %d bytes, at most %d", len(re), MaxBenchRE)
	}
	if _, err := regexp.Compile(re); err != nil {
		msg := err.Error()
		if e, ok := errors.AsType[*syntax.Error](err); ok {
			msg = e.Code.String() + " in " + quote(e.Expr)
		}
		return fmt.Sprintf("-bench %s is not a regular expression: %s", quote(re), msg)
	}
	return ""
}

// checkPattern checks a package pattern and returns it relative to the
// repository's root, as ./path: a pattern names a directory of the
// repository, never the standard library nor a module to download, so
// codec/... is ./codec/....
func checkPattern(p string) (string, string) {
	bad := func(why string) (string, string) {
		return "", fmt.Sprintf("package %s: %s; write a pattern of the repository such as ./codec or ./...", quote(p), why)
	}
	switch {
	case len(p) > MaxPattern:
		return bad(fmt.Sprintf("longer than %d bytes", MaxPattern))
	case strings.HasPrefix(p, "/"):
		return bad("an absolute path")
	case strings.ContainsFunc(p, func(r rune) bool { return !patternRune(r) }):
		return bad("only letters, digits and - . _ ~ + / may be in a package pattern")
	}
	elems := strings.Split(p, "/")
	for i, e := range elems {
		switch {
		case e == "":
			return bad("an empty path element")
		case e == "." && i == 0:
		case e == "..." && i == len(elems)-1:
		case e == "." || e == "...":
			return bad(fmt.Sprintf("%q may only be the first element, and ... only the last", e))
		case strings.Contains(e, ".."):
			return bad("no path element may be .. or hold it")
		case strings.HasPrefix(e, "."):
			return bad("a path element starts with a dot")
		}
	}
	if elems[0] != "." {
		p = "./" + p
	}
	if len(p) > MaxPattern {
		// Written as ./path, the pattern must still be one that parses:
		// a reply quotes it, and a rerun reads it back.
		return bad(fmt.Sprintf("longer than %d bytes as ./path", MaxPattern))
	}
	return p, ""
}

func patternRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~+/", r)
}
