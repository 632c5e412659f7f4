package port

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
)

// TestHgFixtures ports every fixture mkfixtures.sh makes onto a Git copy of
// its base and compares the resulting tree with the tree 'hg import' made.
func TestHgFixtures(t *testing.T) {
	patches, trees := hgFixtures(t)
	tests := []struct {
		name    string
		opts    Options
		commits int
		wantErr string // the patch must not apply; hg may disagree (see docs/port.md)
	}{
		{name: "export", commits: 1},
		{name: "series", commits: 3},
		{name: "git", commits: 1},
		{name: "binary", commits: 1},
		{name: "gitdelta", commits: 1},
		{name: "eol", commits: 1},
		{name: "eolplain", commits: 1},
		{name: "plain", commits: 1},
		{name: "review", commits: 1},
		{name: "offset", commits: 1},
		{name: "fuzz", commits: 1, opts: Options{Fuzz: 2}},
		{name: "merge", commits: 1},
		{name: "remap", commits: 1, opts: Options{Remaps: []Remap{{"src/pkg/", "src/"}}}},
		{name: "fuzz", wantErr: "f.txt: hunk 1 of 1 (@@ -27,7 +27,7 @@): context not found"},
		{name: "conflict", wantErr: "line 30: have \"line 30 changed elsewhere\\n\"", opts: Options{Fuzz: 2}},
		{name: "plainbinary", wantErr: "re-export the patch with 'hg export --git'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(patches, tt.name+".patch"))
			if err != nil {
				t.Fatal(err)
			}
			repo := gitRepoFrom(t, filepath.Join(trees, tt.name, "base"))
			before := snapshot(t, filepath.Join(repo, ".git"))
			opts := tt.opts
			opts.Repo = repo
			res, err := Port(context.Background(), &opts, []Input{{tt.name + ".patch", data}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Port: %v\nwant error containing %q", err, tt.wantErr)
				}
				sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Commits) != tt.commits {
				t.Fatalf("%d commits, want %d", len(res.Commits), tt.commits)
			}
			want := treeOf(t, repo, filepath.Join(trees, tt.name, "want"))
			got := gittest.Git(t, repo, "rev-parse", res.Branch+"^{tree}")
			if got != want {
				t.Errorf("tree %s, want %s (hg's); diff:\n%s", got, want, gittest.Git(t, repo, "diff", "--stat", want, got))
			}
			if tip := gittest.Git(t, repo, "rev-parse", res.Branch); tip != res.Head {
				t.Errorf("branch at %s, result says %s", tip, res.Head)
			}
			// The work tree, index and current branch are untouched.
			if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("work tree changed:\n%s", st)
			}
			if b := gittest.Git(t, repo, "symbolic-ref", "--short", "HEAD"); b != "main" {
				t.Errorf("current branch is %s, want main", b)
			}
			gittest.Git(t, repo, "fsck", "--strict", "--no-dangling")
		})
	}
}

// TestMetadata checks what the commits say: authors, dates with their
// zones, cleaned messages and Change-Ids, read back through real git.
func TestMetadata(t *testing.T) {
	patches, trees := hgFixtures(t)
	port := func(name string) (string, *Result) {
		data, err := os.ReadFile(filepath.Join(patches, name+".patch"))
		if err != nil {
			t.Fatal(err)
		}
		repo := gitRepoFrom(t, filepath.Join(trees, name, "base"))
		res, err := Port(context.Background(), &Options{Repo: repo}, []Input{{name + ".patch", data}})
		if err != nil {
			t.Fatal(err)
		}
		return repo, res
	}

	repo, res := port("export")
	got := run(t, repo, "git", "log", "-1", "--format=%an <%ae>%n%aI%n%cn <%ce> %cI%n%B", res.Branch)
	want := `Gopher <gopher@golang.org>
2014-10-03T07:14:38-07:00
Porter <porter@example.com> 2020-09-13T14:26:40+02:00
encoding/binary: add fast path for unsigned integers

intDataSize missed the unsigned types.
---
This line follows a '---' line and is still part of the message.

Fixes #8311.

Change-Id: ` + res.Commits[0].ChangeID + "\n\n"
	if got != want {
		t.Errorf("export commit:\n%s\nwant:\n%s", got, want)
	}
	if res.Branch != "port/"+res.Commits[0].Node[:12] {
		t.Errorf("branch %s, want port/ and the node", res.Branch)
	}

	repo, res = port("series")
	got = run(t, repo, "git", "log", "--reverse", "--format=%aI %s", "main.."+res.Branch)
	want = "2014-10-03T19:44:38+05:30 a: add line 11\n2014-10-03T19:59:39+05:45 a: name line one\n2014-10-04T03:59:40+13:45 b: new file\n"
	if got != want {
		t.Errorf("series:\n%s\nwant:\n%s", got, want)
	}

	repo, res = port("git")
	got = gittest.Git(t, repo, "cat-file", "-p", res.Branch)
	if !strings.Contains(got, "\nauthor gopher <> 1412345678 -0030\n") {
		t.Errorf("git commit (user without e-mail, zone -0030):\n%s", got)
	}
}

// TestZones checks that author zones survive go-git's encoding: go-git
// writes them with Format("-0700"), which is right, but decodes "-0030" as
// +0030, so patchbot never reads its zones back through go-git.
func TestZones(t *testing.T) {
	for _, zone := range []struct{ hg, git string }{
		{"1800", "-0030"}, {"-19800", "+0530"}, {"-20700", "+0545"}, {"-49500", "+1345"}, {"25200", "-0700"}, {"0", "+0000"},
	} {
		t.Run(zone.git, func(t *testing.T) {
			repo := t.TempDir()
			gittest.Git(t, repo, "init", "-q", "-b", "main")
			os.WriteFile(filepath.Join(repo, "f"), []byte("a\n"), 0o666)
			gittest.Git(t, repo, "add", "f")
			gittest.Git(t, repo, "commit", "-q", "-m", "base")
			patch := "# HG changeset patch\n# User Z <z@example.com>\n# Date 1412345678 " + zone.hg + "\nzone\n\n" +
				"diff -r 000000000000 f\n--- a/f\tdate\n+++ b/f\tdate\n@@ -1 +1 @@\n-a\n+b\n"
			res, err := Port(context.Background(), &Options{Repo: repo, Branch: "z"}, []Input{{"z.patch", []byte(patch)}})
			if err != nil {
				t.Fatal(err)
			}
			raw := gittest.Git(t, repo, "cat-file", "-p", res.Head)
			if !strings.Contains(raw, "> 1412345678 "+zone.git+"\n") {
				t.Errorf("author line for hg offset %s:\n%s\nwant zone %s", zone.hg, raw, zone.git)
			}
		})
	}
}

// TestIdempotent ports the same patch twice, and a patch already in the
// history.
func TestIdempotent(t *testing.T) {
	patches, trees := hgFixtures(t)
	data, err := os.ReadFile(filepath.Join(patches, "series.patch"))
	if err != nil {
		t.Fatal(err)
	}
	repo := gitRepoFrom(t, filepath.Join(trees, "series", "base"))
	first, err := Port(context.Background(), &Options{Repo: repo}, []Input{{"series.patch", data}})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Join(repo, ".git"))
	again, err := Port(context.Background(), &Options{Repo: repo}, []Input{{"series.patch", data}})
	if err != nil {
		t.Fatal(err)
	}
	if !again.UpToDate || again.Head != first.Head {
		t.Errorf("second port: up to date %v, head %s; want true, %s", again.UpToDate, again.Head, first.Head)
	}
	sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))

	// Onto a copy in another repository: same trees and Change-Ids.
	repo2 := gitRepoFrom(t, filepath.Join(trees, "series", "base"))
	other, err := Port(context.Background(), &Options{Repo: repo2, Branch: "elsewhere"}, []Input{{"series.patch", data}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range first.Commits {
		if first.Commits[i].Tree != other.Commits[i].Tree || first.Commits[i].ChangeID != other.Commits[i].ChangeID {
			t.Errorf("commit %d: tree %s / %s, Change-Id %s / %s", i, first.Commits[i].Tree, other.Commits[i].Tree, first.Commits[i].ChangeID, other.Commits[i].ChangeID)
		}
	}

	// With the branch merged, porting again finds every changeset present.
	gittest.Git(t, repo, "merge", "-q", "--ff-only", first.Branch)
	present, err := Port(context.Background(), &Options{Repo: repo, Branch: "again"}, []Input{{"series.patch", data}})
	if err != nil {
		t.Fatal(err)
	}
	if len(present.Commits) != 0 || len(present.Skipped) != 3 {
		t.Errorf("port of merged series: %d commits, %d already present; want 0, 3", len(present.Commits), len(present.Skipped))
	}

	// A branch of the same name with other content is not overwritten.
	gittest.Git(t, repo2, "branch", "-f", first.Branch, "main")
	_, err = Port(context.Background(), &Options{Repo: repo2}, []Input{{"series.patch", data}})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("port onto an existing branch: %v", err)
	}
}

// TestFailureReport checks that a patch that does not apply names every
// failing hunk, writes nothing, and writes rejects when asked.
func TestFailureReport(t *testing.T) {
	patches, trees := hgFixtures(t)
	data, err := os.ReadFile(filepath.Join(patches, "conflict.patch"))
	if err != nil {
		t.Fatal(err)
	}
	repo := gitRepoFrom(t, filepath.Join(trees, "conflict", "base"))
	before := snapshot(t, filepath.Join(repo, ".git"))
	rej := filepath.Join(t.TempDir(), "rej")
	_, err = Port(context.Background(), &Options{Repo: repo, RejectDir: rej}, []Input{{"conflict.patch", data}})
	var ae *ApplyError
	if !errors.As(err, &ae) {
		t.Fatalf("Port: %v, want an *ApplyError", err)
	}
	want := `conflict.patch: changeset 1 of 1 ("f, g: thirty and five") does not apply (1 failing hunk in 1 file); nothing was written:
  conflict.patch:12: f.txt: hunk 1 of 1 (@@ -27,7 +27,7 @@): context not found
      line 30: want "line 30\n"
      line 30: have "line 30 changed elsewhere\n"
The failing hunks are in ` + filepath.Join(rej, "f.txt.rej") + "."
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))
	got, err := os.ReadFile(filepath.Join(rej, "f.txt.rej"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "--- a/f.txt\n+++ b/f.txt\n@@ -27,7 +27,7 @@\n line 27\n") {
		t.Errorf("reject file:\n%s", got)
	}
}

// TestDryRun checks that -n computes the commits and writes nothing.
func TestDryRun(t *testing.T) {
	patches, trees := hgFixtures(t)
	data, err := os.ReadFile(filepath.Join(patches, "export.patch"))
	if err != nil {
		t.Fatal(err)
	}
	repo := gitRepoFrom(t, filepath.Join(trees, "export", "base"))
	before := snapshot(t, filepath.Join(repo, ".git"))
	res, err := Port(context.Background(), &Options{Repo: repo, DryRun: true}, []Input{{"export.patch", data}})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))
	if len(res.Commits) != 1 || !strings.HasPrefix(strings.Join(res.Actions, "\n"), "would write") {
		t.Errorf("dry run: %d commits, actions %q", len(res.Commits), res.Actions)
	}
	real, err := Port(context.Background(), &Options{Repo: repo}, []Input{{"export.patch", data}})
	if err != nil {
		t.Fatal(err)
	}
	if real.Commits[0].Tree != res.Commits[0].Tree {
		t.Errorf("dry run tree %s, real %s", res.Commits[0].Tree, real.Commits[0].Tree)
	}
}

// TestAlreadyAppliedByContent ports patches onto trees that already have
// their changes (made by hg, without a Change-Id): they are reported as
// present, not failed and not duplicated.
func TestAlreadyAppliedByContent(t *testing.T) {
	patches, trees := hgFixtures(t)
	for _, name := range []string{"export", "git", "plain", "eol", "offset"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(patches, name+".patch"))
			if err != nil {
				t.Fatal(err)
			}
			repo := gitRepoFrom(t, filepath.Join(trees, name, "want"))
			before := snapshot(t, filepath.Join(repo, ".git"))
			res, err := Port(context.Background(), &Options{Repo: repo}, []Input{{name + ".patch", data}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Commits) != 0 || len(res.Skipped) == 0 {
				t.Errorf("%d commits, %d skipped; want 0 and some", len(res.Commits), len(res.Skipped))
			}
			sameSnapshot(t, before, snapshot(t, filepath.Join(repo, ".git")))
		})
	}
}

// TestEmptyChangeset: a plain export of a mode-only change has no diff; the
// port refuses it rather than making an empty commit.
func TestEmptyChangeset(t *testing.T) {
	repo := gitRepoFrom(t, t.TempDir())
	patch := "# HG changeset patch\n# User u <u@example.com>\n# Date 1412345678 0\nchmod +x run.sh\n"
	_, err := Port(context.Background(), &Options{Repo: repo}, []Input{{"empty.patch", []byte(patch)}})
	if err == nil || !strings.Contains(err.Error(), "empty.patch:1: (no files): changeset has no diffs; if it changed only file modes, re-export it with 'hg export --git'") {
		t.Errorf("Port: %v", err)
	}
}

// TestRemapFile: a remap of a file renames that file only, not every path
// that starts with its name.
func TestRemapFile(t *testing.T) {
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "new.go"), []byte("a\n"), 0o666)
	os.WriteFile(filepath.Join(base, "new.go.orig"), []byte("a\n"), 0o666)
	repo := gitRepoFrom(t, base)
	patch := func(name string) []Input {
		return []Input{{"r.patch", []byte("--- a/" + name + "\n+++ b/" + name + "\n@@ -1 +1 @@\n-a\n+b\n")}}
	}
	opts := Options{Repo: repo, Remaps: []Remap{{"old.go", "new.go"}}, DryRun: true}
	res, err := Port(context.Background(), &opts, patch("old.go"))
	if err != nil || len(res.Remaps) != 1 || res.Remaps[0].To != "new.go" {
		t.Fatalf("port of old.go with old.go=new.go: %+v, %v; want it remapped to new.go", res, err)
	}
	if _, err := Port(context.Background(), &opts, patch("old.go.orig")); err == nil || !strings.Contains(err.Error(), "old.go.orig: file to change does not exist") {
		t.Errorf("port of old.go.orig with old.go=new.go: %v; want old.go.orig left alone (and missing)", err)
	}
}
