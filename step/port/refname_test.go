package port

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitAcceptsBranch reports whether 'git check-ref-format --branch name',
// run outside any repository, accepts name.
func gitAcceptsBranch(t *testing.T, dir, name string) bool {
	t.Helper()
	cmd := exec.Command("git", "check-ref-format", "--branch", name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir), "GIT_DIR=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("git check-ref-format: %v", err)
		}
		if !strings.Contains(string(out), "is not a valid branch name") {
			t.Fatalf("git check-ref-format --branch %q: %v\n%s", name, err, out)
		}
		return false
	}
	if got := strings.TrimSuffix(string(out), "\n"); got != name {
		t.Fatalf("git check-ref-format --branch %q printed %q", name, got)
	}
	return true
}

// TestCheckBranchName checks the rules against the real git, name by name:
// the names of issue 10 and the edges of each rule.
func TestCheckBranchName(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		ok   bool // git accepts it
	}{
		{"x.lock", false}, {"foo.", false}, {"a/.b", false}, {"a@{1}", false},
		{"HEAD", false}, {"-x", false}, {"a..b", false}, {"a\tb", false},
		{"a\x01b", false}, {"a\x7fb", false}, {"a/", false}, {"/a", false},
		{"a//b", false}, {"", false}, {"a b", false}, {"a~1", false},
		{"a^", false}, {"a:b", false}, {"a?", false}, {"a*", false},
		{"a[b", false}, {"a\\b", false}, {".a", false}, {"a.lock/b", false},
		{"a/b.lock", false}, {"a/b.", false}, {"a@{", false}, {"@{", false},
		{"ok", true}, {"a/b", true}, {"port/0123456789ab", true},
		{"a.b", true}, {"a.lockx", true}, {"lock", true}, {".lockx/a", false},
		{"a@b", true}, {"@x", true}, {"x@", true}, {"a{b", true}, {"a}b", true},
		{"héllo", true}, {"a-", true}, {"a/-b", true}, {"HEAD/x", true},
		{"x/HEAD", true}, {"heads/x", true}, {"a/./b", false}, {"a/../b", false},
		// git takes these two; patchbot refuses them (branchNameProblem).
		{"@", true}, {"refs/heads/x", true},
	}
	for _, tt := range tests {
		if git := gitAcceptsBranch(t, dir, tt.name); git != tt.ok {
			t.Errorf("git check-ref-format --branch %q accepts: %v; the table says %v", tt.name, git, tt.ok)
		}
		if why := checkBranchName(tt.name); (why == "") != tt.ok {
			t.Errorf("checkBranchName(%q) = %q; git accepts: %v", tt.name, why, tt.ok)
		}
	}
	for _, name := range []string{"@", "refs/heads/x", "refs/x"} {
		if branchNameProblem(name) == "" {
			t.Errorf("branchNameProblem(%q) = \"\"; want it refused", name)
		}
	}
}

// TestCheckBranchNameDifferential compares checkBranchName with git on
// every name of up to three characters from an alphabet of the
// characters the rules are about, and on random longer ones.
func TestCheckBranchNameDifferential(t *testing.T) {
	dir := t.TempDir()
	alphabet := []string{"a", ".", "/", "@", "{", "-", "*", " ", "\x01", "\x7f", "\xc3\xa9", "~", "lock", ".lock", "HEAD"}
	names := []string{}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if prefix != "" {
			names = append(names, prefix)
		}
		if n == 0 {
			return
		}
		for _, s := range alphabet[:8] {
			gen(prefix+s, n-1)
		}
	}
	gen("", 3)
	rng := rand.New(rand.NewPCG(10, 10))
	for range 400 {
		var b strings.Builder
		for range 1 + rng.IntN(7) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		names = append(names, b.String())
	}
	for _, name := range names {
		git := gitAcceptsBranch(t, dir, name)
		if why := checkBranchName(name); (why == "") != git {
			t.Errorf("checkBranchName(%q) = %q; git accepts it: %v", name, why, git)
		}
	}
	t.Logf("%d names compared with git", len(names))
}
