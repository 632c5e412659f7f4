package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"text/template"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/testenv"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/sandbox"
)

// cacheDir is the sandbox's cache for the whole test binary: the first
// build in an empty one compiles the standard library (some 20 s).
var cacheDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "patchbot-sandbox-test-")
	if err != nil {
		panic(err)
	}
	cacheDir = dir
	code := m.Run()
	chmodTree(dir)
	os.RemoveAll(dir)
	os.Exit(code)
}

// newSandbox returns a sandbox with limits. Where bubblewrap cannot run it
// skips t, or fails t when the run requires the sandbox (testenv.Sandbox),
// as scripts/test does.
func newSandbox(t *testing.T, limits sandbox.Limits) *sandbox.Sandbox {
	t.Helper()
	s, err := sandbox.New(t.Context(), &sandbox.Options{CacheDir: cacheDir, Limits: limits})
	testenv.Need(t, testenv.Sandbox, err)
	return s
}

// gitRepo makes a repository in dir with the files of ar, templates
// filled in with data, in two commits that differ in a comment.
func gitRepo(t *testing.T, dir string, ar *txtar.Archive, data any) {
	t.Helper()
	git := gittest.Open(t, dir).Git
	git("init", "-q", "-b", "main")
	for _, f := range ar.Files {
		tmpl, err := template.New(f.Name).Parse(string(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := tmpl.Execute(&b, data); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "old")
	f, err := os.OpenFile(filepath.Join(dir, "ok", "ok_test.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n// new\n")
	f.Close()
	git("commit", "-q", "-am", "new")
}

// TestHostile benchmarks a module whose benchmarks attack the host, one
// attack per package, in the sandbox: each attack gets nothing or is
// killed with one line saying why, the harmless benchmark is still
// compared, and nothing of the host changed.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute of builds and kills; the race pass runs -short")
	}
	ar, err := txtar.ParseFile("testdata/hostile.txtar")
	if err != nil {
		t.Fatal(err)
	}

	// What the attacks aim at: a home with credentials, a token and a
	// canary in patchbot's environment, a listener on the host's
	// loopback, the host's module cache and toolchain.
	home := t.TempDir()
	for _, f := range []string{".gitcookies", ".netrc"} {
		os.WriteFile(filepath.Join(home, f), []byte("secret"), 0o600)
	}
	const canary = "patchbot-canary-5ad1e"
	t.Setenv("HOME", home)
	t.Setenv("GITHUB_TOKEN", "ghp_"+canary)
	t.Setenv("PATCHBOT_TEST_CANARY", canary)
	var conns atomic.Int32
	listen := func(network, addr string) string {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return ""
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				conns.Add(1)
				c.Close()
			}
		}()
		return ln.Addr().String()
	}
	goroot := strings.TrimSpace(goEnv(t, "GOROOT"))
	modcache := strings.TrimSpace(goEnv(t, "GOMODCACHE"))
	data := map[string]any{
		"Canary": canary, "Home": home, "ModCache": modcache, "SandboxCache": cacheDir, "GOROOT": goroot,
		"Listen": listen("tcp4", "127.0.0.1:0"), "Listen6": listen("tcp6", "[::1]:0"),
		"ForkTries": 200,
	}
	repo := t.TempDir()
	data["Repo"] = repo
	gitRepo(t, repo, ar, data)

	// The standard library compiled once with the default limits: with
	// the test's CPU limit, compiling the runtime could hit it.
	warm := newSandbox(t, sandbox.Limits{})
	if _, err := benchrun.Run(t.Context(), benchrun.Options{Dir: repo, Packages: []string{"./ok"}, Count: 1, Benchtime: "1x", Runner: warm}); err != nil {
		t.Fatal(err)
	}

	s := newSandbox(t, sandbox.Limits{Memory: 1 << 30, Processes: 128, CPU: 3 * time.Second, Output: 1 << 20})
	// A guard against a hang, not a bound on the time: each run has a
	// minute, and the limits end the hostile ones long before.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	res, err := benchrun.Run(ctx, benchrun.Options{
		Dir: repo, Packages: []string{"./..."}, Count: 1, Benchtime: "1x",
		Timeout: time.Minute, Runner: s,
	})
	if err != nil && ctx.Err() != nil {
		t.Fatalf("benchrun.Run hung: the hostile benchmarks had not finished within five minutes: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}

	text := res.String(benchrun.Benchcmp) + res.String(benchrun.Markdown) + res.String(benchrun.Gerrit) + res.String(benchrun.Benchstat)
	t.Logf("result:\n%s", res.String(benchrun.Benchcmp))
	if strings.Contains(text, "ESCAPED") || strings.Contains(text, canary) {
		t.Errorf("an attack got through:\n%s", text)
	}
	failed := map[string]string{}
	for _, f := range res.Failures {
		failed[strings.TrimPrefix(f.Package, "example.com/hostile/")+" "+f.Side] = f.Error
	}
	for _, side := range []string{"old", "new"} {
		for pkg, want := range map[string]string{
			"mem":   "killed: it used more than 1 GiB of memory (the sandbox's limit)",
			"spin":  "killed: it used more than 3s of CPU time (the sandbox's limit)",
			"flood": "killed: it wrote more than 1 MiB of output (the sandbox's limit)",
			"print": "exit status 1",
		} {
			if got := failed[pkg+" "+side]; got != want {
				t.Errorf("%s on the %s side: failure %q, want %q", pkg, side, got, want)
			}
		}
		for _, pkg := range []string{"ok", "env", "files", "net", "fork"} {
			if got, ok := failed[pkg+" "+side]; ok {
				t.Errorf("%s on the %s side failed: %s", pkg, side, got)
			}
		}
	}
	compared := map[string]bool{}
	for _, tb := range res.Tables {
		for _, r := range tb.Rows {
			if r.Compare != nil {
				compared[r.Name] = true
			}
		}
	}
	for _, b := range []string{"OK", "Env", "Files", "Net", "Fork"} {
		if !compared[b] && !compared[b+"-2"] && !hasPrefix(compared, b) {
			t.Errorf("Benchmark%s was not compared; compared: %v", b, compared)
		}
	}
	// Workflow commands from the benchmark's output are data: never at
	// the start of a line, where GitHub Actions would obey them.
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "::") {
			t.Errorf("a workflow command at the start of a line of the result: %q", line)
		}
	}
	if !strings.Contains(text, "::add-mask::hidden") {
		t.Errorf("the failing benchmark's output is not in the result:\n%s", text)
	}

	// The host.
	if n := conns.Load(); n != 0 {
		t.Errorf("the host's listener was reached %d times", n)
	}
	for _, d := range []string{home, repo, modcache, cacheDir, goroot, "/usr"} {
		if _, err := os.Stat(filepath.Join(d, "pwned-by-the-sandbox")); err == nil {
			t.Errorf("a file was written in %s", d)
		}
	}
	if out := gittest.Git(t, repo, "status", "--porcelain"); out != "" {
		t.Errorf("the repository changed:\n%s", out)
	}
	if left := sleepers(); left > 0 {
		t.Errorf("%d of the fork benchmark's processes are still running", left)
	}
	iso := res.Run.Isolation
	if iso.Sandbox == "" || !strings.Contains(iso.String(), "memory 1 GiB (cgroup") {
		t.Errorf("the result does not say the limits: %s", iso)
	}
}

func hasPrefix(m map[string]bool, p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// sleepers counts the processes running 'sleep 60', the fork benchmark's
// and TestRunCancel's.
func sleepers() int {
	n := 0
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		if b, _ := os.ReadFile(f); string(b) == "sleep\x0060\x00" {
			n++
		}
	}
	return n
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestMissingBwrap: without bubblewrap the error says to install it.
func TestMissingBwrap(t *testing.T) {
	_, err := sandbox.New(t.Context(), &sandbox.Options{Bwrap: filepath.Join(t.TempDir(), "bwrap"), CacheDir: cacheDir})
	var se *sandbox.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("New with no bwrap: %v, want a *SetupError saying how to install it", err)
	}
}

// TestNamespacesRefused: a bwrap that cannot make namespaces (here a
// script that fails as bwrap does then) gives an error naming the sysctls.
func TestNamespacesRefused(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bubblewrap 0.8.0'; exit 0; }\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := sandbox.New(t.Context(), &sandbox.Options{Bwrap: fake, CacheDir: cacheDir})
	if err == nil || !strings.Contains(err.Error(), "kernel.unprivileged_userns_clone") || !strings.Contains(err.Error(), "No permissions to create new namespace") {
		t.Fatalf("New with namespaces refused: %v", err)
	}
}

// TestModuleDownload benchmarks a module with a dependency: the sandbox,
// which has no network, builds it from the modules downloaded for it
// beforehand, outside, into its own module cache. The "proxy" is the
// host's module cache, read as a GOPROXY directory.
func TestModuleDownload(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module twice")
	}
	// A module proxy of one module, made from the module cache, where a
	// build (patchbot's own tests use go-cmp) leaves its .mod and .zip
	// but not always the .info that a proxy must have too.
	cached := filepath.Join(strings.TrimSpace(goEnv(t, "GOMODCACHE")), "cache", "download", "github.com", "google", "go-cmp", "@v")
	proxy := t.TempDir()
	at := filepath.Join(proxy, "github.com", "google", "go-cmp", "@v")
	if err := os.MkdirAll(at, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"v0.7.0.mod", "v0.7.0.zip"} {
		data, err := os.ReadFile(filepath.Join(cached, name))
		if err != nil {
			t.Skipf("go-cmp v0.7.0 is not in the module cache (go mod download github.com/google/go-cmp): %v", err)
		}
		if err := os.WriteFile(filepath.Join(at, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(at, "v0.7.0.info"), []byte(`{"Version":"v0.7.0"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(at, "list"), []byte("v0.7.0\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOPROXY", "file://"+proxy)
	t.Setenv("GOSUMDB", "off")
	ar := txtar.Parse([]byte(`
-- go.mod --
module example.com/dep

go 1.22

require github.com/google/go-cmp v0.7.0
-- go.sum --
github.com/google/go-cmp v0.7.0 h1:wk8382ETsv4JYUZwIsn6YpYiWiBsYLSJiTsyBybVuN8=
github.com/google/go-cmp v0.7.0/go.mod h1:pXiqmnSA92OHEEa9HXL2W4E7lf9JzCmGVUdgjX3N/iU=
-- ok/ok_test.go --
package ok

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func BenchmarkEqual(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if !cmp.Equal([]int{1, 2}, []int{1, 2}) {
			b.Fatal("not equal")
		}
	}
}
`))
	repo := t.TempDir()
	gitRepo(t, repo, ar, nil)
	s := newSandbox(t, sandbox.Limits{})
	res, err := benchrun.Run(t.Context(), benchrun.Options{Dir: repo, Packages: []string{"./ok"}, Count: 1, Benchtime: "1x", Runner: s})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 || len(res.Tables) == 0 {
		t.Fatalf("the benchmark of a module with a dependency did not run:\n%s", res.String(benchrun.Benchcmp))
	}
	if _, err := os.Stat(filepath.Join(cacheDir, "mod", "github.com", "google", "go-cmp@v0.7.0", "cmp", "compare.go")); err != nil {
		t.Errorf("the module is not in the sandbox's module cache: %v", err)
	}

	// With the download failing (no proxy), the run says what could
	// not be downloaded, and where: it does not fail obscurely inside.
	t.Setenv("GOPROXY", "off")
	if err := os.RemoveAll(filepath.Join(cacheDir, "mod", "cache", "download", "github.com", "google", "go-cmp")); err != nil {
		t.Fatal(err)
	}
	chmodTree(filepath.Join(cacheDir, "mod"))
	os.RemoveAll(filepath.Join(cacheDir, "mod", "github.com", "google"))
	s2 := newSandbox(t, sandbox.Limits{})
	_, err = benchrun.Run(t.Context(), benchrun.Options{Dir: repo, Packages: []string{"./ok"}, Count: 1, Benchtime: "1x", Runner: s2})
	if err == nil || !strings.Contains(err.Error(), "downloading the modules it needs (go mod download, outside the sandbox, without credentials)") || !strings.Contains(err.Error(), "go-cmp") {
		t.Fatalf("with no proxy: %v", err)
	}
}

// chmodTree makes the directories under dir writable, as the go command
// leaves the module cache's read-only.
func chmodTree(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
