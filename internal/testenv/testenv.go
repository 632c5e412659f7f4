// Package testenv decides, in one place, what a test does when a real
// component it needs is missing: the test Gerrit, the test PostgreSQL,
// bubblewrap, shellcheck, Mercurial, the real webhook payloads, the
// Actions runner act and the workflow auditor zizmor, zsh.
//
// Under 'go test' alone a test without its component skips, with a message
// that names the script that provides it. Under scripts/test, which installs
// and starts every component and sets PATCHBOT_TEST_REQUIRE_<NAME> for each,
// the same test fails instead: a component that did not start can never
// turn its tests into silent skips and leave the run green.
//
// Each test that finds its component records it in the file named by
// PATCHBOT_TEST_USES, when set, one "NAME<TAB>PACKAGE<TAB>TEST" line each,
// so that scripts/test can say at its end how many tests ran against each
// component (internal/cmd/testreport).
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A Component is a real program or server that some tests need.
type Component struct {
	// Name is the component's short name: the suffix of its
	// PATCHBOT_TEST_REQUIRE_ variable (upper-cased, a hyphen made an
	// underscore) and its name in the suite's summary.
	Name string
	// What names it in a sentence.
	What string
	// Remedy says how to get it, for the message of a test that skips.
	Remedy string
}

// The components, as scripts/test provides them.
var (
	Gerrit     = Component{"gerrit", "the test Gerrit", `start it: eval "$(scripts/gerrit-test-server start)" (scripts/test does it; see docs/testing.md)`}
	Postgres   = Component{"postgres", "the test PostgreSQL", `start it: eval "$(scripts/postgres-test-server start)" (scripts/test does it)`}
	Sandbox    = Component{"sandbox", "the sandbox (bubblewrap)", `install bubblewrap (apt-get install bubblewrap; scripts/test does it) and allow user namespaces (docs/sandbox.md)`}
	Shellcheck = Component{"shellcheck", "shellcheck", `install it (apt-get install shellcheck; scripts/test does it)`}
	Mercurial  = Component{"mercurial", "Mercurial (hg)", `install it (apt-get install mercurial; scripts/test does it)`}
	// WebhookExamples are the real payloads of the npm package
	// @octokit/webhooks-examples, which bot/serve feeds through the
	// webhook; the script fetches a pinned version and checks it.
	WebhookExamples = Component{"webhook-examples", "the npm package @octokit/webhooks-examples (real webhook payloads)",
		`fetch it: eval "$(scripts/fetch-webhook-examples)" (scripts/test does it)`}
	// Act is nektos/act, a GitHub Actions runner that runs workflows on
	// this machine (host mode, no Docker): action_act_test.go runs the
	// action and the example workflows in it.
	Act = Component{"act", "nektos/act (a GitHub Actions runner)", `install it: go install github.com/nektos/act@v0.2.89 (scripts/test does it)`}
	// Zsh is the shell whose completion script patchbot prints too.
	Zsh = Component{"zsh", "zsh", `install it (apt-get install zsh; scripts/test does it)`}
	// Zizmor is the workflow auditor zizmor, from PyPI.
	Zizmor = Component{"zizmor", "zizmor (a GitHub Actions auditor)", `install it: pip install zizmor==1.32.0, on PATH or at the path PATCHBOT_ZIZMOR names (scripts/test does it)`}
)

// All lists every component, in the order of the suite's summary.
var All = []Component{Gerrit, Postgres, Sandbox, Shellcheck, Mercurial, WebhookExamples, Act, Zizmor, Zsh}

// RequireVar returns the environment variable that makes c required: a
// name a shell can export, so a hyphen in c's name is an underscore there.
func (c Component) RequireVar() string {
	return "PATCHBOT_TEST_REQUIRE_" + strings.ToUpper(strings.ReplaceAll(c.Name, "-", "_"))
}

// Required reports whether the environment requires c: a test that cannot
// have it fails rather than skips.
func (c Component) Required() bool { return os.Getenv(c.RequireVar()) != "" }

// UsesVar names the file where tests record the components they ran against.
const UsesVar = "PATCHBOT_TEST_USES"

// A T is what Need needs of a test: a *testing.T or *testing.B, or the
// testscript.T a script runs under (cmd/patchbot's need command).
type T interface {
	Helper()
	Name() string
	Log(args ...any)
	Skip(args ...any)
	Fatal(args ...any)
}

// Need states that t needs c. With missing nil, c is there: Need records
// that t runs against it. Otherwise t stops: it fails when c is required
// and skips when not, with one message naming c, why it is missing and how
// to get it.
func Need(t T, c Component, missing error) {
	t.Helper()
	if missing == nil {
		record(c, t.Name())
		return
	}
	if c.Required() {
		t.Fatal(message(c, missing) + " (" + c.RequireVar() + " is set: the run requires it)")
	}
	t.Skip(message(c, missing))
}

// Have is Need for a test that does part of its work without c: where Need
// would skip t, Have logs why and returns false.
func Have(t T, c Component, missing error) bool {
	t.Helper()
	if missing == nil || c.Required() {
		Need(t, c, missing)
		return true
	}
	t.Log(message(c, missing) + "; the parts that need it are left out")
	return false
}

func message(c Component, missing error) string {
	return fmt.Sprintf("%s is missing: %v; %s", c.What, missing, c.Remedy)
}

var recordMu sync.Mutex

// record appends "NAME\tPACKAGE\tTEST" to the uses file, if there is one.
// A test binary runs in its package's directory, which names the package.
func record(c Component, test string) {
	file := os.Getenv(UsesVar)
	if file == "" {
		return
	}
	pkg := packageDir()
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		// The summary then undercounts; the test itself is unaffected.
		fmt.Fprintf(os.Stderr, "testenv: recording a use of %s: %v\n", c.Name, err)
		return
	}
	fmt.Fprintf(f, "%s\t%s\t%s\n", c.Name, pkg, test)
	f.Close()
}

// packageDir returns the working directory relative to the module's root
// (the directory with go.mod above it), "." for the root itself, or the
// absolute path when there is no module above.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			rel, err := filepath.Rel(d, wd)
			if err != nil {
				return wd
			}
			return filepath.ToSlash(rel)
		}
		up := filepath.Dir(d)
		if up == d {
			return wd
		}
		d = up
	}
}

// Compile-time checks that the test types are Ts.
var (
	_ T = (*testing.T)(nil)
	_ T = (*testing.B)(nil)
)
