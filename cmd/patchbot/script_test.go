package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI contract (flags, output, exit codes) is tested by the scripts in
// testdata/script, one behaviour each; the logic underneath has Go tests in
// its own package. Set PATCHBOT_UPDATE_SCRIPTS=1 to rewrite the expected
// output in the scripts from a run.

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
	})
}

// scriptSetup gives each script a home of its own, a fixed git identity and
// the Go caches of the machine (so scripts that build Go code do not download
// or rebuild the world), with the network to the module proxy closed.
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o777); err != nil {
		return err
	}
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
	return nil
}
