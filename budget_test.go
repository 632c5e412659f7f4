package patchbot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The docs' budgets (docs/README.md, "How these pages are written").
const (
	readmeWords = 600
	pageWords   = 2000
)

// overBudget are the pages not yet cut to pageWords, each with the count
// it may not grow past: a page that grows fails, and one that gets within
// the budget must leave this list. It only shrinks.
var overBudget = map[string]int{}

// TestBudgets holds the README and the pages to their budgets: the README
// within readmeWords with a picture of the result before its first
// section, every user's page within pageWords (docs/testing.md is the
// contributors', and no user's page), and the pages not cut yet to what
// they are now.
func TestBudgets(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := words(readme); n > readmeWords {
		t.Errorf("README.md has %d words, over its budget of %d: move the detail to a page of docs/ and link to it", n, readmeWords)
	}
	first, _, _ := strings.Cut(string(readme), "\n## ")
	if !strings.Contains(first, "![") {
		t.Error("README.md has no picture of the result before its first section")
	}

	pages, _ := filepath.Glob("docs/*.md")
	for _, page := range pages {
		name := filepath.Base(page)
		if name == "testing.md" {
			continue
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		n := words(data)
		switch ceiling, ok := overBudget[name]; {
		case !ok && n > pageWords:
			t.Errorf("%s has %d words, over a page's budget of %d", page, n, pageWords)
		case ok && n <= pageWords:
			t.Errorf("%s is within the budget now (%d words): take it off overBudget", page, n)
		case ok && n > ceiling:
			t.Errorf("%s has %d words, more than the %d it had while over the budget of %d: cut it, do not grow it", page, n, ceiling, pageWords)
		}
	}
}

// words counts the words of a page as wc -w does: runs of non-space.
func words(b []byte) int { return len(strings.Fields(string(b))) }
