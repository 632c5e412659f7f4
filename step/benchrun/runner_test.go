package benchrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// secrets are credential-looking variables of the kinds a patchbot worker
// holds: its own (GITHUB_TOKEN, the Gerrit account), and the usual ones
// of a CI machine.
var secrets = map[string]string{
	"GITHUB_TOKEN":             "ghp_secret1",
	"PATCHBOT_GERRIT_PASSWORD": "secret2",
	"PATCHBOT_GERRIT_USER":     "secret3",
	"GIT_COOKIES":              "secret4",
	"AWS_SECRET_ACCESS_KEY":    "secret5",
	"NPM_API_KEY":              "secret6",
	"GITHUB_PAT":               "secret7",
	"SSH_AUTH_SOCK":            "/tmp/secret8",
	"GIT_ASKPASS":              "/bin/secret9",
	"GOAUTH":                   "off",
}

// setSecrets sets secrets in the test's environment, and one variable to
// keep, PATCHBOT_TEST_KEEP.
func setSecrets(t *testing.T) {
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("PATCHBOT_TEST_KEEP", "kept")
}

// leaked returns the variables of env that carry one of secrets' names or
// values.
func leaked(env []string) []string {
	var bad []string
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		for k, v := range secrets {
			if name == k || strings.Contains(val, v) {
				bad = append(bad, kv)
			}
		}
	}
	return bad
}

// envTestGo has a benchmark that writes its environment into a file of
// its own in the directory $BENCHENV_DIR.
const envTestGo = `package sum

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkEnv(b *testing.B) {
	name := filepath.Join(os.Getenv("BENCHENV_DIR"), strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(name, []byte(strings.Join(os.Environ(), "\n")), 0o666); err != nil {
		b.Fatal(err)
	}
	for range b.N {
	}
}
`

// No credential of the caller's reaches a benchmark: each run of a real
// test binary writes down the environment it got.
func TestRunEnvironment(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", envTestGo)
	r.commit("sum: touch", "sum/sum.go", "// touched: the lines below move\n"+sumGo)
	setSecrets(t)
	envDir := t.TempDir()
	t.Setenv("BENCHENV_DIR", envDir)
	parentTmp := t.TempDir()
	t.Setenv("TMPDIR", parentTmp)

	o := quick(r.dir)
	o.Count, o.Benchtime = 2, "1x"
	o.Packages = []string{"./sum"} // the touch moved lines, which no benchmark can see
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %+v", res.Failures[0])
	}
	files, err := os.ReadDir(envDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("%d runs wrote their environment, want 4 (2 a side)", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(envDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		env := strings.Split(string(data), "\n")
		if bad := leaked(env); len(bad) > 0 {
			t.Errorf("a benchmark got credentials: %q", bad)
		}
		if !slices.Contains(env, "PATCHBOT_TEST_KEEP=kept") {
			t.Errorf("a benchmark lacks PATCHBOT_TEST_KEEP: the environment is not the caller's:\n%s", data)
		}
		for _, kv := range env {
			if name, val, _ := strings.Cut(kv, "="); (name == "TMPDIR" || name == "GOTMPDIR") &&
				!strings.HasPrefix(val, filepath.Join(parentTmp, "patchbot-bench-")) {
				t.Errorf("a benchmark got %s, not a directory of Run's in %s", kv, parentTmp)
			}
		}
	}
}

func TestCredentialName(t *testing.T) {
	for name := range secrets {
		if !credentialName(name) {
			t.Errorf("credentialName(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"GH_TOKEN", "CI_JOB_TOKEN", "DB_PASSWD", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
		"GERRIT_HTTP", "STRIPE_APIKEY", "SSH_ASKPASS", "NETRC", "SIGNING_KEY", "github_token"} {
		if !credentialName(name) {
			t.Errorf("credentialName(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"PATH", "HOME", "USER", "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS",
		"GOPROXY", "GOTOOLCHAIN", "LANG", "TERM", "PWD", "GIT_AUTHOR_NAME", "KEYBOARD_LAYOUT", "COMPASS", "XDG_CACHE_HOME"} {
		if credentialName(name) {
			t.Errorf("credentialName(%q) = true, want false", name)
		}
	}
}

// A recorder is a Runner that records each Command and runs it with
// Direct, unless refuse says no.
type recorder struct {
	mu     sync.Mutex
	calls  []string // "kind side package program"
	cmds   []Command
	refuse func(n int, c *Command) error
}

func (rec *recorder) Run(ctx context.Context, c *Command) error {
	rec.mu.Lock()
	n := len(rec.calls)
	rec.calls = append(rec.calls, fmt.Sprintf("%s %s %s %s", c.Kind, c.Side, c.Package, filepath.Base(c.Path)))
	rec.cmds = append(rec.cmds, *c)
	rec.mu.Unlock()
	if rec.refuse != nil {
		if err := rec.refuse(n, c); err != nil {
			return err
		}
	}
	// What the Command says it reads is there while it runs.
	for _, p := range append(slices.Clone(c.Writes), c.Reads...) {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("test runner: %v", err)
		}
	}
	return Direct(ctx, c)
}

var _ Runner = (*recorder)(nil)

// Every process Run starts goes through Options.Runner, with what a
// sandbox needs to know about it.
func TestRunner(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	setSecrets(t)
	rec := new(recorder)
	o := quick(r.dir)
	o.Count = 2
	o.Timeout = 3 * time.Minute
	o.Runner = rec
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if row := findRow(t, res, "sec/op", "Sum"); row.Old.N != 2 || row.New.N != 2 {
		t.Errorf("Sum: n = %d+%d, want 2+2", row.Old.N, row.New.N)
	}
	const pkg = "example.com/bench/sum"
	want := []string{
		"list new  go",
		"build old " + pkg + " go",
		"build new " + pkg + " go",
		// Interleaved: old new, then new old.
		"bench old " + pkg + " old-0.test",
		"bench new " + pkg + " new-0.test",
		"bench new " + pkg + " new-0.test",
		"bench old " + pkg + " old-0.test",
	}
	if !slices.Equal(rec.calls, want) {
		t.Errorf("the runner saw\n\t%s\nwant\n\t%s", strings.Join(rec.calls, "\n\t"), strings.Join(want, "\n\t"))
	}
	for _, c := range rec.cmds {
		if bad := leaked(c.Env); len(bad) > 0 {
			t.Errorf("%s: Env has credentials: %q", c.Kind, bad)
		}
		if !slices.Contains(c.Env, "TMPDIR="+c.TempDir) || !slices.Contains(c.Env, "GOTMPDIR="+c.TempDir) {
			t.Errorf("%s: Env does not point TMPDIR and GOTMPDIR at TempDir %s", c.Kind, c.TempDir)
		}
		if len(c.Writes) == 0 || c.Writes[0] != c.TempDir {
			t.Errorf("%s: Writes = %q, want TempDir first", c.Kind, c.Writes)
		}
		if c.Stdout == nil || c.Stderr == nil {
			t.Errorf("%s: nil Stdout or Stderr", c.Kind)
		}
		switch c.Kind {
		case ListCommand, BuildCommand:
			if c.Path != "go" || c.Timeout != 0 {
				t.Errorf("%s: Path %q, Timeout %v; want go, none", c.Kind, c.Path, c.Timeout)
			}
			if len(c.Reads) != 1 || !strings.HasPrefix(c.Dir, c.Reads[0]) {
				t.Errorf("%s: Reads = %q, want the checkout Dir %s is in", c.Kind, c.Reads, c.Dir)
			}
		case BenchCommand:
			if c.Timeout != o.Timeout {
				t.Errorf("bench: Timeout = %v, want %v", c.Timeout, o.Timeout)
			}
			if !slices.Equal(c.Reads, []string{c.Path}) || len(c.Writes) != 2 || !strings.HasPrefix(c.Dir, c.Writes[1]) {
				t.Errorf("bench: Reads %q, Writes %q; want the binary, and TempDir and the checkout Dir %s is in", c.Reads, c.Writes, c.Dir)
			}
			if c.Stdout != c.Stderr {
				t.Errorf("bench: Stdout and Stderr differ; want one stream")
			}
		}
	}
	if build := rec.cmds[1]; !slices.Contains(build.Writes, filepath.Dir(build.Args[slices.Index(build.Args, "-o")+1])) {
		t.Errorf("build: Writes = %q, lacks the directory of the binary (%q)", build.Writes, build.Args)
	}
}

// A Runner may refuse any process; Run then stops with the Runner's error,
// says where it was, starts nothing more and leaves nothing behind.
func TestRunnerRefuses(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	head := r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	refused := errors.New("sandbox: refused")
	tests := []struct {
		n    int // the call to refuse
		want string
	}{
		{0, "new side (HEAD): go list ./...: sandbox: refused"},
		{1, "old side (HEAD^, " + base[:12] + "): building ./sum: sandbox: refused"},
		{2, "new side (HEAD, " + head[:12] + "): building ./sum: sandbox: refused"},
		{5, "new side (HEAD, " + head[:12] + "): running the benchmarks of ./sum: sandbox: refused"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			rec := &recorder{refuse: func(n int, c *Command) error {
				if n == tt.n {
					return refused
				}
				return nil
			}}
			o := quick(r.dir)
			o.Count, o.Benchtime = 2, "1x"
			o.Runner = rec
			_, err := Run(context.Background(), o)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
			if len(rec.calls) != tt.n+1 {
				t.Errorf("the runner was called %d times, want %d: nothing after the refusal", len(rec.calls), tt.n+1)
			}
			filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
				if path != tmp {
					t.Errorf("left in TMPDIR: %s", path)
					return filepath.SkipAll
				}
				return nil
			})
		})
	}
}

// Direct gives a Command without Env an empty environment, not the
// caller's, and on Timeout kills the process's children too, before it
// returns.
func TestDirect(t *testing.T) {
	setSecrets(t)
	var out strings.Builder
	if err := Direct(context.Background(), &Command{Path: "env", Stdout: &out, Stderr: &out}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 0 {
		t.Errorf("a Command without Env ran with\n%s", out.String())
	}

	pidFile := filepath.Join(t.TempDir(), "pid")
	c := &Command{
		Path: "sh", Args: []string{"-c", `sleep 60 & echo $! > "$0"; wait`, pidFile},
		Env: []string{"PATH=" + os.Getenv("PATH")}, Timeout: 500 * time.Millisecond,
		Stdout: &out, Stderr: &out,
	}
	// The timeout shows in what it causes, not in the clock: the error
	// says the process was killed for it (sleep 60 run to its end would
	// give nil), and the child is gone.
	t0 := time.Now()
	err := Direct(context.Background(), c)
	t.Logf("Direct returned after %v", time.Since(t0).Round(time.Millisecond))
	if !errors.Is(err, ErrTimedOut) || err.Error() != "timed out: killed after 500ms" {
		t.Errorf("err = %v, want timed out: killed after 500ms", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("the child %d outlived the timeout", pid)
	}
}
