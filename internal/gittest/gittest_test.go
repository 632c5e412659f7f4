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

func TestRedact(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http.extraHeader=Authorization: Basic YWRtaW46c2VjcmV0", "http.extraHeader=REDACTED"},
		{"http.extraheader=Authorization: Bearer x", "http.extraheader=REDACTED"},
		{"https://admin:secret@localhost:8080/a/p", "https://admin:REDACTED@localhost:8080/a/p"},
		{"http://localhost:8080/a/p", "http://localhost:8080/a/p"},
		{"user.name=G", "user.name=G"},
		{"push", "push"},
	} {
		if got := Redact([]string{tt.in})[0]; got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOutputRedacts: a failing git's error names the command without the
// credential it was given, and carries git's own message.
func TestOutputRedacts(t *testing.T) {
	r := New(t)
	_, err := Output(r.Dir, nil, "-c", "http.extraHeader=Authorization: Basic c2VjcmV0", "fetch", "-q", "https://u:hunter2@127.0.0.1:1/x", "main")
	if err == nil {
		t.Fatal("fetch from a closed port succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "c2VjcmV0") || strings.Contains(msg, "hunter2") || !strings.Contains(msg, "git -c http.extraHeader=REDACTED fetch") {
		t.Errorf("error %q: want the command with its credentials redacted", msg)
	}
}

// TestEnvWins: a Repo's Env overrides the fixed identity.
func TestEnvWins(t *testing.T) {
	r := New(t)
	r.Env = []string{"GIT_AUTHOR_NAME=Gopher", "GIT_AUTHOR_EMAIL=gopher@example.com"}
	r.Commit("x", nil)
	if who := r.Git("log", "-1", "--format=%an <%ae>|%cn"); who != "Gopher <gopher@example.com>|G" {
		t.Errorf("author|committer %q, want Gopher's and G", who)
	}
}
