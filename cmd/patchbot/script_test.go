package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/testenv"
)

// The CLI contract (flags, output, exit codes) is tested by the scripts in
// testdata/script, one behaviour each; the logic underneath has Go tests in
// its own package. Set PATCHBOT_UPDATE_SCRIPTS=1 to rewrite the expected
// output in the scripts from a run.

// testCacheHome is the tests' XDG_CACHE_HOME, where the sandbox keeps its
// build cache: one for all of them, kept between runs like GOCACHE.
var testCacheHome = filepath.Join(os.TempDir(), "patchbot-test-cache")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"patchbot": main,
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       os.Getenv("PATCHBOT_UPDATE_SCRIPTS") != "",
		RequireExplicitExec: true,
		Setup:               scriptSetup,
		Cmds:                scriptCmds(nil),
	})
}

// TestScriptsAlone runs the scripts in testdata/script/alone one at a time,
// after TestScripts has finished: they run real benchmarks and check their
// statistical verdicts, which the other scripts, running in parallel, would
// disturb on a small machine. Since a verdict may be wrong by chance, a
// script that fails is run once more, and only a second failure fails the
// test; each script states the rate of false failures that leaves.
func TestScriptsAlone(t *testing.T) {
	files, err := filepath.Glob("testdata/script/alone/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata/script/alone (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			p := testscript.Params{
				Files:               []string{file},
				UpdateScripts:       os.Getenv("PATCHBOT_UPDATE_SCRIPTS") != "",
				RequireExplicitExec: true,
				Setup: func(env *testscript.Env) error {
					env.Values[fakeGitHubKey{}] = new(fakeGitHubHolder)
					return scriptSetup(env)
				},
				Cmds: scriptCmds(map[string]func(*testscript.TestScript, bool, []string){"fakegithub": cmdFakeGitHub}),
			}
			if d, ok := t.Deadline(); ok {
				p.Deadline = d
			}
			first := &firstTry{t: t}
			first.run(p)
			switch {
			case first.skipped:
				t.Skip(first.skipWhy)
			case first.failed:
				t.Log("the first run failed (its log is above); running the script once more")
				testscript.Run(t, p)
			}
		})
	}
}

// A firstTry is the testscript.T of a script's first run: its log goes to
// t, marked, and its failure or skip is recorded rather than reported, so
// that the caller can run the script again. testscript ends a failed or
// skipped script with FailNow or Skip, which end the goroutine that run
// starts, as testing's end the test's.
type firstTry struct {
	t       *testing.T
	failed  bool
	skipped bool
	skipWhy string // what the script's skip said
}

// run runs the script of p, alone, on a goroutine of its own.
func (f *firstTry) run(p testscript.Params) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		testscript.RunT(f, p)
	}()
	<-done
}

func (f *firstTry) Run(name string, fn func(testscript.T)) { fn(f) }
func (f *firstTry) Helper()                                { f.t.Helper() }
func (f *firstTry) Name() string                           { return f.t.Name() }
func (f *firstTry) Log(args ...any)                        { f.t.Log(append([]any{"first run:"}, args...)...) }
func (f *firstTry) Fatal(args ...any)                      { f.Log(args...); f.FailNow() }
func (f *firstTry) FailNow()                               { f.failed = true; runtime.Goexit() }
func (f *firstTry) Skip(args ...any) {
	f.skipped, f.skipWhy = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *firstTry) Parallel()     {}
func (f *firstTry) Verbose() bool { return testing.Verbose() }

// scriptSetup gives each script a home of its own, a fixed git identity and
// the Go caches of the machine (so scripts that build Go code do not download
// or rebuild the world), with the network to the module proxy closed.
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o777); err != nil {
		return err
	}
	env.Values[scriptTKey{}] = env.T()
	env.Setenv("HOME", home)
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("GIT_AUTHOR_NAME", "Gopher")
	env.Setenv("GIT_AUTHOR_EMAIL", "gopher@example.com")
	env.Setenv("GIT_COMMITTER_NAME", "Gopher")
	env.Setenv("GIT_COMMITTER_EMAIL", "gopher@example.com")
	for _, key := range []string{"GOCACHE", "GOMODCACHE", "GOROOT"} {
		out, err := exec.Command("go", "env", key).Output()
		if err != nil {
			return err
		}
		env.Setenv(key, strings.TrimSpace(string(out)))
	}
	env.Setenv("GOPROXY", "off")
	env.Setenv("GOTOOLCHAIN", "local")
	env.Setenv("GOFLAGS", "-mod=mod")
	// The sandbox's own build cache (in the user's cache directory) is
	// shared by the scripts, and kept between runs like GOCACHE: filled,
	// it saves each sandboxed script a build of the standard library.
	env.Setenv("XDG_CACHE_HOME", testCacheHome)
	return nil
}

// serverScripts returns the parameters of the scripts in dir that talk to
// servers: the real Gerrit of scripts/gerrit-test-server, whose
// PATCHBOT_TEST_GERRIT_* environment they get and whose presence the
// condition [gerrit] tells, and the fakes their commands start. values
// puts what those commands share into each script's Values. They run apart
// from TestScripts, which knows neither the environment nor the commands.
func serverScripts(dir string, values func(map[any]any), cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		UpdateScripts:       os.Getenv("PATCHBOT_UPDATE_SCRIPTS") != "",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			if err := scriptSetup(env); err != nil {
				return err
			}
			for _, k := range []string{"URL", "USER", "PASSWORD", "PROJECT"} {
				env.Setenv("PATCHBOT_TEST_GERRIT_"+k, os.Getenv("PATCHBOT_TEST_GERRIT_"+k))
			}
			values(env.Values)
			return nil
		},
		Cmds: scriptCmds(cmds),
	}
}

// scriptCmds returns cmds with the commands every script may use: need.
func scriptCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	all := map[string]func(ts *testscript.TestScript, neg bool, args []string){"need": cmdNeed}
	maps.Copy(all, cmds)
	return all
}

// scriptTKey is the key of the script's test in its Values.
type scriptTKey struct{}

// cmdNeed is the command "need COMPONENT": the script needs a real
// component, gerrit (the test Gerrit of scripts/gerrit-test-server) or
// sandbox (bubblewrap). Without it the script skips, or fails when the run
// requires it (internal/testenv), as scripts/test does.
func cmdNeed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: need gerrit|sandbox")
	}
	t, ok := ts.Value(scriptTKey{}).(testenv.T)
	if !ok {
		ts.Fatalf("need: the script's Setup did not keep its test (scriptSetup does)")
	}
	switch args[0] {
	case "gerrit":
		testenv.Need(t, testenv.Gerrit, gerrittest.Missing())
	case "sandbox":
		_, err := exec.LookPath("bwrap")
		testenv.Need(t, testenv.Sandbox, err)
	default:
		ts.Fatalf("need: unknown component %q (gerrit, sandbox)", args[0])
	}
}
