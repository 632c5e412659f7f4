package port

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/testenv"
)

// The tests use real git and real Mercurial in temporary directories, with
// a home and identities of their own.

func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "porttest-home-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Gopher",
		"GIT_AUTHOR_EMAIL":    "gopher@example.com",
		"GIT_COMMITTER_NAME":  "Porter",
		"GIT_COMMITTER_EMAIL": "porter@example.com",
		"GIT_COMMITTER_DATE":  "1600000000 +0200",
		"HGPLAIN":             "1",
		"HGRCPATH":            "/dev/null",
		"HGUSER":              "Gopher <gopher@example.com>",
		"TZ":                  "UTC",
		"LC_ALL":              "C",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

func requireHg(t testing.TB) {
	t.Helper()
	_, err := exec.LookPath("hg")
	testenv.Need(t, testenv.Mercurial, err)
}

// run runs a command in dir and returns its standard output.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return string(out)
}

// gitRepoFrom makes a Git repository whose one commit holds the files of
// dir (copied byte for byte, with modes and symbolic links).
func gitRepoFrom(t testing.TB, dir string) string {
	t.Helper()
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q", "-b", "main")
	gittest.Git(t, repo, "config", "core.autocrlf", "false")
	run(t, repo, "cp", "-a", dir+"/.", repo)
	gittest.Git(t, repo, "add", "-A")
	gittest.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "base")
	return repo
}

// treeOf returns the Git tree hash of the files in dir (without .hg),
// writing its objects into the repository repo (but not its index), so
// that 'git diff' can compare it with the port's tree.
func treeOf(t testing.TB, repo, dir string) string {
	t.Helper()
	g := gittest.Open(t, dir)
	g.Env = []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	in := []string{"--git-dir=" + filepath.Join(repo, ".git"), "--work-tree=.", "-c", "core.autocrlf=false"}
	g.Git(append(in, "add", "-A", "--", ".", ":!.hg")...)
	return g.Git(append(in, "write-tree")...)
}

var fixtures struct {
	once        sync.Once
	dir, trees  string
	err         error
	errOut      string
	cleanupDirs []string
}

// hgFixtures runs step/hgpatch/testdata/mkfixtures.sh once and returns
// the directory of patches and the directory of base and want trees.
func hgFixtures(t testing.TB) (patches, trees string) {
	t.Helper()
	requireHg(t)
	fixtures.once.Do(func() {
		d, err := os.MkdirTemp("", "porttest-fixtures-")
		if err != nil {
			fixtures.err = err
			return
		}
		fixtures.dir = filepath.Join(d, "patches")
		fixtures.trees = filepath.Join(d, "trees")
		os.MkdirAll(fixtures.dir, 0o777)
		os.MkdirAll(fixtures.trees, 0o777)
		script, _ := filepath.Abs("../hgpatch/testdata/mkfixtures.sh")
		out, err := exec.Command(script, fixtures.dir, fixtures.trees).CombinedOutput()
		fixtures.err, fixtures.errOut = err, string(out)
	})
	if fixtures.err != nil {
		t.Fatalf("mkfixtures.sh: %v\n%s", fixtures.err, fixtures.errOut)
	}
	return fixtures.dir, fixtures.trees
}

// snapshot returns the content of every file under dir (a .git directory),
// to prove that a failed port changed nothing.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[p] = info.Mode().String() + info.ModTime().String() + string(data)
		} else {
			m[p] = info.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameSnapshot(t testing.TB, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if w, ok := before[p]; !ok {
			t.Errorf("failed port created %s", p)
		} else if w != v {
			t.Errorf("failed port changed %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("failed port removed %s", p)
		}
	}
}

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the tests' output")
