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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/testenv"
	"github.com/patchbot/patchbot/step/review/reviewtest"
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
	github  string            // the fake GitHub its block runs against
}

// docFileRE finds the name of a file a page defines in the sentence before
// a fenced block: "with a file `my.yaml`:".
var docFileRE = regexp.MustCompile("(?i)\\bfile `([\\w.-]+\\.(?:ya?ml|txt|json|patch))`[^`]*:\\s*$")

// docSkipRE is how a page says that the block after it cannot run here,
// and why: <!-- docs-test: skip: it needs the reader's Go checkout -->.
var docSkipRE = regexp.MustCompile(`^<!-- docs-test: skip: (.+) -->$`)

// docGitHubRE is how a page says that the block after it talks to the
// tests' fake GitHub (step/review/reviewtest), and what the fake holds:
// <!-- docs-test: github OWNER/REPO PULL... -->, each PULL "#N" (pull
// request N, open) or "+LABEL,..." (an open pull request with the labels,
// "+" for none, numbered from 70001 on, as the fake numbers them).
var docGitHubRE = regexp.MustCompile(`^<!-- docs-test: github (\S+/\S+)((?: [#+]\S*)*) -->$`)

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
		github   string // for the next block
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
			if fence && strings.TrimSpace(line) != "```" {
				// A closing fence has no info string: the block
				// opened before was never closed, and the rest
				// of the page shows as code.
				t.Errorf("%s:%d: %s inside a fenced block: the block before it is not closed", page, n, line)
			}
			if fence {
				fence = false
				end()
				skip, github = "", ""
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
			} else if m := docGitHubRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				github = m[1] + m[2]
			} else if strings.TrimSpace(line) == docDefaults {
				// TestDocDefaults's: the block is configuration.
			} else if strings.HasPrefix(strings.TrimSpace(line), "<!-- docs-test:") {
				t.Errorf("%s:%d: %s: want <!-- docs-test: skip: REASON -->, <!-- docs-test: github OWNER/REPO PULL... --> or %s", page, n, line, docDefaults)
			} else if strings.TrimSpace(line) != "" {
				// A mark says so of the block right after it.
				skip, github = "", ""
			}
			prev = line
			continue
		}
		if cur != nil && strings.HasSuffix(cur.command, "\\") && len(cur.output) == 0 {
			cur.command += "\n" + text
		} else if cmd, ok := strings.CutPrefix(text, "$ "); ok {
			end()
			cur = &docExample{page: page, line: n, command: cmd, files: maps.Clone(files), block: block, skip: skip, github: github}
		} else if cur != nil {
			cur.output = append(cur.output, text)
		}
		prev = line
	}
	end()
	if fence {
		t.Errorf("%s: the last fenced block is not closed", page)
	}
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
	}
	args := patchbotArgs(cmd)
	if args == nil {
		return ""
	}
	sub := args[0]
	switch {
	case sub == "serve":
		return "starts a server"
	case slices.Contains(args, "-github") && ex.github == "" && !strings.Contains(cmd, "127.0.0.1:1"):
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

// docUseRE finds the shell variables a command uses ($B, ${B}); the
// others are shellSets' pieces of a shell line.
var (
	docUseRE    = regexp.MustCompile(`\$\{?([A-Za-z_]\w*)`)
	shQuotedRE  = regexp.MustCompile(`\$\([^)]*\)|'[^']*'|"[^"]*"`)
	shCommentRE = regexp.MustCompile(`(?m)(^|\s)#.*$`)
	shListRE    = regexp.MustCompile(`;|&&|\|\||\n`)
	shNameRE    = regexp.MustCompile(`^[A-Za-z_]\w*$`)
)

// shellSets returns the shell variables a command sets for the commands
// after it: "B=...", "export A=... B=...", not "A=... cmd", which sets A
// for cmd alone. It reads a shell line as the pages write them, not all
// of bash: quotes and $(...) are taken out before it looks.
func shellSets(cmd string) []string {
	cmd = shQuotedRE.ReplaceAllString(cmd, "x")
	cmd = shCommentRE.ReplaceAllString(cmd, "")
	var names []string
	for _, part := range shListRE.Split(cmd, -1) {
		words := strings.Fields(part)
		if len(words) > 0 && words[0] == "export" {
			words = words[1:]
		}
		var set []string
		for _, w := range words {
			name, _, ok := strings.Cut(w, "=")
			if !ok || !shNameRE.MatchString(name) {
				set = nil // a command: the assignments were for it
				break
			}
			set = append(set, name)
		}
		names = append(names, set...)
	}
	return names
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

// runsBenchmarks reports whether cmd runs benchmarks, whose figures,
// verdicts and timings change from run to run.
func runsBenchmarks(cmd string) bool {
	if strings.Contains(cmd, "go test ") && strings.Contains(cmd, "-bench") {
		return true
	}
	args := patchbotArgs(cmd)
	return len(args) > 0 && (args[0] == "run" || args[0] == "bisect" || args[0] == "track" || args[0] == "bench" && !slices.Contains(args, "-old"))
}

// The parts of a benchmark run's output that change from run to run, on
// top of docVariable's: the figures, the verdicts (a row decided faster
// on a quiet machine may stay undecided on a busy one, and the review
// message then lists it under another heading), which row is the widest,
// today's freeze, and the tables' alignment. What is left is the
// output's shape: its steps, headings, rows, notes and messages, which
// is what a page can drift from.
var benchVariable = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(faster|slower): [+-][\d.]+% \[[^\]]*\]`), "VERDICT"},
	{regexp.MustCompile(`same within ±[\d.]+%`), "VERDICT"},
	{regexp.MustCompile(`not enough runs to tell|too noisy here to bound below ±[\d.]+%`), "VERDICT"},
	{regexp.MustCompile(`, paired\)`), ")"},
	{regexp.MustCompile(`(?m) (faster|slower|same|undecided|~)$`), " VERDICT"},
	// A bisection's benchmark rows: "Work-2 same +0.4% [-15.9%, +39.9%]".
	{regexp.MustCompile(`(?m)^(\s+\S+) (faster|slower|same|undecided) ([+-]\d)`), "$1 VERDICT $3"},
	{regexp.MustCompile(`"verdict": "(faster|slower|same|undecided)"`), `"verdict": "VERDICT"`},
	{regexp.MustCompile(`(?m)^\s*(Significantly (better|worse|changed)|No significant change|The same, within the bound each states|Too noisy here to tell \(undecided\)):\n`), ""},
	{regexp.MustCompile(`(?m)^(\s*- \S+) \(.*\)$`), "$1"},
	// The widest row is named only when it stands out from the median.
	{regexp.MustCompile(`; widest: \S+ (old|new) ± \d+%`), ""},
	{regexp.MustCompile(`(?m)^cpu: .*$`), "cpu: CPU"},
	{regexp.MustCompile(`[+-]?\d+(\.\d+)?(e[+-]\d+)?`), "N"},
	// "figures are medians of 6 to 12", or "of 6" when every row
	// stopped at one look.
	{regexp.MustCompile(`\bN to N\b`), "N"},
	{regexp.MustCompile(`(N%|VERDICT|~) \(p=N n=N\)`), "VERDICT (p=N n=N)"},
	{regexp.MustCompile(`[ \t]+`), " "},
	{regexp.MustCompile(`(?m)^ ?\n`), ""},
}

// benchShape returns the normalized output of a benchmark run with its
// figures and verdicts written as benchVariable says; with today
// (the run asks the freeze of today, not of -at), the freeze's answer
// too.
func benchShape(s string, today bool) string {
	if today {
		s = todayFreezeRE.ReplaceAllString(s, "${1}TODAY'S FREEZE")
	}
	for _, v := range benchVariable {
		s = v.re.ReplaceAllString(s, v.with)
	}
	// The review message's lists, their headings gone, as one list in
	// name order: which heading a benchmark is under is a verdict.
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "- ") {
			j++
		}
		slices.Sort(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// todayFreezeRE finds the freeze's answer in a run's output and message.
var todayFreezeRE = regexp.MustCompile(`(?m)^(\s*\S+: )The tree is .*$`)

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
	return matchLines(normalize(want), normalize(got))
}

// matchBench is matchOutput for the output of a command that runs
// benchmarks: what it compares is the output's shape (benchShape).
func matchBench(cmd, want, got string) bool {
	today := !strings.Contains(cmd, " -at ")
	return matchLines(benchShape(normalize(want), today), benchShape(normalize(got), today))
}

func matchLines(want, got string) bool {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	if want == "" {
		return got == ""
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
// (docVariable) and what the page shortens with "...". Of a command
// that runs benchmarks it compares the output's shape (benchShape). An
// example that cannot run here (a server it would start, the network, a
// file the page does not show) ends the page's session, and the next
// runnable one starts a new session; a page marks a block it knows
// cannot run with a comment before it, <!-- docs-test: skip: REASON -->,
// and a block that talks to GitHub with the fake it needs,
// <!-- docs-test: github OWNER/REPO PULL... -->. The test says how many
// examples it ran, and why it left each of the others out.
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
	caches := goCaches(t)
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
		// A shell variable that a left-out example sets ("B=story-...")
		// is not set for the examples that use it after it: they are
		// left out too.
		unset := map[string]bool{}
		for _, ex := range exs {
			if blockSkip[ex.block] == "" {
				for _, m := range docUseRE.FindAllStringSubmatch(ex.command, -1) {
					if unset[m[1]] {
						blockSkip[ex.block] = "uses $" + m[1] + ", which an example left out sets"
						break
					}
				}
			}
			if blockSkip[ex.block] != "" {
				for _, other := range exs {
					if other.block == ex.block {
						for _, name := range shellSets(other.command) {
							unset[name] = true
						}
					}
				}
			}
		}
		var sessions [][]docExample
		var cur []docExample
		for _, ex := range exs {
			if why := blockSkip[ex.block]; why != "" {
				skipped[why]++
				t.Logf("left out %s:%d: %s", ex.page, ex.line, why)
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
				runSession(t, root, bin, gerritDir, caches, entries, s)
			})
		}
	}
	t.Logf("ran %d examples of the pages; left out:", ran)
	for _, why := range slices.Sorted(maps.Keys(skipped)) {
		t.Logf("  %3d  %s", skipped[why], why)
	}
	// Floors a little under today's counts (92 without the test Gerrit,
	// 179 with it): fewer means the reading of the pages broke.
	// The floor fell from 170 when the pages were cut to their budgets
	// (examples that restated others went, 195 ran before).
	if floor := map[bool]int{true: 160, false: 85}[noGerrit == ""]; ran < floor {
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

// fakeGitHub starts the fake GitHub that the examples s talk to, as their
// page's mark says (docGitHubRE), and returns the environment that points
// patchbot at it: GITHUB_API_URL, and GITHUB_TOKEN, a token of the fake's
// bot. It returns nil when none of them talks to GitHub.
func fakeGitHub(t *testing.T, s []docExample) []string {
	spec := ""
	for _, ex := range s {
		if ex.github != "" && spec != "" && ex.github != spec {
			t.Fatalf("%s:%d: one session, two fake GitHubs (%s, %s): split the page's blocks", ex.page, ex.line, spec, ex.github)
		}
		if ex.github != "" {
			spec = ex.github
		}
	}
	if spec == "" {
		return nil
	}
	f := strings.Fields(spec)
	gh := reviewtest.NewGitHub(f[0])
	t.Cleanup(gh.Close)
	for _, pull := range f[1:] {
		if n, ok := strings.CutPrefix(pull, "#"); ok {
			num, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("%s: the fake GitHub's pull request %q is not #NUMBER", s[0].page, pull)
			}
			gh.SetHead(num, fmt.Sprintf("%040x", num))
			continue
		}
		var labels []string
		if l := strings.TrimPrefix(pull, "+"); l != "" {
			labels = strings.Split(l, ",")
		}
		gh.AddPullRequest(0, "open", labels...)
	}
	return []string{"GITHUB_API_URL=" + gh.URL, "GITHUB_TOKEN=" + reviewtest.Token}
}

// goCaches returns GOPATH, GOMODCACHE and GOCACHE as the go command
// sees them here, as environment entries.
func goCaches(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		t.Fatalf("go env GOPATH GOMODCACHE GOCACHE: %q", out)
	}
	return []string{"GOPATH=" + v[0], "GOMODCACHE=" + v[1], "GOCACHE=" + v[2]}
}

// TestBenchShape checks that two runs of the built-in example, one
// whose ReadInts was undecided and one whose ReadInts came out slower
// (a false alarm a busy machine can give; its lists in another order),
// have one shape; and that a changed note does not.
func TestBenchShape(t *testing.T) {
	quiet := `== bench: github.com/patchbot/patchbot/codec, up to 30 runs per side (-count auto) of 250ms, 20s
benchmark                           old ns/op     new ns/op     delta
BenchmarkReadInts/impl=codec-2      151           140           -7.10% undecided
BenchmarkWriteInts/impl=codec-2     173           103           -40.44% faster
spread: old ± 22%, new ± 16% (median of rows); widest: BenchmarkWriteInts/impl=codec-2 old ± 34%

-count auto: each benchmark ran until its time was decided, 6 to 30 runs a side (figures are medians of 6 to 12)

== freeze
master: The tree is frozen for Go 1.28 since 2026-11-23 (rule); it is expected to reopen around 2027-01-18.

    Significantly better:
    - WriteInts/impl=codec-2 (sec/op -40.44%, B/s 1.68x)

    Too noisy here to tell (undecided):
    - ReadInts/impl=codec-2 (±17%)

      ReadInts/impl=codec-2    151 ± 11%   140 ± 5%    too noisy here to bound below ±17% (n=12, paired)
      WriteInts/impl=codec-2   173 ± 34%   103 ± 26%   faster: -40.5% [-55.8%, -23.5%] (n=6)
      ReadInts/impl=codec-2    0 ± 0%       0 ± 0%       ~ (p=1.000 n=12)`
	busy := `== bench: github.com/patchbot/patchbot/codec, up to 30 runs per side (-count auto) of 250ms, 15s
benchmark                           old ns/op     new ns/op     delta
BenchmarkReadInts/impl=codec-2      136           159           +16.94% slower
BenchmarkWriteInts/impl=codec-2     197           102           -47.93% faster
spread: old ± 13%, new ± 24% (median of rows)

-count auto: each benchmark ran until its time was decided, 6 to 30 runs a side (figures are medians of 6)

== freeze
master: The tree is open for Go 1.29 development (rule); its freeze is expected to begin around 2027-05-24.

    Significantly worse:
    - ReadInts/impl=codec-2 (sec/op +16.94%, B/s 0.86x)

    Significantly better:
    - WriteInts/impl=codec-2 (sec/op -47.93%, B/s 1.92x)

      ReadInts/impl=codec-2    136 ± 9%   159 ± 12%    slower: +16.9% [+5.1%, +30.0%] (n=6)
      WriteInts/impl=codec-2   197 ± 34%   102 ± 26%   faster: -47.9% [-55.8%, -23.5%] (n=6)
      ReadInts/impl=codec-2    0 ± 0%       0 ± 0%       ~ (p=1.000 n=6)`
	if !matchBench("patchbot run", quiet, busy) {
		t.Errorf("two runs of one example differ in shape:\n%s\n----\n%s", benchShape(normalize(quiet), true), benchShape(normalize(busy), true))
	}
	if matchBench("patchbot run -at 2026-12-04", quiet, busy) {
		t.Errorf("with -at, the freeze's answer is not a variable part, but two answers matched")
	}
	if noNote := strings.Replace(busy, "-count auto: each", "each", 1); matchBench("patchbot run", quiet, noNote) {
		t.Errorf("a changed note matched")
	}
}

// TestShellSets checks how the docs test reads the variables a page's
// command sets.
func TestShellSets(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want []string
	}{
		{`B=story-$(git rev-parse --short HEAD)`, []string{"B"}},
		{`export A=$X B="y z"`, []string{"A", "B"}},
		{`PATCHBOT_GERRIT_USER=u PATCHBOT_GERRIT_PASSWORD=p patchbot post -change 12 msg.txt`, nil},
		{`P=$PWD   # the patchbot checkout`, []string{"P"}},
		{`cd $(mktemp -d) && T=1 && echo $T`, []string{"T"}},
		{`C=$(sed -n 's/x/y/p' push.log)`, []string{"C"}},
	} {
		if got := shellSets(tt.cmd); !slices.Equal(got, tt.want) {
			t.Errorf("shellSets(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// runSession runs the examples s of one page in one shell and checks
// what each prints.
func runSession(t *testing.T, root, bin, gerritDir string, caches []string, entries []os.DirEntry, s []docExample) {
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
		// The go command runs in the repository itself: go:embed
		// refuses the directory links of the session's.
		c = strings.ReplaceAll(c, "go test ", "go -C "+root+" test ")
		fmt.Fprintf(&script, "%s\n__status=$?; printf '\\n%s\\n'; (exit $__status)\n", c, docMarker)
	}
	// Two minutes, and two more for each example that runs benchmarks
	// (the built-in example's take 20 s on a quiet machine, a minute on
	// one running the rest of the suite).
	limit := 2 * time.Minute
	for _, ex := range s {
		if runsBenchmarks(ex.command) {
			limit += 2 * time.Minute
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
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
	if env := fakeGitHub(t, s); env != nil {
		cmd.Env = append(cmd.Env, env...)
	}
	// Go's caches stay the test's: a session's go test and the
	// benchmarks patchbot builds use the modules and builds already
	// there, rather than fetching and building all again in its home.
	cmd.Env = append(cmd.Env, caches...)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the session did not end in %v:\n%s", limit, out.String())
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
		match := matchOutput
		if runsBenchmarks(ex.command) {
			match = func(want, got string) bool { return matchBench(ex.command, want, got) }
		}
		if want := strings.Join(ex.output, "\n"); !match(want, p) {
			t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nthe command prints:\n%s", ex.page, ex.line, ex.command, want, p)
		}
	}
}
