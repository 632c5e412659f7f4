package serve_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The system tests (system_test.go, fault_test.go, gerrit_test.go,
// postgres_test.go, soak_test.go) run 'patchbot serve' as the process a
// user starts: the command built once per test run by TestMain and put on
// PATH as patchbot, started with its flags and the environment's
// credentials, stopped with SIGTERM, killed with SIGKILL as a crash does.
// Everything is checked from outside: its HTTP answers, its log, the fake
// GitHub's comments (step/review/reviewtest) and the real Gerrit's
// messages (internal/gerrittest).

// testCacheHome is the sandbox's build cache (XDG_CACHE_HOME), shared by
// the tests as cmd/patchbot's scripts share it: filled, it saves a build of
// the standard library per test.
var testCacheHome = filepath.Join(os.TempDir(), "patchbot-test-cache")

// patchbotBin is the command TestMain built.
var patchbotBin string

// raceBuild is whether the command is built with the race detector: when
// the test binary is (race_test.go).
var raceBuild bool

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "patchbot-serve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	patchbotBin = filepath.Join(dir, "patchbot")
	args := []string{"build", "-o", patchbotBin}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/patchbot/patchbot/cmd/patchbot")...)
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building patchbot for the system tests: %v\n%s", err, out)
		return 1
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}
