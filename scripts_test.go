package patchbot

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/testenv"
)

// TestScriptServers runs scripts/test, the suite's own command, with a
// server that cannot start: it must stop at once with a non-zero status
// and the server's complaint, never go on to run tests that would then
// skip. (It stops before the tests in any case: the run sets
// PATCHBOT_TEST_STOP_AFTER_SERVERS, so a script that missed the failure
// exits 0 and says the servers are up.) The first case is the control:
// nothing broken, both servers up, status 0.
//
// It needs what the test Gerrit needs (Java, Maven, the assembled server
// in the cache), so it runs where that Gerrit runs: under scripts/test.
func TestScriptServers(t *testing.T) {
	testenv.Need(t, testenv.Gerrit, gerrittest.Missing())
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		// env returns the variables that break the start.
		env  func(t *testing.T) []string
		want []string // in the output
		ok   bool     // the control: exit 0
	}{
		{
			name: "both up",
			env:  func(t *testing.T) []string { return nil },
			want: []string{"postgres-test-server: PostgreSQL", "gerrit-test-server: ready in", "the servers are up"},
			ok:   true,
		},
		{
			// PostgreSQL starts first, in about a second.
			name: "PostgreSQL port taken",
			env: func(t *testing.T) []string {
				return []string{"PATCHBOT_POSTGRES_PORT=" + takenPort(t)}
			},
			want: []string{"Address already in use", "postgres-test-server: the server did not start"},
		},
		{
			// Gerrit's site is made, and then the daemon cannot listen.
			name: "Gerrit port taken",
			env: func(t *testing.T) []string {
				return []string{"PATCHBOT_GERRIT_PORT=" + takenPort(t), "PATCHBOT_GERRIT_TIMEOUT=120"}
			},
			want: []string{"Address already in use", "gerrit-test-server: Gerrit exited during start-up"},
		},
		{
			// A jar of the server is missing and Maven cannot fetch it.
			name: "Gerrit jar missing",
			env: func(t *testing.T) []string {
				bin := t.TempDir()
				mvn := "#!/bin/sh\necho 'mvn: could not reach the repository' >&2\nexit 1\n"
				if err := os.WriteFile(filepath.Join(bin, "mvn"), []byte(mvn), 0o755); err != nil {
					t.Fatal(err)
				}
				return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
					"PATCHBOT_GERRIT_CACHE=" + t.TempDir()}
			},
			want: []string{"mvn: could not reach the repository", "gerrit-test-server: mvn could not fetch com.google.gerrit:"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// PostgreSQL runs as the postgres user when the test runs
			// as root: its directory's parent must let it in.
			parent, err := os.MkdirTemp("", "pg")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(parent) })
			if err := os.Chmod(parent, 0o755); err != nil {
				t.Fatal(err)
			}
			pgDir := filepath.Join(parent, "pg")
			env := []string{"PATCHBOT_TEST_STOP_AFTER_SERVERS=1",
				"PATCHBOT_GERRIT_DIR=" + t.TempDir(), "PATCHBOT_POSTGRES_DIR=" + pgDir}
			// Nothing of the run around this one: its servers, its
			// requirements, its uses file.
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PATCHBOT_") {
					env = append(env, kv)
				}
			}
			env = append(env, tc.env(t)...) // last: PATH
			// A generous bound against a hang, not a measure: the
			// slowest case makes a Gerrit site first.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "./scripts/test")
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("scripts/test hung:\n%s", out)
			}
			_, exited := errors.AsType[*exec.ExitError](err)
			switch {
			case err != nil && !exited:
				t.Fatalf("scripts/test did not run: %v", err)
			case tc.ok && err != nil:
				t.Fatalf("scripts/test: %v, want success\n%s", err, out)
			case !tc.ok && err == nil:
				t.Fatalf("scripts/test succeeded, want a non-zero exit\n%s", out)
			}
			for _, s := range append(tc.want, "== test servers") {
				if !strings.Contains(string(out), s) {
					t.Errorf("the output does not say %q", s)
				}
			}
			wentOn := []string{"== gofmt", "== go test"}
			if !tc.ok {
				wentOn = append(wentOn, "the servers are up")
			}
			for _, s := range wentOn {
				if strings.Contains(string(out), s) {
					t.Errorf("the output says %q: the run went on", s)
				}
			}
			if t.Failed() {
				t.Logf("scripts/test said:\n%s", out)
			}
			// The run stopped what it had started.
			if _, err := os.Stat(pgDir); err == nil {
				t.Errorf("PostgreSQL's run directory %s is still there: the server was not stopped", pgDir)
			}
		})
	}
}

// takenPort returns a loopback port that a listener of the test holds.
func takenPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}
