package command

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// The parser against a renderer: goldmark (CommonMark 0.31.2 and GitHub
// Flavored Markdown's tables) parses a message, and the lines it shows as
// text of their own starting with Prefix, outside block quotes and code,
// must be the lines that the parser takes for commands.

// renderedCommandLines returns the lines of src that goldmark shows as
// the start of a line of text of a paragraph or heading, in no block
// quote, code span or <code> element, that starts with Prefix (after at
// most three spaces, U+200B and U+FEFF), as commandLine reads it. Lines
// indented four or more columns, or with a tab, are left out: in a
// paragraph GitHub shows them as text, but Gerrit shows them as
// preformatted, and Parse never takes them.
func renderedCommandLines(src string) []int {
	source := []byte(src)
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(source))
	lineOf := func(off int) int { return strings.Count(src[:off], "\n") + 1 }
	var lines []int
	var walk func(n ast.Node, code bool)
	walk = func(n ast.Node, code bool) {
		switch n.(type) {
		case *ast.Blockquote, *ast.CodeSpan, *east.TableCell, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.RawHTML:
				for i := range c.Segments.Len() {
					seg := c.Segments.At(i)
					tag := strings.ToLower(string(seg.Value(source)))
					switch {
					case strings.HasPrefix(tag, "<code") && (len(tag) == 5 || !tagNameByte(tag[5])):
						code = true
					case strings.HasPrefix(tag, "</code"):
						code = false
					}
				}
			case *ast.Text:
				if code {
					continue
				}
				start := c.Segment.Start
				ls := strings.LastIndexByte(src[:start], '\n') + 1
				le := strings.IndexByte(src[ls:], '\n')
				if le < 0 {
					le = len(src) - ls
				}
				l := strings.TrimSuffix(src[ls:ls+le], "\r")
				if strings.TrimLeft(l, " ") != src[start:ls+len(l)] {
					continue // not at the line's start
				}
				if _, ok := commandLine(l); ok && !strings.Contains(l[:len(l)-len(strings.TrimLeft(l, " \t"))], "\t") {
					lines = append(lines, lineOf(start))
				}
			default:
				walk(c, code)
			}
		}
	}
	walk(doc, false)
	slices.Sort(lines)
	return slices.Compact(lines)
}

// goldmarkDiffers are the cases of githubShows that goldmark renders
// otherwise than cmark-gfm (GitHub's renderer), and why.
var goldmarkDiffers = map[string]string{
	"quoted table ends": "goldmark continues a table in a quote with a lazy line; cmark-gfm ends the quote",
}

func parsedCommandLines(src string) []int {
	var lines []int
	for _, l := range commandLines(src) {
		lines = append(lines, l.n)
	}
	return lines
}

// TestRendered checks the parser against goldmark on every seed of the
// fuzz corpus, the cases of TestGitHubShows, and each example of the
// CommonMark spec (from goldmark's module) with a command line put after
// each of its lines in turn.
func TestRendered(t *testing.T) {
	var inputs []string
	for _, tt := range githubShows {
		if _, ok := goldmarkDiffers[tt.name]; !ok {
			inputs = append(inputs, tt.text)
		}
	}
	files, err := filepath.Glob("testdata/fuzz/FuzzParse/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		inputs = append(inputs, fuzzSeed(t, f))
	}
	for _, src := range inputs {
		if got, want := parsedCommandLines(src), renderedCommandLines(src); !slices.Equal(got, want) {
			t.Errorf("in %q\nthe parser takes lines %v, goldmark shows %v", src, got, want)
		}
	}
}

// TestRenderedSpec puts a command line after each line of each example
// of the CommonMark spec in turn and compares the parser with goldmark.
func TestRenderedSpec(t *testing.T) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yuin/goldmark").Output()
	if err != nil {
		t.Skipf("goldmark's module: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "_test", "spec.json"))
	if err != nil {
		t.Skip(err)
	}
	var examples []struct {
		Markdown string
		Example  int
		Section  string
	}
	if err := json.Unmarshal(data, &examples); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, e := range examples {
		lines := strings.Split(strings.TrimSuffix(e.Markdown, "\n"), "\n")
		for i := range len(lines) + 1 {
			for _, cmd := range []string{"/patchbot help", "  /patchbot help"} {
				src := strings.Join(slices.Concat(lines[:i], []string{cmd}, lines[i:]), "\n")
				if got, want := parsedCommandLines(src), renderedCommandLines(src); !slices.Equal(got, want) {
					bad++
					t.Errorf("example %d (%s) with a command on line %d: %q\nthe parser takes lines %v, goldmark shows %v", e.Example, e.Section, i+1, src, got, want)
				}
			}
		}
	}
	t.Logf("%d examples", len(examples))
}

// fuzzSeed reads the string of a file of the fuzz corpus.
func fuzzSeed(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, v, ok := strings.Cut(string(data), "\nstring(")
	if !ok {
		t.Fatalf("%s: no string", file)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(v), ")"))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

// FuzzRendered checks the parser against goldmark on any message: the
// lines it takes for commands are those goldmark shows as text of their
// own starting with Prefix. Its corpus is FuzzParse's.
func FuzzRendered(f *testing.F) {
	files, err := filepath.Glob("testdata/fuzz/FuzzParse/*")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		_, v, _ := strings.Cut(string(data), "\nstring(")
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(v), ")"))
		if err != nil {
			f.Fatalf("%s: %v", file, err)
		}
		f.Add(s)
	}
	for _, tt := range githubShows {
		if _, ok := goldmarkDiffers[tt.name]; !ok {
			f.Add(tt.text)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		if got, want := parsedCommandLines(src), renderedCommandLines(src); !slices.Equal(got, want) {
			t.Errorf("in %q\nthe parser takes lines %v, goldmark shows %v", src, got, want)
		}
	})
}
