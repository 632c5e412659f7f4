package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/example"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// TestRunGitHub runs the job on a repository with a pull request on a fake
// GitHub as the target: one comment, in Markdown, with the tables; a second
// run edits it in place (its figures differ) instead of adding one; -n
// reads and writes nothing.
func TestRunGitHub(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchmarks")
	}
	f := reviewtest.NewGitHub("gopher/codec")
	defer f.Close()
	f.SetHead(7, fakeHead)
	for k, v := range map[string]string{
		"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "Gopher", "GIT_AUTHOR_EMAIL": "gopher@example.com",
		"GIT_COMMITTER_NAME": "Gopher", "GIT_COMMITTER_EMAIL": "gopher@example.com",
		"GITHUB_API_URL": f.URL, "GITHUB_TOKEN": reviewtest.Token, "GITHUB_STEP_SUMMARY": "",
	} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	if _, err := example.WriteBase(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(t.TempDir(), "fix.patch")
	if err := os.WriteFile(patch, example.Patch(), 0o666); err != nil {
		t.Fatal(err)
	}
	// The repository has no remote to say which project it is: the
	// built-in policy, Go's, is not its own; it writes its own.
	cfg := filepath.Join(t.TempDir(), "anyproject.yaml")
	if err := os.WriteFile(cfg, []byte("freeze:\n  projects: [\"*\"]\n  calendar:\n    go1.4: {freeze: 2014-09-01, reopen: 2014-12-10, release: 2014-12-10}\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	runRun := func(extra ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
		args := append([]string{"run", "-repo", dir, "-config", cfg, "-github", "gopher/codec#7", "-at", "2014-11-06",
			"-count", "2", "-benchtime", "10x", "-bench", "^BenchmarkWriteInts$/^impl=codec$"}, extra...)
		args = append(args, patch)
		if code := run(e, args); code != 0 {
			t.Fatalf("patchbot %s: exit status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, &out, &errOut)
		}
		return out.String()
	}

	tests := []struct {
		name     string
		extra    []string
		wantLine string // a line of the post step's output (a regexp)
		comments int    // on the fake after the run
		writes   int    // POST and PATCH requests to the fake, in all
	}{
		{"first", nil, `^github: created the run comment \S+$`, 1, 1},
		// The figures differ from run to run: the comment is edited.
		{"again", nil, `^github: updated the run comment \S+$`, 1, 2},
		{"dry run", []string{"-n"}, `^github: would update the run comment \S+ to:$`, 1, 2},
	}
	for _, tt := range tests {
		out := runRun(tt.extra...)
		if !regexp.MustCompile("(?m)" + tt.wantLine).MatchString(out) {
			t.Errorf("%s run: output lacks %s:\n%s", tt.name, tt.wantLine, out)
		}
		cs := f.Comments()
		if len(cs) != tt.comments {
			t.Fatalf("%s run: %d comments, want %d", tt.name, len(cs), tt.comments)
		}
		body := cs[0].Body
		if !strings.HasPrefix(body, review.Marker("run")+"\n") || !strings.Contains(body, "| WriteInts/impl=codec-") ||
			!strings.Contains(body, "Freeze: The tree is frozen for Go 1.4 since 2014-09-01 (calendar)") {
			t.Errorf("%s run: the comment is not the run's Markdown message:\n%s", tt.name, body)
		}
		if n := f.Count("POST ") + f.Count("PATCH "); n != tt.writes {
			t.Errorf("%s run: %d writes to GitHub in all, want %d: %q", tt.name, n, tt.writes, f.Requests())
		}
	}
}
