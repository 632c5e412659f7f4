// Testreport is scripts/test's reader of 'go test -json': it shows a pass as
// 'go test' would, and at the end of the run says what ran against what.
//
// Usage:
//
//	go test -json ./... | testreport show -save FILE
//	testreport summary [-check] -uses FILE -components FILE JSONFILE...
//
// show prints what 'go test' without -v prints: a line per package, and the
// whole output of each test that failed (and of a package that failed
// outside its tests: a panic, a timeout, a build error). It copies its input
// to FILE for the summary. Its exit status is 0 whatever the tests did:
// scripts/test takes go test's own, through pipefail.
//
// summary prints a line per real component the tests need (the test Gerrit,
// PostgreSQL, bubblewrap, shellcheck, Mercurial): what was started or found,
// as scripts/test wrote it in the components file ("NAME<TAB>WHAT" lines),
// and how many tests ran against it, from the uses file that
// internal/testenv writes; then the count of tests that passed, failed and
// were skipped, and the skipped ones grouped by their reason. With -check it
// exits 1 when a component ran no test: a component that is started but
// never used is a test that skips, or a helper that forgot to say so.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

func usage() {
	fmt.Fprintf(os.Stderr, "usage: go test -json ... | testreport show [-save FILE]\n       testreport summary [-check] -uses FILE -components FILE JSONFILE...\n")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "show":
		fs := flag.NewFlagSet("show", flag.ExitOnError)
		save := fs.String("save", "", "copy the JSON input to `file`")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 0 {
			usage()
		}
		var in io.Reader = os.Stdin
		if *save != "" {
			f, err := os.Create(*save)
			if err != nil {
				fatal(err)
			}
			defer f.Close()
			in = io.TeeReader(os.Stdin, f)
		}
		if err := show(in, os.Stdout); err != nil {
			fatal(err)
		}
	case "summary":
		fs := flag.NewFlagSet("summary", flag.ExitOnError)
		uses := fs.String("uses", "", "the `file` of uses that internal/testenv writes")
		components := fs.String("components", "", "the `file` of components scripts/test writes")
		check := fs.Bool("check", false, "exit 1 when a component ran no test")
		fs.Parse(os.Args[2:])
		if *uses == "" || *components == "" {
			usage()
		}
		s, err := readSummary(*uses, *components, fs.Args())
		if err != nil {
			fatal(err)
		}
		s.write(os.Stdout)
		if *check {
			if unused := s.unused(); len(unused) > 0 {
				fmt.Fprintf(os.Stderr, "testreport: no test ran against %s, although the run requires it: a test that needs it skips, or does not call internal/testenv\n", strings.Join(unused, ", "))
				os.Exit(1)
			}
		}
	default:
		usage()
	}
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
	os.Exit(1)
}

// An event is one line of 'go test -json' (test2json's TestEvent, and the
// go command's build events).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output
}

// maxLine bounds one line of JSON: a test's line of output, escaped.
const maxLine = 16 << 20

// decode calls f for each event of r.
func decode(r io.Reader, f func(event)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			// Not an event: what the go command says outside them
			// (a flag error, "no Go files"). Pass it on as output.
			f(event{Action: "output", Output: string(line) + "\n"})
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		f(e)
	}
	return sc.Err()
}

// show prints the events of r as 'go test' without -v would: a failed
// test's output, then that of its failed subtests; a package's result line.
func show(r io.Reader, w io.Writer) error {
	type key struct{ pkg, test string }
	buf := map[key][]string{} // output not yet shown, per test and per package ("")
	var order []key           // tests and packages in the order they began
	failed := map[key]bool{}  // subtests that failed, shown with their test
	add := func(k key, s string) {
		if _, ok := buf[k]; !ok {
			order = append(order, k)
		}
		buf[k] = append(buf[k], s)
	}
	// flush shows k's output, its "--- FAIL" line first as go test does.
	flush := func(k key) {
		lines := buf[k]
		delete(buf, k)
		for _, first := range []bool{true, false} {
			for _, s := range lines {
				if !progress(s) && strings.HasPrefix(s, "--- ") == first {
					io.WriteString(w, s)
				}
			}
		}
	}
	// under reports whether o is k's test or one of its subtests, or, for
	// a package (k.test == ""), any test of it.
	under := func(o, k key) bool {
		return o.pkg == k.pkg && (k.test == "" || o.test == k.test || strings.HasPrefix(o.test, k.test+"/"))
	}
	return decode(r, func(e event) {
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			io.WriteString(w, e.Output)
		case "output":
			switch {
			case e.Package == "":
				io.WriteString(w, e.Output)
			case e.Test == "" && packageResult(e.Output):
				io.WriteString(w, e.Output)
			default:
				add(k, e.Output)
			}
		case "fail":
			switch {
			case strings.Contains(e.Test, "/"):
				failed[k] = true // shown after its test's own output
			case e.Test != "":
				flush(k)
				for _, o := range order {
					if under(o, k) && failed[o] {
						flush(o)
					}
				}
			default:
				// A package: the tests still running when it
				// died (a panic, a timeout), then its own output.
				for _, o := range order {
					if under(o, k) && o.test != "" {
						flush(o)
					}
				}
				flush(k)
			}
		case "pass", "skip":
			for _, o := range order {
				if under(o, k) {
					delete(buf, o)
				}
			}
		}
	})
}

// progress reports whether a line of output is verbose progress that 'go
// test' without -v does not show.
func progress(s string) bool {
	t := strings.TrimLeft(s, " ")
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return s == "PASS\n" || s == "FAIL\n" // the package result line says it
}

// packageResult reports whether a package's line of output is its result:
// "ok  \tPKG\t1.2s", "FAIL\tPKG …", "?   \tPKG\t[no test files]".
func packageResult(s string) bool {
	return strings.HasPrefix(s, "ok  \t") || strings.HasPrefix(s, "FAIL\t") || strings.HasPrefix(s, "?   \t")
}

// A summary is what the run did, to say at its end.
type summary struct {
	components [][2]string         // name, what was started
	uses       map[string][]string // component: tests that ran against it ("PKG TEST")
	passed     int
	failed     []string            // "PKG TEST"
	skipped    map[string][]string // reason: tests
}

func readSummary(usesFile, componentsFile string, jsonFiles []string) (*summary, error) {
	s := &summary{uses: map[string][]string{}, skipped: map[string][]string{}}
	data, err := os.ReadFile(componentsFile)
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(data)) {
		name, what, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not NAME<TAB>WHAT", componentsFile, line)
		}
		s.components = append(s.components, [2]string{name, what})
	}
	data, err = os.ReadFile(usesFile)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s: %q is not NAME<TAB>PACKAGE<TAB>TEST", usesFile, line)
		}
		if t := f[1] + " " + f[2]; !slices.Contains(s.uses[f[0]], t) {
			s.uses[f[0]] = append(s.uses[f[0]], t)
		}
	}
	for _, name := range jsonFiles {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		err = s.add(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	return s, nil
}

// add counts the tests of one 'go test -json' stream.
func (s *summary) add(r io.Reader) error {
	out := map[[2]string][]string{} // the output of each test
	return decode(r, func(e event) {
		if e.Test == "" {
			return
		}
		k := [2]string{e.Package, e.Test}
		switch e.Action {
		case "output":
			out[k] = append(out[k], e.Output)
		case "pass":
			s.passed++
		case "fail":
			s.failed = append(s.failed, shortPkg(e.Package)+" "+e.Test)
		case "skip":
			// A test skipped in several passes (the race pass runs
			// some again) is one test skipped.
			why, t := skipReason(out[k]), shortPkg(e.Package)+" "+e.Test
			if !slices.Contains(s.skipped[why], t) {
				s.skipped[why] = append(s.skipped[why], t)
			}
		}
		if e.Action != "output" {
			delete(out, k)
		}
	})
}

// shortPkg drops the module's path from a package's.
func shortPkg(p string) string {
	const module = "github.com/patchbot/patchbot"
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

// logEntry matches the first line of what t.Log or t.Skip wrote: its
// position, then the message.
var logEntry = regexp.MustCompile(`^\s*([\w.-]+\.go):\d+: (.*)$`)

// skipReason returns the reason a skipped test gave: the last message it
// logged (the first line of it), leaving out testscript's log of the
// script, which it writes after the script's skip.
func skipReason(lines []string) string {
	why := ""
	for _, l := range lines {
		m := logEntry.FindStringSubmatch(strings.TrimRight(l, "\n"))
		if m == nil || m[1] == "testscript.go" {
			continue
		}
		why = m[2]
	}
	if why == "" {
		return "(no reason given)"
	}
	return why
}

// unused returns the components that no test ran against.
func (s *summary) unused() []string {
	var out []string
	for _, c := range s.components {
		if len(s.uses[c[0]]) == 0 {
			out = append(out, c[0])
		}
	}
	return out
}

// write prints the summary.
func (s *summary) write(w io.Writer) {
	fmt.Fprintf(w, "components (each started or found by scripts/test, and required):\n")
	width := 0
	for _, c := range s.components {
		width = max(width, len(c[0]))
	}
	for _, c := range s.components {
		n := len(s.uses[c[0]])
		fmt.Fprintf(w, "  %-*s  %s; %s ran against it\n", width, c[0], c[1], plural(n, "test"))
	}
	nskip := 0
	for _, ts := range s.skipped {
		nskip += len(ts)
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", s.passed, len(s.failed), nskip)
	for _, t := range s.failed {
		fmt.Fprintf(w, "  failed: %s\n", t)
	}
	if nskip == 0 {
		return
	}
	fmt.Fprintf(w, "skipped, by reason:\n")
	reasons := make([]string, 0, len(s.skipped))
	for r := range s.skipped {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if d := len(s.skipped[b]) - len(s.skipped[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, r := range reasons {
		ts := s.skipped[r]
		slices.Sort(ts)
		const show = 4
		list := strings.Join(ts[:min(len(ts), show)], ", ")
		if len(ts) > show {
			list += fmt.Sprintf(" and %d more", len(ts)-show)
		}
		fmt.Fprintf(w, "  %3d  %s\n       %s\n", len(ts), r, list)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
