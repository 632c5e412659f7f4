package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeT records what Need and Have do to a test.
type fakeT struct {
	name              string
	logged, skipped   string
	failed            string
	stopped, helpered bool
}

func (t *fakeT) Helper()          { t.helpered = true }
func (t *fakeT) Name() string     { return t.name }
func (t *fakeT) Log(args ...any)  { t.logged = args[0].(string) }
func (t *fakeT) Skip(args ...any) { t.skipped, t.stopped = args[0].(string), true }
func (t *fakeT) Fatal(args ...any) {
	t.failed, t.stopped = args[0].(string), true
}

func TestNeed(t *testing.T) {
	missing := errors.New("PATCHBOT_TEST_GERRIT_URL is not set")
	for _, tc := range []struct {
		name     string
		required bool
		missing  error
		have     bool // Have instead of Need
		// what happens: "ran" (recorded), "skipped", "failed", "logged"
		want string
	}{
		{"there", false, nil, false, "ran"},
		{"there, required", true, nil, false, "ran"},
		{"missing", false, missing, false, "skipped"},
		{"missing, required", true, missing, false, "failed"},
		{"Have: there", false, nil, true, "ran"},
		{"Have: missing", false, missing, true, "logged"},
		{"Have: missing, required", true, missing, true, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uses := filepath.Join(t.TempDir(), "uses")
			t.Setenv(UsesVar, uses)
			t.Setenv(Gerrit.RequireVar(), "")
			if tc.required {
				t.Setenv(Gerrit.RequireVar(), "1")
			}
			ft := &fakeT{name: "TestX/sub"}
			got := true
			if tc.have {
				got = Have(ft, Gerrit, tc.missing)
			} else {
				Need(ft, Gerrit, tc.missing)
			}
			data, _ := os.ReadFile(uses)
			var what string
			switch {
			case ft.failed != "":
				what = "failed"
			case ft.skipped != "":
				what = "skipped"
			case ft.logged != "":
				what = "logged"
			case len(data) > 0:
				what = "ran"
			}
			if what != tc.want {
				t.Fatalf("%s, want %s (failed %q, skipped %q, logged %q, uses %q)", what, tc.want, ft.failed, ft.skipped, ft.logged, data)
			}
			if !ft.helpered {
				t.Error("did not call t.Helper")
			}
			if tc.have && got != (what != "logged") {
				t.Errorf("Have = %v after %s", got, what)
			}
			switch what {
			case "ran":
				if want := "gerrit\tinternal/testenv\tTestX/sub\n"; string(data) != want {
					t.Errorf("uses file = %q, want %q", data, want)
				}
			default:
				msg := ft.failed + ft.skipped + ft.logged
				for _, s := range []string{"the test Gerrit is missing", missing.Error(), "scripts/gerrit-test-server start"} {
					if !strings.Contains(msg, s) {
						t.Errorf("message %q does not say %q", msg, s)
					}
				}
				if strings.Contains(msg, "PATCHBOT_TEST_REQUIRE_GERRIT is set") != tc.required {
					t.Errorf("message %q: does it name the variable that made it fail?", msg)
				}
				if len(data) > 0 {
					t.Errorf("a use recorded for a test without the component: %q", data)
				}
			}
		})
	}
}

func TestRequireVar(t *testing.T) {
	// What a shell can export (scripts/test does).
	shellName := regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	seen := map[string]bool{}
	for _, c := range All {
		v := c.RequireVar()
		if seen[v] || !strings.HasPrefix(v, "PATCHBOT_TEST_REQUIRE_") || !shellName.MatchString(v) {
			t.Errorf("%s: variable %s", c.Name, v)
		}
		seen[v] = true
		if c.What == "" || c.Remedy == "" {
			t.Errorf("%s: says neither what it is nor how to get it", c.Name)
		}
	}
	// A hyphen in the name is an underscore in the variable.
	if got, want := WebhookExamples.RequireVar(), "PATCHBOT_TEST_REQUIRE_WEBHOOK_EXAMPLES"; got != want {
		t.Errorf("%s: variable %s, want %s", WebhookExamples.Name, got, want)
	}
}
