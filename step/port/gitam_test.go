package port

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
)

var compare = flag.Bool("compare", false, "run TestCompareGit (git am and git apply on every fixture)")

// TestCompareGit runs 'git am --patch-format=hg' (and 'git apply' for the
// diffs without metadata) on every fixture and compares what they make with
// hg's tree and with patchbot's port: docs/design/port.md shows the table, which
// testdata/compare.golden keeps. It tests git more than patchbot, so it runs
// only with -compare (and -compare -update rewrites the golden file).
func TestCompareGit(t *testing.T) {
	if !*compare {
		t.Skip("run with -compare to compare git am and git apply on the fixtures")
	}
	patches, trees := hgFixtures(t)
	names, _ := filepath.Glob(filepath.Join(patches, "*.patch"))
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("| fixture | hg import | git am --patch-format=hg | git apply | patchbot port |\n|---|---|---|---|---|\n")
	for _, file := range names {
		name := strings.TrimSuffix(filepath.Base(file), ".patch")
		wantDir := filepath.Join(trees, name, "want")
		hasWant := exists(wantDir)
		cell := func(ok bool, tree string, repo string, msg string) string {
			switch {
			case !ok:
				return "fails: " + msg
			case !hasWant:
				return "applies (hg refuses)"
			case tree == treeOf(t, repo, wantDir):
				if msg != "" {
					return "same tree; " + msg
				}
				return "same tree"
			}
			return "**different tree**" + prefix("; ", msg)
		}
		hgCell := "applies"
		if !hasWant {
			hgCell = "fails"
		}
		if name == "plainbinary" {
			hgCell = "**drops the binary file silently**"
		}

		// git am
		repo := gitRepoFrom(t, filepath.Join(trees, name, "base"))
		_, err := gittest.Output(repo, nil, "am", "-q", "--patch-format=hg", file)
		am := ""
		if err != nil {
			_, msg, _ := strings.Cut(err.Error(), "\n") // git's own message
			am = cell(false, "", repo, firstLine(msg))
		} else {
			var notes []string
			total := len(strings.Fields(gittest.Git(t, repo, "rev-list", "HEAD"))) - 1
			want := max(strings.Count(string(must(os.ReadFile(file))), "# HG changeset patch"), 1)
			if total != want {
				notes = append(notes, fmt.Sprintf("%d commits for %d changesets", total, want))
			}
			msg := gittest.Git(t, repo, "log", "-1", "--format=%B")
			if strings.Contains(string(must(os.ReadFile(file))), "\n---\n") && !strings.Contains(msg, "still part of the message") {
				notes = append(notes, "message cut at '---'")
			}
			if strings.Contains(msg, "R=") || strings.Contains(msg, "codereview.appspot.com") {
				notes = append(notes, "review lines kept")
			}
			tree := gittest.Git(t, repo, "rev-parse", "HEAD^{tree}")
			am = cell(true, tree, repo, strings.Join(notes, ", "))
		}

		// git apply, for diffs without metadata
		apply := "—"
		if data := string(must(os.ReadFile(file))); !strings.HasPrefix(data, "# HG changeset patch") {
			repo := gitRepoFrom(t, filepath.Join(trees, name, "base"))
			_, err := gittest.Output(repo, nil, "apply", file)
			if err != nil {
				_, msg, _ := strings.Cut(err.Error(), "\n")
				apply = cell(false, "", repo, firstLine(msg))
			} else {
				apply = cell(true, treeOf(t, repo, repo), repo, "")
			}
		}

		// patchbot
		repo = gitRepoFrom(t, filepath.Join(trees, name, "base"))
		opts := Options{Repo: repo}
		if name == "remap" {
			opts.Remaps = []Remap{{"src/pkg/", "src/"}}
		}
		pb := ""
		res, err := Port(context.Background(), &opts, []Input{{name + ".patch", must(os.ReadFile(file))}})
		if err != nil && name == "fuzz" {
			opts.Fuzz = 2
			res, err = Port(context.Background(), &opts, []Input{{name + ".patch", must(os.ReadFile(file))}})
			pb = "with -fuzz 2: "
		}
		if err != nil {
			pb += cell(false, "", repo, firstLine(err.Error()))
		} else {
			note := fmt.Sprintf("%d commit%s", len(res.Commits), plural(len(res.Commits)))
			pb += cell(true, res.Commits[len(res.Commits)-1].Tree, repo, note)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, hgCell, am, apply, pb)
	}
	golden := "testdata/compare.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(b.String()), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run CompareGit -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("comparison changed:\n%s\nwant:\n%s", b.String(), want)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, "\n")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return "`" + s + "`"
}

func prefix(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
