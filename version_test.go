package patchbot_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/patchbot/patchbot"
)

// TestVersion checks that patchbot.Version is the newest version in
// CHANGELOG.md, its first "## vX.Y.Z" heading.
func TestVersion(t *testing.T) {
	data, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (v\d+\.\d+\.\d+)\b`).FindSubmatch(data)
	if m == nil {
		t.Fatal("CHANGELOG.md has no ## vX.Y.Z heading")
	}
	if string(m[1]) != patchbot.Version {
		t.Errorf("CHANGELOG.md's newest version is %s, patchbot.Version %s: raise both together", m[1], patchbot.Version)
	}
}
