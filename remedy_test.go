package patchbot_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Patterns of what a message may name for its reader to use.
var (
	// A page of docs/ or a script of the repository: an installed
	// binary's user has neither; 'patchbot doc PAGE' prints a page.
	repoPathRE = regexp.MustCompile(`\b(?:docs/[\w-]+\.md|scripts/[\w-]+)`)
	// A command of the binary, as messages quote it: 'patchbot CMD'.
	commandRE = regexp.MustCompile(`'patchbot ([a-z][a-z-]*)(?: ([a-z][\w-]*))?`)
	// A setting of the configuration: a section's key path.
	settingRE = regexp.MustCompile(`\b((?:bench|review|freeze|serve|sweep|port|post)\.[a-z_]+(?:\.[a-z_]+)*)\b`)
	// What settingRE takes for a setting and is a host or a file name.
	hostLike = regexp.MustCompile(`\.(?:com|org|dev|net|md|go|txt|json)$`)
)

// TestRemedies walks every string in the code a user's message can come
// from (cmd, bot, job, step, config) and checks that what it names exists:
// each setting is a key of config.yaml, each 'patchbot CMD' a command the
// binary has ('patchbot doc PAGE' a page it carries), and no message
// points to a file of the repository (docs/X.md, scripts/X), which an
// installed binary's user does not have. Request fields are not settings:
// in braces in a message ({bench.packages}), the caller words them
// (internal/remedy), and a string with no space is a name, not a message.
func TestRemedies(t *testing.T) {
	keys := configKeys(t)
	commands := map[string]bool{}
	out, err := exec.Command("go", "run", "./cmd/patchbot", "help").Output()
	if err != nil {
		t.Fatalf("patchbot help: %v", err)
	}
	for _, m := range regexp.MustCompile(`(?m)^\t([a-z]+) `).FindAllStringSubmatch(string(out), -1) {
		commands[m[1]] = true
	}
	if !commands["bench"] || !commands["doc"] {
		t.Fatalf("patchbot help lists %v", commands)
	}
	pages := map[string]bool{}
	mds, _ := filepath.Glob("docs/*.md")
	for _, f := range mds {
		pages[strings.TrimSuffix(filepath.Base(f), ".md")] = true
	}

	braces := regexp.MustCompile(`\{[\w.\[\]]+\}`)
	n := 0
	for _, dir := range []string{"cmd", "bot", "job", "step", "config"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(node ast.Node) bool {
				lit, ok := node.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				n++
				where := fset.Position(lit.Pos()).String()
				if m := repoPathRE.FindString(s); m != "" {
					t.Errorf("%s: names %s, a file of the repository an installed binary's user does not have: say 'patchbot doc PAGE'", where, m)
				}
				for _, m := range commandRE.FindAllStringSubmatch(s, -1) {
					switch {
					case !commands[m[1]]:
						t.Errorf("%s: names 'patchbot %s', which is not a command", where, m[1])
					case m[1] == "doc" && m[2] != "" && !pages[m[2]]:
						t.Errorf("%s: names 'patchbot doc %s', which is not a page of docs/", where, m[2])
					}
				}
				if !strings.Contains(s, " ") {
					return true // a name (a request's field, a key), not a message
				}
				for _, m := range settingRE.FindAllString(braces.ReplaceAllString(s, ""), -1) {
					if !keys[m] && !hostLike.MatchString(m) {
						t.Errorf("%s: names the setting %s, which config.yaml does not have", where, m)
					}
				}
				return true
			})
			return nil
		})
	}
	if n < 1000 {
		t.Errorf("read %d strings: the walk missed the code", n)
	}
	t.Logf("%d strings read; %d settings, %d commands, %d pages known", n, len(keys), len(commands), len(pages))
}

// configKeys returns every key path of config.yaml ("bench.count",
// "freeze.live.downloads"); the keys of a list's items are under the
// list's path.
func configKeys(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(prefix, c)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i].Value
				if prefix != "" {
					key = prefix + "." + key
				}
				keys[key] = true
				walk(key, n.Content[i+1])
			}
		}
	}
	walk("", &doc)
	return keys
}
