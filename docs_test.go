package patchbot_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/testenv"
)

// A docExample is a command shown in a page, with the output the page
// says it prints.
type docExample struct {
	page    string
	line    int
	command string // after "$ ", with its continuation lines
	output  []string
	files   map[string]string // the page's files, by name, before it
	block   int               // which block of the page holds it
	skip    string            // the page's reason not to run its block
}

// docFileRE finds the name of a file a page defines in the sentence before
// a fenced block: "with a file `my.yaml`:".
var docFileRE = regexp.MustCompile("(?i)\\bfile `([\\w.-]+\\.(?:ya?ml|txt|json|patch))`[^`]*:\\s*$")

// docSkipRE is how a page says that the block after it cannot run here,
// and why: <!-- docs-test: skip: it needs the reader's Go checkout -->.
var docSkipRE = regexp.MustCompile(`^<!-- docs-test: skip: (.+) -->$`)

// readExamples returns the examples of a page: each "$ " line of an
// indented or fenced block (with the lines that continue it after a
// backslash), with the lines after it up to the next "$ " line or the
// block's end; and the files the page defines (a fenced block after a
// sentence that names it, "a file `NAME`:").
func readExamples(t *testing.T, page string) []docExample {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var (
		exs      []docExample
		cur      *docExample
		fence    bool
		indented bool
		block    int
		skip     string // for the next block
		fileName string
		fileText strings.Builder
		files    = map[string]string{}
		prev     string
		lastText string // the last line that was not blank
	)
	end := func() {
		if cur != nil {
			for len(cur.output) > 0 && strings.TrimSpace(cur.output[len(cur.output)-1]) == "" {
				cur.output = cur.output[:len(cur.output)-1]
			}
			exs = append(exs, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(prev) != "" {
			lastText = prev
		}
		if strings.HasPrefix(line, "```") {
			if fence {
				fence = false
				end()
				skip = ""
				if fileName != "" {
					files[fileName] = fileText.String()
					fileName = ""
				}
			} else {
				fence = true
				block++
				fileText.Reset()
				if m := docFileRE.FindStringSubmatch(lastText); m != nil {
					fileName = m[1]
				}
			}
			prev = line
			continue
		}
		text, inBlock := line, fence
		if !fence {
			if t, ok := strings.CutPrefix(line, "    "); ok && (indented || strings.TrimSpace(prev) == "") {
				text, inBlock = t, true
			} else if strings.TrimSpace(line) == "" && indented {
				text, inBlock = "", true
			}
		}
		if inBlock && !fence && !indented {
			block++
		}
		indented = inBlock && !fence
		if fence && fileName != "" {
			fileText.WriteString(line + "\n")
		}
		if !inBlock {
			end()
			if m := docSkipRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				skip = m[1]
			} else if strings.TrimSpace(line) != "" {
				skip = "" // a skip says so of the block right after it
			}
			prev = line
			continue
		}
		if cur != nil && strings.HasSuffix(cur.command, "\\") && len(cur.output) == 0 {
			cur.command += "\n" + text
		} else if cmd, ok := strings.CutPrefix(text, "$ "); ok {
			end()
			cur = &docExample{page: page, line: n, command: cmd, files: maps.Clone(files), block: block, skip: skip}
		} else if cur != nil {
			cur.output = append(cur.output, text)
		}
		prev = line
	}
	end()
	return exs
}

// patchbotArgs returns the arguments of the patchbot command in cmd
// ("patchbot bench -old a -new b", or "go run ./cmd/patchbot ..."), the
// first patchbot of a shell line, or nil when it runs none.
func patchbotArgs(cmd string) []string {
	cmd = strings.ReplaceAll(cmd, "go run ./cmd/patchbot", "patchbot")
	words := strings.Fields(strings.NewReplacer("\\\n", " ", ";", " ; ", "|", " | ", "&&", " && ").Replace(cmd))
	for i, w := range words {
		if w == "patchbot" && i+1 < len(words) {
			var args []string
			for _, a := range words[i+1:] {
				if a == ";" || a == "|" || a == "&&" || a == "&" || strings.HasPrefix(a, ">") || a == "#" {
					break
				}
				args = append(args, a)
			}
			return args
		}
	}
	return nil
}

// Why an example cannot run here; "" when it can. made says whether an
// earlier command of the page wrote a file of that name; noGerrit is why
// the test Gerrit is not there, "" when it is.
func skipReason(ex docExample, made func(name string) bool, noGerrit string) string {
	cmd := ex.command
	switch {
	case ex.skip != "":
		return "the page says: " + ex.skip
	case noGerrit != "" && (strings.Contains(cmd, "PATCHBOT_TEST_") || strings.Contains(cmd, "gerrit-test-server") || strings.Contains(cmd, "$G")):
		return "talks to the test Gerrit, which " + noGerrit
	case strings.Contains(cmd, "~/"):
		return "names the reader's own files (~/)"
	case slices.Contains(ex.output, "^C"):
		return "interrupted by hand (^C)"
	case strings.Contains(cmd, "go test ") || strings.HasPrefix(cmd, "time "):
		return "a measurement"
	}
	args := patchbotArgs(cmd)
	if args == nil {
		return ""
	}
	sub := args[0]
	switch {
	case sub == "run":
		return "runs benchmarks (patchbot run)"
	case sub == "bench" && !slices.Contains(args, "-old"):
		return "runs benchmarks"
	case sub == "serve":
		return "starts a server"
	case slices.Contains(args, "-github") && !strings.Contains(cmd, "127.0.0.1:1"):
		return "talks to GitHub (the page's fake)"
	case (sub == "freeze" || sub == "sweep") && !slices.Contains(args, "-at") && !slices.Contains(args, "-offline") && len(args) > 1:
		return "reads live signals (the network)"
	case sub == "freeze" && len(args) == 1:
		return "today's answer, from the network"
	}
	for _, a := range args {
		if ext := filepath.Ext(a); ext == ".yaml" || ext == ".txt" || ext == ".json" || ext == ".patch" {
			if _, err := os.Stat(a); err != nil && ex.files[a] == "" && !made(a) && !strings.Contains(a, "$") {
				return "reads " + a + ", which the page makes without showing it"
			}
		}
	}
	return ""
}

// The parts of an output that change from run to run, and how each is
// written when compared.
var docVariable = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`/tmp/[^\s:'"]+`), "/tmp/PATH"},
	{regexp.MustCompile(`go1\.\d+(\.\d+)?`), "go1.N"},
	{regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), "HASH"},
	{regexp.MustCompile(`\d+(\.\d+)?(ms|s|m)\b`), "DURATION"},
	// The test Gerrit's port, and its change numbers, which depend on
	// what ran on it before.
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`/\+/\d+\b`), "/+/N"},
	{regexp.MustCompile(`\b(change|changes|Change) \d+\b`), "$1 N"},
	{regexp.MustCompile(`"change": "\d+"`), `"change": "N"`},
	{regexp.MustCompile(`(?m)[ \t]+$`), ""},
}

func normalize(s string) string {
	s = asShown(s)
	for _, v := range docVariable {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.Trim(s, "\n")
}

// asShown returns s as a terminal shows it: of a line that a carriage
// return rewrites (a progress line, git's "remote: Processing changes"),
// the last text written, trailing blanks gone.
func asShown(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if !strings.Contains(l, "\r") {
			continue
		}
		parts := strings.Split(l, "\r")
		l = ""
		for _, p := range slices.Backward(parts) {
			if p = strings.TrimRight(p, " "); p != "" {
				l = p
				break
			}
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// matchOutput reports whether got is what the page shows, want: line for
// line once both are normalized, where a line "..." in want stands for
// any lines (or none) and "..." within a line for any text, as the pages
// shorten long output.
func matchOutput(want, got string) bool {
	w, g := strings.Split(normalize(want), "\n"), strings.Split(normalize(got), "\n")
	if normalize(want) == "" {
		return normalize(got) == ""
	}
	var match func(w, g []string) bool
	match = func(w, g []string) bool {
		if len(w) == 0 {
			return len(g) == 0
		}
		if strings.TrimSpace(w[0]) == "..." {
			for i := 0; i <= len(g); i++ {
				if match(w[1:], g[i:]) {
					return true
				}
			}
			return false
		}
		if len(g) == 0 || !lineMatches(w[0], g[0]) {
			return false
		}
		return match(w[1:], g[1:])
	}
	return match(w, g)
}

func lineMatches(want, got string) bool {
	if !strings.Contains(want, "...") {
		return want == got
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// docMarker ends each command's output in a session's transcript.
const docMarker = "@@docs-test: end of command@@"

// TestDocExamples runs the examples of README.md and docs/ as a reader
// would: each page's commands in order in one shell (bash), so that a
// `cd`, a variable or a file made by one is there for the next, in a
// scratch directory holding the page's files and links to the
// repository's, with the patchbot built from this checkout first on PATH
// (and standing for "go run ./cmd/patchbot").
// It compares what each command prints (stdout and stderr, as they came)
// with what the page shows, but for the parts that change from run to run
// (docVariable) and what the page shortens with "...". An example that
// cannot run here (a server, the network, benchmarks) ends the page's
// session, and the next runnable one starts a new session; a page marks
// a block it knows cannot run with a comment before it,
// <!-- docs-test: skip: REASON -->. The test says how many examples it
// ran, and why it left each of the others out.
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds patchbot")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, _ := os.Getwd()
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "patchbot"), "./cmd/patchbot").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(root)
	noGerrit, gerritDir := testGerrit(t, root)
	pages, _ := filepath.Glob("docs/*.md")
	pages = append([]string{"README.md"}, pages...)
	ran, skipped := 0, map[string]int{}
	for _, page := range pages {
		exs := readExamples(t, page)
		// A block runs whole or not at all: one example that cannot run
		// leaves out its block.
		blockSkip := map[int]string{}
		var earlier []string
		// made reports whether an earlier command wrote the file name:
		// "> name", or "cp FROM name".
		made := func(name string) bool {
			re := regexp.MustCompile(`(>\s*|\bcp\s+\S+\s+)` + regexp.QuoteMeta(name) + `(\s|$)`)
			for _, c := range earlier {
				if re.MatchString(c) {
					return true
				}
			}
			return false
		}
		for _, ex := range exs {
			if why := skipReason(ex, made, noGerrit); why != "" && blockSkip[ex.block] == "" {
				blockSkip[ex.block] = why
			}
			earlier = append(earlier, ex.command)
		}
		var sessions [][]docExample
		var cur []docExample
		for _, ex := range exs {
			if why := blockSkip[ex.block]; why != "" {
				skipped[why]++
				if len(cur) > 0 {
					sessions, cur = append(sessions, cur), nil
				}
				continue
			}
			cur = append(cur, ex)
		}
		if len(cur) > 0 {
			sessions = append(sessions, cur)
		}
		for _, s := range sessions {
			ran += len(s)
			t.Run(fmt.Sprintf("%s:%d", page, s[0].line), func(t *testing.T) {
				runSession(t, root, bin, gerritDir, entries, s)
			})
		}
	}
	t.Logf("ran %d examples of the pages; left out:", ran)
	for _, why := range slices.Sorted(maps.Keys(skipped)) {
		t.Logf("  %3d  %s", skipped[why], why)
	}
	// Floors a little under today's counts (50 without the test Gerrit,
	// 134 with it): fewer means the reading of the pages broke.
	if floor := map[bool]int{true: 120, false: 40}[noGerrit == ""]; ran < floor {
		t.Errorf("ran %d examples, under %d: the reading of the pages broke", ran, floor)
	}
}

// testGerrit returns why the pages cannot use the test Gerrit ("" when
// they can), and the run directory of scripts/gerrit-test-server where it
// runs: a page's "eval $(scripts/gerrit-test-server start)" gets that
// server's environment rather than a server of its own.
func testGerrit(t *testing.T, root string) (noGerrit, dir string) {
	if !testenv.Have(t, testenv.Gerrit, gerrittest.Missing()) {
		return "is not running", ""
	}
	dir = os.Getenv("PATCHBOT_GERRIT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("patchbot-gerrit-test-%d", os.Getuid()))
	}
	cmd := exec.Command(filepath.Join(root, "scripts/gerrit-test-server"), "env")
	cmd.Env = append(os.Environ(), "PATCHBOT_GERRIT_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PATCHBOT_TEST_GERRIT_URL="+os.Getenv("PATCHBOT_TEST_GERRIT_URL")+"\n") {
		t.Fatalf("the test Gerrit at %s does not run from %s, where a page's gerrit-test-server would look for it: %v\n%s"+
			"export PATCHBOT_GERRIT_DIR, set to the directory it was started with (scripts/test does)",
			os.Getenv("PATCHBOT_TEST_GERRIT_URL"), dir, err, out)
	}
	return "", dir
}

// runSession runs the examples s of one page in one shell and checks
// what each prints.
func runSession(t *testing.T, root, bin, gerritDir string, entries []os.DirEntry, s []docExample) {
	dir := t.TempDir()
	// The repository's files, as links, so that a page's paths
	// (step/benchrun/testdata/...) are there; the page's own files, and
	// what its commands make, are the directory's.
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range s[0].files {
		os.Remove(filepath.Join(dir, name))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// "go run ./cmd/patchbot" is the patchbot on PATH, built once.
	var script strings.Builder
	for _, ex := range s {
		c := strings.ReplaceAll(ex.command, "go run ./cmd/patchbot", "patchbot")
		fmt.Fprintf(&script, "%s\n__status=$?; printf '\\n%s\\n'; (exit $__status)\n", c, docMarker)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = dir
	// Its home and its temporary files ("cd $(mktemp -d)") are the
	// session's too.
	home, tmp := filepath.Join(dir, ".home"), filepath.Join(dir, ".tmp")
	os.Mkdir(home, 0o755)
	os.Mkdir(tmp, 0o755)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TMPDIR="+tmp, "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home, "XDG_CACHE_HOME="+home,
		"GIT_AUTHOR_NAME=Gopher", "GIT_AUTHOR_EMAIL=gopher@example.com",
		"GIT_COMMITTER_NAME=Gopher", "GIT_COMMITTER_EMAIL=gopher@example.com",
		"GITHUB_TOKEN=", "GITHUB_ACTIONS=", "PATCHBOT_GERRIT_USER=", "PATCHBOT_GERRIT_PASSWORD=",
		// A page's "scripts/gerrit-test-server start" finds the running
		// server there and prints its environment.
		"PATCHBOT_GERRIT_DIR="+gerritDir)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the session did not end in 2 minutes:\n%s", out.String())
	}
	_ = err // the status of the last command; the pages say theirs
	// The session's temporary directory is the reader's /tmp.
	got := strings.NewReplacer(tmp+"/", "/tmp/", dir+"/", "", root+"/", "").Replace(out.String())
	parts := strings.Split(got, docMarker+"\n")
	for i, ex := range s {
		if i >= len(parts) {
			t.Errorf("%s:%d: $ %s\nprinted nothing: the session stopped before it\n%s", ex.page, ex.line, ex.command, got)
			return
		}
		p := strings.TrimSuffix(parts[i], "\n")
		if want := strings.Join(ex.output, "\n"); !matchOutput(want, p) {
			t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nthe command prints:\n%s", ex.page, ex.line, ex.command, want, p)
		}
	}
}
