package port

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
)

var (
	diffCases = flag.Int("diffcases", 10, "number of random repositories TestDifferential builds")
	diffSeed  = flag.Uint64("diffseed", 1, "seed of TestDifferential's first case")
)

// TestDifferential builds random repositories and changes with real hg,
// exports them (git-style always, plain when the changes can be said
// plainly), ports them onto a Git copy of the base, and compares the trees
// with hg's, and the authors, dates and messages with the changesets'.
func TestDifferential(t *testing.T) {
	requireHg(t)
	n := *diffCases
	if testing.Short() {
		n = 3
	}
	for i := range n {
		seed := *diffSeed + uint64(i)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			differential(t, seed)
		})
	}
}

var (
	users = []string{"Ann Gopher <ann@golang.org>", "bob", "carol@example.com"}
	zones = []struct {
		hg  int
		git string
	}{{1800, "-0030"}, {-19800, "+0530"}, {-20700, "+0545"}, {-49500, "+1345"}, {25200, "-0700"}, {0, "+0000"}}
	words = []string{"alpha", "beta", "gamma", "}", "", "\treturn nil", "func f() {"}
)

func differential(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0))
	plain := r.IntN(2) == 0 // only changes a plain diff can carry
	hgDir := t.TempDir()
	run(t, hgDir, "hg", "init", "-q")

	randText := func() string {
		var b strings.Builder
		eol := "\n"
		if r.IntN(5) == 0 {
			eol = "\r\n"
		}
		for range 1 + r.IntN(30) {
			b.WriteString(words[r.IntN(len(words))] + eol)
		}
		s := b.String()
		if r.IntN(5) == 0 {
			s = strings.TrimSuffix(s, eol)
		}
		return s
	}
	files := func() []string {
		var names []string
		filepath.Walk(hgDir, func(p string, info os.FileInfo, err error) error {
			if info.IsDir() && info.Name() == ".hg" {
				return filepath.SkipDir
			}
			if info.Mode().IsRegular() && !strings.HasSuffix(p, ".bin") {
				rel, _ := filepath.Rel(hgDir, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		slices.Sort(names)
		return names
	}
	write := func(name, text string) {
		p := filepath.Join(hgDir, name)
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 + r.IntN(5) {
		write(fmt.Sprintf("d%d/f%d.txt", i%2, i), randText())
	}
	run(t, hgDir, "hg", "commit", "-q", "-A", "-m", "base", "-d", "1400000000 0")
	repo := gitRepoFrom(t, hgDir)
	os.RemoveAll(filepath.Join(repo, ".hg"))
	gittest.Git(t, repo, "add", "-A")
	gittest.Git(t, repo, "commit", "-q", "--amend", "-m", "base")

	type meta struct{ user, date, msg string }
	var metas []meta
	for cs := range 1 + r.IntN(3) {
		for range 1 + r.IntN(4) {
			names := files()
			if len(names) == 0 {
				write(fmt.Sprintf("new%d.txt", r.IntN(100)), randText())
				continue
			}
			name := names[r.IntN(len(names))]
			op := r.IntN(8)
			if plain && op >= 5 {
				op = 0
			}
			switch op {
			case 0, 1: // edit some lines
				data, _ := os.ReadFile(filepath.Join(hgDir, name))
				lines := strings.SplitAfter(string(data), "\n")
				for range 1 + r.IntN(3) {
					k := r.IntN(len(lines) + 1)
					switch r.IntN(3) {
					case 0:
						lines = slices.Insert(lines, k, words[r.IntN(len(words))]+"\n")
					case 1:
						if k < len(lines) {
							lines = slices.Delete(lines, k, k+1)
						}
					case 2:
						if k < len(lines) {
							lines[k] = "changed " + lines[k]
						}
					}
				}
				text := strings.Join(lines, "")
				if text == "" {
					text = "x\n"
				}
				write(name, text)
			case 2:
				write(fmt.Sprintf("d%d/n%d.txt", r.IntN(3), r.IntN(1000)), randText())
			case 3:
				if len(names) > 1 {
					os.Remove(filepath.Join(hgDir, name))
				}
			case 4:
				run(t, hgDir, "hg", "addremove", "-q")
				dst := fmt.Sprintf("d%d/m%d.txt", r.IntN(3), r.IntN(1000))
				if !slices.Contains(names, dst) {
					os.MkdirAll(filepath.Dir(filepath.Join(hgDir, dst)), 0o777)
					run(t, hgDir, "hg", "mv", "-q", name, dst)
				}
			case 5:
				run(t, hgDir, "hg", "addremove", "-q")
				dst := fmt.Sprintf("d%d/c%d.txt", r.IntN(3), r.IntN(1000))
				if !slices.Contains(names, dst) {
					os.MkdirAll(filepath.Dir(filepath.Join(hgDir, dst)), 0o777)
					run(t, hgDir, "hg", "cp", "-q", name, dst)
					f, _ := os.OpenFile(filepath.Join(hgDir, dst), os.O_APPEND|os.O_WRONLY, 0)
					f.WriteString("copy\n")
					f.Close()
				}
			case 6:
				p := filepath.Join(hgDir, name)
				info, _ := os.Stat(p)
				os.Chmod(p, info.Mode()^0o111)
			case 7:
				bin := make([]byte, 100+r.IntN(3000))
				for j := range bin {
					bin[j] = byte(r.IntN(4))
				}
				write(fmt.Sprintf("b%d.bin", r.IntN(3)), string(bin))
			}
		}
		m := meta{
			user: users[r.IntN(len(users))],
			msg:  fmt.Sprintf("change %d of seed %d\n\nBody.\n\nR=golang-dev\nCC=golang-dev\nhttps://codereview.appspot.com/%d", cs, seed, 1000+cs),
		}
		z := zones[r.IntN(len(zones))]
		m.date = fmt.Sprintf("%d %d", 1410000000+cs*1000, z.hg)
		if st := run(t, hgDir, "hg", "status"); st == "" {
			write(fmt.Sprintf("filler%d.txt", cs), "filler\n")
		}
		run(t, hgDir, "hg", "commit", "-q", "-A", "-m", m.msg, "-d", m.date, "-u", m.user)
		metas = append(metas, meta{m.user, z.git, m.msg})
	}
	want := treeOf(t, repo, hgDir)

	exports := []string{"--git"}
	if plain {
		exports = append(exports, "")
	}
	for _, style := range exports {
		args := []string{"hg", "export", "-r", "1:tip"}
		if style != "" {
			args = append(args, style)
		}
		patch := run(t, hgDir, args...)
		branch := "git"
		if style == "" {
			branch = "plain"
		}
		res, err := Port(context.Background(), &Options{Repo: repo, Branch: branch}, []Input{{"export" + style + ".patch", []byte(patch)}})
		if err != nil {
			t.Fatalf("port of 'hg export %s':\n%v\npatch:\n%s", style, err, patch)
		}
		if got := gittest.Git(t, repo, "rev-parse", branch+"^{tree}"); got != want {
			t.Fatalf("%s: tree %s, want hg's %s\n%s\npatch:\n%s", branch, got, want, gittest.Git(t, repo, "diff", "--stat", want, got), patch)
		}
		log := run(t, repo, "git", "log", "--reverse", "--format=%an <%ae>|%ad|%B%x00", "--date=format:%z", "main.."+branch)
		entries := strings.Split(strings.TrimSuffix(log, "\x00\n"), "\x00\n")
		if len(entries) != len(metas) {
			t.Fatalf("%s: %d commits, want %d", branch, len(entries), len(metas))
		}
		for i, e := range entries {
			name, email := parseUser(metas[i].user)
			subj, _, _ := strings.Cut(metas[i].msg, "\n")
			wantEntry := fmt.Sprintf("%s <%s>|%s|%s\n\nBody.\n\nChange-Id: %s\n", name, email, metas[i].date, subj, res.Commits[i].ChangeID)
			if e != wantEntry {
				t.Errorf("%s: commit %d:\n%q\nwant:\n%q", branch, i, e, wantEntry)
			}
		}
	}
}
