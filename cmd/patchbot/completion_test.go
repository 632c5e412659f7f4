package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/testenv"
)

// completions runs the completion script of shell in that shell, asks it
// for the completions of line (the words so far, the last one being
// completed) in dir, and returns them.
func completions(t *testing.T, shell, dir string, line ...string) []string {
	t.Helper()
	var script bytes.Buffer
	if err := writeCompletion(&script, shell); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "patchbot."+shell)
	if err := os.WriteFile(file, script.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, w := range line {
		words = append(words, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
	}
	call := `COMP_WORDS=(` + strings.Join(words, " ") + `); COMP_CWORD=` + string(rune('0'+len(line)-1)) + `; _patchbot; printf '%s\n' "${COMPREPLY[@]}"`
	if shell == "zsh" {
		// As zsh's bashcompinit calls a bash completion function.
		call = `f() { emulate -L sh; ` + call + `; }; f`
	}
	cmd := exec.Command(shell, "-c", `source "$1"; `+call, shell, file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, out)
	}
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(out)), " ", "\x00"))
}

// TestCompletionBash runs the bash script in bash: commands, each
// command's flags (not the deprecated ones), help's and completion's
// words, and file names, one with a space in it.
func TestCompletionBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a result.json"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "another.json"), nil, 0o644)
	for _, tt := range []struct {
		line []string
		want []string
	}{
		{[]string{"patchbot", "be"}, []string{"bench"}},
		{[]string{"patchbot", "s"}, []string{"serve", "sweep"}},
		{[]string{"patchbot", "bench", "-cou"}, []string{"-count"}},
		{[]string{"patchbot", "freeze", "-f"}, []string{"-for"}},
		{[]string{"patchbot", "freeze", "-bra"}, nil}, // deprecated: not offered
		{[]string{"patchbot", "help", "sw"}, []string{"sweep"}},
		{[]string{"patchbot", "help", "sa"}, []string{"sandbox"}},          // a topic
		{[]string{"patchbot", "doc", "re"}, []string{"request", "review"}}, // pages
		{[]string{"patchbot", "completion", ""}, []string{"bash", "zsh"}},
		{[]string{"patchbot", "post", "a"}, []string{"a\x00result.json", "another.json"}},
	} {
		got := completions(t, "bash", dir, tt.line...)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: completions %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestCompletionZsh loads the zsh script in zsh, which registers it
// through bashcompinit, and asks it as zsh's completion system does. (zsh's
// compgen leaves the matching to the completion system, so the words here
// are all a command's: the ones asked for must be among them.)
func TestCompletionZsh(t *testing.T) {
	_, err := exec.LookPath("zsh")
	testenv.Need(t, testenv.Zsh, err)
	dir := t.TempDir()
	for _, tt := range []struct {
		line []string
		want string
	}{
		{[]string{"patchbot", "be"}, "bench"},
		{[]string{"patchbot", "bench", "-cou"}, "-count"},
		{[]string{"patchbot", "help", "sw"}, "sweep"},
	} {
		if got := completions(t, "zsh", dir, tt.line...); !slices.Contains(got, tt.want) {
			t.Errorf("%q: completions %q, want %s among them", tt.line, got, tt.want)
		}
	}
	// Sourced, it registers _patchbot with zsh's completion system.
	var script bytes.Buffer
	writeCompletion(&script, "zsh")
	file := filepath.Join(t.TempDir(), "patchbot.zsh")
	os.WriteFile(file, script.Bytes(), 0o644)
	cmd := exec.Command("zsh", "-c", `source "$1"; print -r -- "${_comps[patchbot]}"`, "zsh", file)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-F _patchbot") {
		t.Errorf("zsh: sourcing the script registers %q (%v), want the bash function _patchbot", out, err)
	}
}
