package repo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
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
