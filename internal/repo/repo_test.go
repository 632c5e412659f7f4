package repo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/remedy"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Open(sub)
	fe, ok := errors.AsType[*remedy.FieldError](err)
	if !ok || fe.Field != "repo" || fe.Value != sub {
		t.Fatalf("Open(%s) outside a repository = %v (%T); want a *remedy.FieldError for repo %q", sub, err, err, sub)
	}
	gittest.Git(t, dir, "init", "-q")
	if _, err := Open(sub); err != nil {
		t.Errorf("Open(%s), below the repository's root: %v", sub, err)
	}
	// A directory that does not exist is not the repository around it.
	for _, d := range []string{filepath.Join(dir, "nosuch"), filepath.Join(dir, "a", "file")} {
		os.WriteFile(filepath.Join(dir, "a", "file"), nil, 0o666)
		_, err := Open(d)
		if fe, ok := errors.AsType[*remedy.FieldError](err); !ok || fe.Field != "repo" {
			t.Errorf("Open(%s) = %v, want a *remedy.FieldError for repo", d, err)
		}
	}
}

func TestModulePath(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "x")
	if err := os.MkdirAll(sub, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := ModulePath(sub); err == nil {
		t.Errorf("ModulePath without a go.mod: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// a comment\nmodule \"example.com/m\" // the module\n\ngo 1.22\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, sub} {
		if p, err := ModulePath(d); p != "example.com/m" || err != nil {
			t.Errorf("ModulePath(%s) = %q, %v; want example.com/m", d, p, err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, "go.mod"), []byte("go 1.22\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if p, err := ModulePath(sub); err == nil {
		t.Errorf("ModulePath of a go.mod without a module line = %q, no error", p)
	}
}

func TestFirstParents(t *testing.T) {
	r := gittest.New(t)
	hashes := r.History(4, nil)
	// A side branch merged: its commit is no first parent.
	r.Git("checkout", "-q", "-b", "side", hashes[2])
	side := r.Commit("side", map[string]string{"side.txt": "x"})
	r.Git("checkout", "-q", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	g, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := Resolve(g, "main")
	if err != nil || Subject(head) != "merge side" {
		t.Fatalf("Resolve(main) = %v, %v", head, err)
	}
	names := func(list []*object.Commit) []string {
		var s []string
		for _, c := range list {
			s = append(s, Subject(c))
		}
		return s
	}
	for _, tt := range []struct {
		stop string // a hash, or ""
		max  int
		want []string
		end  int
	}{
		{"", 100, []string{"merge side", "commit 4", "commit 3", "commit 2", "commit 1", "commit 0"}, AtRoot},
		{hashes[2], 100, []string{"merge side", "commit 4", "commit 3"}, Stopped},
		{side, 100, []string{"merge side", "commit 4", "commit 3", "commit 2", "commit 1", "commit 0"}, AtRoot},
		{"", 2, []string{"merge side", "commit 4"}, AtMax},
	} {
		var stop func(*object.Commit) bool
		if tt.stop != "" {
			stop = func(c *object.Commit) bool { return c.Hash.String() == tt.stop }
		}
		list, end, err := FirstParents(head, stop, tt.max)
		if got := names(list); err != nil || end != tt.end || !slices.Equal(got, tt.want) {
			t.Errorf("FirstParents(stop %.7s, max %d) = %q, %d, %v; want %q, %d", tt.stop, tt.max, got, end, err, tt.want, tt.end)
		}
	}
	if _, err := Resolve(g, "nosuch"); err == nil {
		t.Errorf("Resolve(nosuch): no error")
	}
}
