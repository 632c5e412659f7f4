package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gittest"
)

// These tests run the real patchbot binary (testscript's Main puts it in
// PATH) as separate processes on one repository: racing each other, and
// interrupted by a real SIGINT.

// portTestEnv is the environment of the processes: a home and identity of
// their own.
func portTestEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Gopher", "GIT_AUTHOR_EMAIL=gopher@example.com",
		"GIT_COMMITTER_NAME=Gopher", "GIT_COMMITTER_EMAIL=gopher@example.com", "LC_ALL=C")
}

// exportPatch is an 'hg export' of one changeset with node id node,
// changing line two of a.txt to text.
func exportPatch(node, text string) string {
	id := strings.Repeat(node, 4)[:40]
	return fmt.Sprintf("# HG changeset patch\n# User Gopher <gopher@golang.org>\n# Date 1412345678 0\n# Node ID %s\n# Parent  2222222222222222222222222222222222222222\na: %s\n\n"+
		"diff -r 222222222222 -r %s a.txt\n--- a/a.txt\tThu Jan 01 00:00:00 1970 +0000\n+++ b/a.txt\tThu Jan 01 00:00:00 1970 +0000\n@@ -1,2 +1,2 @@\n one\n-two\n+%s\n",
		id, text, id[:12], text)
}

// TestPortRacingProcesses runs 20 pairs of 'patchbot port -branch B', the
// two of a pair with different patches and the same branch, all at once.
// In every pair exactly one wins: its commit is on the branch, with one
// reflog entry; the other exits 1 saying another process created the
// branch. Nothing is left behind: git fsck --strict finds no dangling
// object, and no quarantine remains.
func TestPortRacingProcesses(t *testing.T) {
	env := portTestEnv(t)
	repo := t.TempDir()
	g := gittest.Open(t, repo)
	g.Env = env
	g.Git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\n"), 0o666)
	g.Git("add", "-A")
	g.Git("commit", "-q", "-m", "base")
	const pairs = 20
	type proc struct {
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
		err            error
	}
	procs := make([][2]*proc, pairs)
	for i := range pairs {
		for j := range 2 {
			name := filepath.Join(t.TempDir(), "p.patch")
			os.WriteFile(name, []byte(exportPatch(fmt.Sprintf("%02d%d", i, j)+"abcdef012", fmt.Sprintf("pair %d run %d", i, j))), 0o666)
			p := &proc{cmd: exec.Command("patchbot", "port", "-json", "-repo", repo, "-branch", fmt.Sprintf("b%02d", i), name)}
			p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = env, &p.stdout, &p.stderr
			procs[i][j] = p
		}
	}
	start := time.Now()
	for i := range pairs {
		for _, p := range procs[i] {
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range pairs {
		for _, p := range procs[i] {
			p.err = p.cmd.Wait()
		}
	}
	t.Logf("%d processes in %v", 2*pairs, time.Since(start))
	races := 0
	for i, pair := range procs {
		branch := fmt.Sprintf("b%02d", i)
		tip := g.Git("rev-parse", branch)
		won := 0
		for j, p := range pair {
			if p.err == nil {
				won++
				var res struct{ Head string }
				if err := json.Unmarshal(p.stdout.Bytes(), &res); err != nil {
					t.Fatalf("pair %d run %d: %v\n%s", i, j, err, p.stdout.String())
				}
				if res.Head != tip {
					t.Errorf("pair %d: run %d reported %s, but %s is at %s", i, j, res.Head, branch, tip)
				}
				continue
			}
			code := -1
			if ee, ok := p.err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			// It lost the race, or started after the other had won.
			msg := p.stderr.String()
			raced := fmt.Sprintf("patchbot port: branch %s was created by another process while this port ran (it is at ", branch)
			late := fmt.Sprintf("patchbot port: branch %s already exists (at %s) with other commits", branch, tip[:12])
			if strings.HasPrefix(msg, raced) {
				races++
			} else if !strings.HasPrefix(msg, late) {
				t.Errorf("pair %d run %d lost with:\n%s\nwant a line starting %q or %q", i, j, msg, raced, late)
			}
			if code != 1 || strings.Count(msg, "\n") != 1 {
				t.Errorf("pair %d run %d lost with exit %d and %d lines; want exit 1, one line", i, j, code, strings.Count(msg, "\n"))
			}
		}
		if won != 1 {
			t.Errorf("pair %d: %d runs succeeded, want 1", i, won)
		}
		if log := g.Git("reflog", "show", "--format=%H", branch); log != tip {
			t.Errorf("reflog of %s:\n%s\nwant one entry, %s", branch, log, tip)
		}
	}
	t.Logf("%d of %d pairs raced for the branch", races, pairs)
	if races == 0 {
		t.Errorf("no pair raced: the test did not test the race")
	}
	if out := g.Git("fsck", "--strict", "--dangling", "--no-reflogs"); strings.Contains(out, "dangling") {
		t.Errorf("git fsck:\n%s", out)
	}
	if q, _ := filepath.Glob(filepath.Join(repo, ".git/objects/tmp_objdir-*")); len(q) > 0 {
		t.Errorf("quarantines left: %v", q)
	}
}

// treeState returns every file and directory under dir with its mode and
// content (and a link's target), to compare a repository before and after.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + info.ModTime().String() + " " + string(data)
		}
		m[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPortSIGINT interrupts a large 'patchbot port -checkout' with a real
// SIGINT while it writes its objects: it exits 1 saying that nothing was
// written, and every file of the repository (under .git and in the work
// tree) is as it was, mtimes included.
func TestPortSIGINT(t *testing.T) {
	env := portTestEnv(t)
	repo := t.TempDir()
	g := gittest.Open(t, repo)
	g.Env = env
	g.Git("init", "-q", "-b", "main")
	const n = 3000
	var patch strings.Builder
	patch.WriteString("# HG changeset patch\n# User Gopher <gopher@golang.org>\n# Date 1412345678 0\n# Node ID 4444444444444444444444444444444444444444\n# Parent  2222222222222222222222222222222222222222\nall: large\n\n")
	for i := range n {
		name := fmt.Sprintf("d%02d/f%04d.txt", i%30, i)
		os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o777)
		os.WriteFile(filepath.Join(repo, name), fmt.Appendf(nil, "file %d\n", i), 0o666)
		fmt.Fprintf(&patch, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,1 +1,1 @@\n-file %d\n+FILE %d\n", name, name, name, name, i, i)
	}
	g.Git("add", "-A")
	g.Git("commit", "-q", "-m", "base")
	name := filepath.Join(t.TempDir(), "large.patch")
	os.WriteFile(name, []byte(patch.String()), 0o666)
	before := treeState(t, repo)

	cmd := exec.Command("patchbot", "port", "-checkout", "-repo", repo, name)
	var stdout, stderr bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
wait:
	for {
		select {
		case err = <-done:
			t.Fatalf("the port ended before its objects were written (%v):\n%s%s", err, stdout.String(), stderr.String())
		default:
		}
		// The quarantine has objects in it: interrupt now.
		if q, _ := filepath.Glob(filepath.Join(repo, ".git/objects/tmp_objdir-patchbot-*/??")); len(q) > 0 {
			cmd.Process.Signal(syscall.SIGINT)
			err = <-done
			break wait
		}
		time.Sleep(time.Millisecond)
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("interrupted port: %v, want exit 1\n%s%s", err, stdout.String(), stderr.String())
	}
	if msg := stderr.String(); !strings.HasPrefix(msg, "patchbot port: interrupted (") || !strings.HasSuffix(msg, "): nothing was written, the repository is as it was\n") {
		t.Errorf("stderr:\n%s", msg)
	}
	after := treeState(t, repo)
	for p, v := range after {
		if w, ok := before[p]; !ok {
			t.Errorf("interrupted port created %s", p)
		} else if w != v {
			t.Errorf("interrupted port changed %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("interrupted port removed %s", p)
		}
	}
}
