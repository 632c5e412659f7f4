package patchbot_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// docDefaults marks a page's block of configuration that states the
// defaults: TestDocDefaults checks it against config.yaml.
const docDefaults = "<!-- docs-test: defaults -->"

// TestDocDefaults checks every block of configuration a page says is the
// defaults (marked docDefaults) against config.yaml: each key the block
// shows has config.yaml's value. A page that says `count: 20` where the
// default is auto fails here.
func TestDocDefaults(t *testing.T) {
	data, err := os.ReadFile("config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var defaults map[string]any
	if err := yaml.Unmarshal(data, &defaults); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("docs/*.md")
	marked := 0
	for _, page := range pages {
		for _, b := range defaultBlocks(t, page) {
			marked++
			var shown map[string]any
			if err := yaml.Unmarshal([]byte(b.text), &shown); err != nil {
				t.Errorf("%s:%d: the defaults block is not YAML: %v", page, b.line, err)
				continue
			}
			compare(t, fmt.Sprintf("%s:%d", page, b.line), "", shown, defaults)
		}
	}
	if marked < 2 {
		t.Errorf("%d blocks of defaults marked %s in docs/, want bench.md's and run.md's at least", marked, docDefaults)
	}
}

// compare reports each leaf of shown whose value is not want's at the
// same key.
func compare(t *testing.T, where, key string, shown, want any) {
	t.Helper()
	if m, ok := shown.(map[string]any); ok {
		w, ok := want.(map[string]any)
		if !ok {
			t.Errorf("%s: %s is not a section of config.yaml", where, key)
			return
		}
		for k, v := range m {
			wv, ok := w[k]
			if !ok {
				t.Errorf("%s: config.yaml has no key %s", where, strings.TrimPrefix(key+"."+k, "."))
				continue
			}
			compare(t, where, strings.TrimPrefix(key+"."+k, "."), v, wv)
		}
		return
	}
	if fmt.Sprint(shown) != fmt.Sprint(want) {
		t.Errorf("%s: %s: %v, but config.yaml's default is %v", where, key, shown, want)
	}
}

type block struct {
	line int
	text string
}

// defaultBlocks returns the indented blocks right after the marks
// docDefaults of page, unindented.
func defaultBlocks(t *testing.T, page string) []block {
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	marked := false
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == docDefaults:
			marked = true
		case cur != nil && (strings.HasPrefix(line, "    ") || strings.TrimSpace(line) == ""):
			cur.text += strings.TrimPrefix(line, "    ") + "\n"
		case cur != nil:
			out, cur = append(out, *cur), nil
		case marked && strings.HasPrefix(line, "    "):
			cur, marked = &block{line: n, text: strings.TrimPrefix(line, "    ") + "\n"}, false
		case marked && strings.TrimSpace(line) != "":
			t.Errorf("%s:%d: %s is followed by text, not by an indented block", page, n, docDefaults)
			marked = false
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}
