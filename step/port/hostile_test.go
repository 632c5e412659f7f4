package port

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostile ports patches that try to write outside the work tree or
// into .git. Each must be refused with nothing written: the .git directory
// is compared file by file before and after.
func TestHostile(t *testing.T) {
	newFile := func(name string) string {
		return "diff --git a/" + name + " b/" + name + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1,1 @@\n+pwned\n"
	}
	link := func(name, target string) string {
		return "diff --git a/" + name + " b/" + name + "\nnew file mode 120000\n--- /dev/null\n+++ b/" + name +
			"\n@@ -0,0 +1,1 @@\n+" + target + "\n\\ No newline at end of file\n"
	}
	export := func(node, body string) string {
		return "# HG changeset patch\n# User u <u@example.com>\n# Date 1412345678 0\n# Node ID " + strings.Repeat(node, 40) + "\nm\n\n" + body
	}
	tests := []struct {
		name, patch, want string
	}{
		{"absolute", newFile("/etc/passwd"), `absolute path "/etc/passwd"`},
		{"dotdot", newFile("a/../../escape"), `contains '..'`},
		{"dotgit", newFile(".git/hooks/pre-commit"), "lies inside .git"},
		{"dotgit case", newFile("sub/.GIT/config"), "lies inside .git"},
		{"dotgit dot", newFile(".git./config"), "lies inside .git"},
		{"rename into git", "diff --git a/a.txt b/.git/config\nrename from a.txt\nrename to .git/config\n", "lies inside .git"},
		{"plain dotdot", "--- a/../x\tdate\n+++ b/../x\tdate\n@@ -1 +1 @@\n-a\n+b\n", `contains '..'`},
		{"through base symlink", newFile("out/evil"), "out is a symbolic link"},
		{"through new symlink", link("lnk", "/etc") + newFile("lnk/evil"), "lnk is a symbolic link"},
		{"through symlink of an earlier changeset", export("1", link("lnk", "..")) + export("2", newFile("lnk/evil")), "lnk is a symbolic link"},
		{"through a file", newFile("a.txt/evil"), "a.txt is a file"},
		{"review index", "Index: ../x\n====\nnew file mode 100644\n--- /dev/null\n+++ b/../x\n@@ -0,0 +1,1 @@\n+x\n", `contains '..'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			os.WriteFile(filepath.Join(base, "a.txt"), []byte("a\n"), 0o666)
			os.Symlink("/tmp", filepath.Join(base, "out"))
			repo := gitRepoFrom(t, base)
			before := snapshot(t, filepath.Join(repo, ".git"))
			rej := filepath.Join(t.TempDir(), "rej")
			_, err := Port(context.Background(), &Options{Repo: repo, RejectDir: rej}, []Input{{"hostile.patch", []byte(tt.patch)}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Port: %v\nwant an error containing %q", err, tt.want)
			}
			sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))
			if _, err := os.Stat(rej); err == nil {
				t.Errorf("reject directory written for a refused path")
			}
		})
	}
}
