package example

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/testenv"
)

// repoRoot is the patchbot repository, two levels up.
var repoRoot = filepath.Join("..", "..")

func TestWriteBase(t *testing.T) {
	ctx := context.Background()
	dir1, dir2 := t.TempDir(), t.TempDir()
	base1, err := WriteBase(ctx, dir1)
	if err != nil {
		t.Fatal(err)
	}
	base2, err := WriteBase(ctx, dir2)
	if err != nil {
		t.Fatal(err)
	}
	if base1 != base2 {
		t.Errorf("two bases from the same sources differ: %s, %s", base1, base2)
	}

	// The base has the founding bug: the unsigned value types are missing
	// from fastSize's cases, and nothing else differs from today's codec.
	fast, err := os.ReadFile(filepath.Join(dir1, "codec", "fast.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"\tcase bool, int8, *bool, *int8, *uint8:\n", "\tcase int64, *int64, *uint64:\n"} {
		if !bytes.Contains(fast, []byte(line)) {
			t.Errorf("base codec/fast.go lacks %q", line)
		}
	}
	for _, name := range codecFiles(t) {
		if name == "fast.go" {
			continue
		}
		want, _ := os.ReadFile(filepath.Join(repoRoot, "codec", name))
		got, err := os.ReadFile(filepath.Join(dir1, "codec", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("base codec/%s differs from today's (err %v)", name, err)
		}
	}
	if out, _ := gitOutput(ctx, dir1, nil, nil, "status", "--porcelain"); out != "" {
		t.Errorf("base work tree not clean:\n%s", out)
	}

	// A second WriteBase into a used directory is refused.
	if _, err := WriteBase(ctx, dir1); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("WriteBase into a non-empty dir: err = %v", err)
	}
}

// TestNewRepo checks that the patch is exactly the fix: applied to the base,
// it gives today's codec/ byte for byte, with the changeset's metadata.
func TestNewRepo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base, head, err := NewRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if base == head {
		t.Fatal("head == base")
	}
	for _, name := range codecFiles(t) {
		want, _ := os.ReadFile(filepath.Join(repoRoot, "codec", name))
		got, err := os.ReadFile(filepath.Join(dir, "codec", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("head codec/%s differs from today's (err %v)", name, err)
		}
	}
	out, err := gitOutput(ctx, dir, nil, nil, "log", "-1", "--format=%an <%ae>|%ad|%s", "--date=iso-strict", head)
	if err != nil {
		t.Fatal(err)
	}
	want := "Pat Gopher <pat@example.com>|2014-11-06T10:32:00-08:00|codec: check for unsigned integers in fastSize"
	if out != want {
		t.Errorf("head commit:\n got %s\nwant %s", out, want)
	}
	files, _ := gitOutput(ctx, dir, nil, nil, "diff", "--name-only", base, head)
	if files != "codec/fast.go" {
		t.Errorf("patch touches %q, want codec/fast.go only", files)
	}
}

// TestBaseCompiles builds the base's codec with its tests and benchmarks,
// as patchbot bench will.
func TestBaseCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go package")
	}
	dir := t.TempDir()
	if _, err := WriteBase(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-c", "-o", filepath.Join(t.TempDir(), "codec.test"), "./codec")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c ./codec at the base: %v\n%s", err, out)
	}
}

// hashLine matches the lines of an hg export that name changeset hashes,
// which change whenever any codec file does.
var hashLine = regexp.MustCompile(`(?m)^(# Node ID|# Parent|diff -r) .*$`)

// TestPatchIsRegenerated runs docs/examples/mkexample.sh with real Mercurial
// and checks that it gives the committed patch, but for the changeset hashes
// (they cover all of codec/, so they change with any edit to it). A
// failure means codec/fast.go changed near fastSize: run the script.
func TestPatchIsRegenerated(t *testing.T) {
	_, err := exec.LookPath("hg")
	testenv.Need(t, testenv.Mercurial, err)
	out := filepath.Join(t.TempDir(), "example.patch")
	cmd := exec.Command("bash", filepath.Join(repoRoot, "docs", "examples", "mkexample.sh"), out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkexample.sh: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(b []byte) string { return hashLine.ReplaceAllString(string(b), "$1 …") }
	if strip(got) != strip(Patch()) {
		t.Errorf("docs/examples/mkexample.sh no longer gives %s; run it to regenerate the patch.\ngot:\n%s", PatchFile, got)
	}
}

func codecFiles(t *testing.T) []string {
	matches, err := filepath.Glob(filepath.Join(repoRoot, "codec", "*.go"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no codec sources: %v", err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	return names
}

func TestChangeset(t *testing.T) {
	tests := []struct{ date, want string }{
		{"# Date 1415298720 28800", "@1415298720 -0800"},
		{"# Date 1415298720 -19800", "@1415298720 +0530"},
		{"# Date 1415298720 0", "@1415298720 +0000"},
		{"# Date 1415298720 1800", "@1415298720 -0030"},
	}
	for _, tt := range tests {
		p := "# HG changeset patch\n# User A <a@b>\n" + tt.date + "\nsubject\n\nbody\n\ndiff -r 1 x\n"
		author, date, msg := changeset([]byte(p))
		if author != "A <a@b>" || date != tt.want || msg != "subject\n\nbody\n" {
			t.Errorf("changeset(%q) = %q, %q, %q; want A <a@b>, %q, subject…", tt.date, author, date, msg, tt.want)
		}
	}
}
