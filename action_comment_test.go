package patchbot_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestBenchCommentRequest runs the request step of
// docs/examples/workflows/bench-comment.yml with bash and a fake gh: which
// comments it takes for "/patchbot bench [SHA]", and that SHA is 12 to 40
// hex digits of the pull request's head (a 7-digit prefix is cheap to
// match with a hostile commit).
func TestBenchCommentRequest(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	src, err := os.ReadFile("docs/examples/workflows/bench-comment.yml")
	if err != nil {
		t.Fatal(err)
	}
	w, errs := actionlint.Parse(src)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	var script string
	for _, s := range w.Jobs["request"].Steps {
		if s.ID != nil && s.ID.Value == "pr" {
			script = s.Exec.(*actionlint.ExecRun).Run.Value
		}
	}
	if script == "" {
		t.Fatal("no step pr in job request")
	}
	const head, base = "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"
	bin := t.TempDir()
	gh := "#!/bin/sh\necho '" + head + " " + base + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		body string
		run  bool // head and base are outputs
		fail bool // the step fails: the head moved
	}{
		{"/patchbot bench", true, false},
		{"/patchbot bench\r\nthanks", true, false},
		{"/patchbot bench " + head, true, false},
		{"/patchbot bench " + head[:12], true, false},
		{"/patchbot bench " + head[:11], false, false},
		{"/patchbot bench " + head[:7], false, false},
		{"/patchbot bench " + strings.ToUpper(head[:12]), false, false},
		{"/patchbot bench " + head + "0", false, false},
		{"/patchbot bench " + base[:12], false, true},
		{"/patchbot bench " + head[:12] + " x", false, false},
		{"/patchbot freeze", false, false},
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "output")
		cmd := exec.Command(bash, "-e", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GITHUB_OUTPUT="+out,
			"REPO=gopher/codec", "NUMBER=7", "BODY="+tt.body)
		log, err := cmd.CombinedOutput()
		if (err != nil) != tt.fail {
			t.Errorf("%q: %v\n%s", tt.body, err, log)
		}
		got, _ := os.ReadFile(out)
		if want := "head=" + head + "\nbase=" + base + "\n"; (string(got) == want) != tt.run || !tt.run && len(got) > 0 {
			t.Errorf("%q: outputs %q, want them: %v\n%s", tt.body, got, tt.run, log)
		}
	}
}
