package port

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutKeepsUntracked: -checkout refuses, before writing anything, a
// port that adds a file the work tree has untracked, as git checkout does,
// rather than overwrite it.
func TestCheckoutKeepsUntracked(t *testing.T) {
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "a.txt"), []byte("a\n"), 0o666)
	repo := gitRepoFrom(t, base)
	os.WriteFile(filepath.Join(repo, "new.txt"), []byte("mine, not committed\n"), 0o666)
	before := snapshot(t, filepath.Join(repo, ".git"))
	patch := "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+from the patch\n"
	_, err := Port(context.Background(), &Options{Repo: repo, Checkout: true, Branch: "b"}, []Input{{"n.patch", []byte(patch)}})
	if err == nil || !strings.Contains(err.Error(), "new.txt") {
		t.Errorf("Port -checkout over an untracked new.txt: %v; want it refused", err)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "new.txt")); string(data) != "mine, not committed\n" {
		t.Errorf("untracked new.txt now holds %q", data)
	}
	sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))
}
