package gittest

import (
	"slices"
	"strings"
	"testing"
)

func TestRepo(t *testing.T) {
	r := New(t)
	hashes := r.History(2, nil)
	if len(hashes) != 3 || len(hashes[0]) != 40 {
		t.Fatalf("History(2) = %q, want 3 hashes", hashes)
	}
	if got := r.Git("log", "--format=%s", "main"); got != "commit 2\ncommit 1\ncommit 0" {
		t.Errorf("log: %q", got)
	}
	h := r.Commit("more", map[string]string{"a/b.go": "package a\n"})
	if r.Git("rev-parse", "HEAD") != h || !slices.Equal(r.Files(), []string{"a/b.go", "f.txt"}) {
		t.Errorf("after Commit: HEAD %s, files %q", r.Git("rev-parse", "HEAD"), r.Files())
	}
	if who := r.Git("log", "-1", "--format=%an <%ae>"); who != "G <g@example.com>" {
		t.Errorf("author %q, want the fixed identity", who)
	}
	if !strings.HasPrefix(r.Git("branch", "--show-current"), "main") {
		t.Errorf("branch %q", r.Git("branch", "--show-current"))
	}
}
