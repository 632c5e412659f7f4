package patchbot_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A docExample is a command shown in a page, with the output the page
// says it prints.
type docExample struct {
	page    string
	line    int
	command string // after "$ "
	output  []string
	files   map[string]string // the page's files, by name, before it
}

// docFileRE finds the name of a file a page defines in the sentence before
// a fenced block: "with a file `my.yaml`:".
var docFileRE = regexp.MustCompile("(?i)\\bfile `([\\w.-]+\\.(?:ya?ml|txt|json|patch))`[^`]*:\\s*$")

// readExamples returns the examples of a page: each "$ " line of an
// indented or fenced block, with the lines after it up to the next "$ "
// line or the block's end; and the files the page defines (a fenced block
// after a sentence that names it, "a file `NAME`:").
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
				if fileName != "" {
					files[fileName] = fileText.String()
					fileName = ""
				}
			} else {
				fence = true
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
		indented = inBlock && !fence
		if fence && fileName != "" {
			fileText.WriteString(line + "\n")
		}
		if !inBlock {
			end()
			prev = line
			continue
		}
		if cmd, ok := strings.CutPrefix(text, "$ "); ok {
			end()
			snapshot := map[string]string{}
			for k, v := range files {
				snapshot[k] = v
			}
			cur = &docExample{page: page, line: n, command: cmd, files: snapshot}
		} else if cur != nil {
			cur.output = append(cur.output, text)
		}
		prev = line
	}
	end()
	return exs
}

// Why an example is not run here; "" when it is.
func skipReason(ex docExample) string {
	cmd := ex.command
	switch {
	case strings.ContainsAny(cmd, "$|<>;&\\`~"):
		return "a shell command (variables, pipes, redirections) or a server's"
	case !strings.HasPrefix(cmd, "patchbot ") && !strings.HasPrefix(cmd, "go run ./cmd/patchbot "):
		return "not a patchbot command"
	}
	args := strings.Fields(cmd)
	if args[0] == "go" {
		args = args[3:]
	} else {
		args = args[1:]
	}
	for _, a := range args {
		if strings.Contains(a, "'") || strings.Contains(a, `"`) {
			return "quoted arguments"
		}
	}
	sub := args[0]
	switch {
	case sub == "run", sub == "port", sub == "serve":
		return "needs a repository, a patch or a server set up before it"
	case sub == "bench" && !slices.Contains(args, "-old"):
		return "runs benchmarks"
	case slices.Contains(args, "-github") && !strings.Contains(cmd, "127.0.0.1:1"):
		return "talks to GitHub (the page's fake)"
	case (sub == "freeze" || sub == "sweep") && !slices.Contains(args, "-at") && !slices.Contains(args, "-offline") && len(args) > 1:
		return "reads live signals (the network)"
	case sub == "freeze" && len(args) == 1:
		return "today's answer, from the network"
	}
	for _, a := range args {
		if ext := filepath.Ext(a); ext == ".yaml" || ext == ".txt" || ext == ".json" || ext == ".patch" {
			if _, err := os.Stat(a); err != nil && ex.files[a] == "" {
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
	{regexp.MustCompile(`go1\.\d+(\.\d+)?`), "go1.N"},
	{regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), "HASH"},
	{regexp.MustCompile(`\d+(\.\d+)?(ms|s|m)\b`), "DURATION"},
	{regexp.MustCompile(`(?m)[ \t]+$`), ""},
}

func normalize(s string) string {
	for _, v := range docVariable {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.TrimRight(s, "\n")
}

// TestDocExamples runs the examples of README.md and docs/ that need
// nothing set up before them, each in a directory of its own holding the
// page's files, and compares what they print with what the page shows,
// but for the parts that change from run to run (docVariable). It says how
// many it ran, and why it left each of the others out.
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds patchbot")
	}
	root, _ := os.Getwd()
	bin := filepath.Join(t.TempDir(), "patchbot")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/patchbot").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pages, _ := filepath.Glob("docs/*.md")
	pages = append([]string{"README.md"}, pages...)
	ran, skipped := 0, map[string]int{}
	for _, page := range pages {
		for _, ex := range readExamples(t, page) {
			if why := skipReason(ex); why != "" {
				skipped[why]++
				continue
			}
			ran++
			t.Run(fmt.Sprintf("%s:%d", page, ex.line), func(t *testing.T) {
				dir := t.TempDir()
				for name, text := range ex.files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				args := strings.Fields(ex.command)
				if args[0] == "go" {
					args = args[3:]
				} else {
					args = args[1:]
				}
				// Files of the repository the command names are there too.
				for i, a := range args {
					if _, err := os.Stat(filepath.Join(root, a)); err == nil && ex.files[a] == "" && strings.Contains(a, "/") {
						args[i] = filepath.Join(root, a)
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir,
					"GITHUB_TOKEN=", "GITHUB_ACTIONS=", "PATCHBOT_GERRIT_USER=", "PATCHBOT_GERRIT_PASSWORD=")
				var stdout, stderr, both strings.Builder
				cmd.Stdout = io.MultiWriter(&stdout, &both)
				cmd.Stderr = io.MultiWriter(&stderr, &both)
				cmd.Run()
				got := strings.ReplaceAll(both.String(), root+"/", "")
				want := strings.Join(ex.output, "\n")
				// A page shows what the command prints (the two streams
				// as they came, or stdout then stderr), or its stdout
				// alone where stderr says only the exit status.
				w := normalize(want)
				if normalize(got) != w && normalize(stdout.String()) != w &&
					normalize(strings.ReplaceAll(stdout.String()+stderr.String(), root+"/", "")) != w {
					t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nthe command prints:\n%s", ex.page, ex.line, ex.command, want, got)
				}
			})
		}
	}
	t.Logf("ran %d examples of the pages; left out:", ran)
	reasons := slices.Sorted(maps.Keys(skipped))
	for _, why := range reasons {
		t.Logf("  %3d  %s", skipped[why], why)
	}
	if ran < 15 {
		t.Errorf("ran %d examples: the reading of the pages broke", ran)
	}
}
