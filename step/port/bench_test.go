package port

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
)

// BenchmarkPortLarge ports one changeset ('hg export --git' format) onto a
// repository holding the files it changes, with patchbot and with
// 'git am --patch-format=hg' on the same input and a fresh clone of the same
// repository each time, at two sizes: 1,000 files of 100 lines with 50
// changed lines each (a large change), and 100,000 files of 10 lines with
// 2 changed lines each (a tree-wide rename of a word, where a per-file cost
// that grows with the number of files would show):
//
//	go test -run XXX -bench PortLarge -benchtime 3x ./step/port
//
// docs/design/port.md reports the ratios.
func BenchmarkPortLarge(b *testing.B) {
	for _, size := range []struct {
		files, lines, changed int
	}{
		{1000, 100, 25}, // 25 lines replaced: 50 changed lines per file
		{100000, 10, 1},
	} {
		b.Run(fmt.Sprintf("files=%d", size.files), func(b *testing.B) {
			benchmarkPort(b, size.files, size.lines, size.changed)
		})
	}
}

// benchmarkPort runs BenchmarkPortLarge for one size: files files of
// linesPerFile lines, each patched by one hunk that replaces changedPerFile
// lines in the middle, with three lines of context on each side.
func benchmarkPort(b *testing.B, files, linesPerFile, changedPerFile int) {
	first := min(10, linesPerFile-changedPerFile-3) // the first replaced line, 0-based
	base := b.TempDir()
	var patch strings.Builder
	patch.WriteString("# HG changeset patch\n# User Gopher <gopher@golang.org>\n# Date 1412345678 -19800\n" +
		"# Node ID 0123456789abcdef0123456789abcdef01234567\n# Parent  fedcba9876543210fedcba9876543210fedcba98\n" +
		"all: a large change\n\nR=golang-dev\nhttps://codereview.appspot.com/1\n\n")
	for f := range files {
		name := fmt.Sprintf("pkg%02d/file%04d.go", f%50, f)
		if files > 10000 {
			name = fmt.Sprintf("pkg%03d/sub%02d/file%06d.go", f%100, f/100%20, f)
		}
		var text strings.Builder
		for l := range linesPerFile {
			fmt.Fprintf(&text, "line %d of %s\n", l, name)
		}
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, []byte(text.String()), 0o666); err != nil {
			b.Fatal(err)
		}
		// One hunk replacing lines first..first+changedPerFile-1, with 3
		// lines of context.
		fmt.Fprintf(&patch, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", name, name, name, name)
		fmt.Fprintf(&patch, "@@ -%d,%d +%d,%d @@\n", first-2, changedPerFile+6, first-2, changedPerFile+6)
		for l := first - 3; l < first; l++ {
			fmt.Fprintf(&patch, " line %d of %s\n", l, name)
		}
		for l := first; l < first+changedPerFile; l++ {
			fmt.Fprintf(&patch, "-line %d of %s\n", l, name)
		}
		for l := first; l < first+changedPerFile; l++ {
			fmt.Fprintf(&patch, "+LINE %d of %s\n", l, name)
		}
		for l := first + changedPerFile; l < first+changedPerFile+3; l++ {
			fmt.Fprintf(&patch, " line %d of %s\n", l, name)
		}
	}
	gittest.Git(b, base, "init", "-q", "-b", "main")
	gittest.Git(b, base, "add", "-A")
	gittest.Git(b, base, "commit", "-q", "-m", "base")
	patchFile := filepath.Join(b.TempDir(), "large.patch")
	if err := os.WriteFile(patchFile, []byte(patch.String()), 0o666); err != nil {
		b.Fatal(err)
	}
	data := []byte(patch.String())

	clone := func(b *testing.B) string {
		b.StopTimer()
		defer b.StartTimer()
		dir := filepath.Join(b.TempDir(), "work")
		gittest.Git(b, base, "clone", "-q", "--no-hardlinks", base, dir)
		return dir
	}
	var want string
	b.Run("patchbot", func(b *testing.B) {
		for range b.N {
			dir := clone(b)
			res, err := Port(context.Background(), &Options{Repo: dir}, []Input{{"large.patch", data}})
			if err != nil {
				b.Fatal(err)
			}
			want = res.Commits[0].Tree
		}
	})
	b.Run("gitam", func(b *testing.B) {
		for range b.N {
			dir := clone(b)
			if _, err := gittest.Output(dir, nil, "am", "-q", "--patch-format=hg", patchFile); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if got := gittest.Git(b, dir, "rev-parse", "HEAD^{tree}"); want != "" && got != want {
				b.Fatalf("git am made tree %s, patchbot %s", got, want)
			}
			b.StartTimer()
		}
	})
}
