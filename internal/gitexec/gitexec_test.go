package gitexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newRepo returns a new, empty repository.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

func TestOutput(t *testing.T) {
	repo := newRepo(t)
	tests := []struct {
		name string
		cmd  Cmd
		want string
	}{
		{
			name: "stdin",
			cmd:  Cmd{Args: []string{"hash-object", "--stdin"}, Stdin: strings.NewReader("hello\n")},
			want: "ce013625030ba8dba906f756967f9e9ca394464a\n",
		},
		{
			name: "dir",
			cmd:  Cmd{Dir: repo, Args: []string{"rev-parse", "--is-inside-work-tree"}},
			want: "true\n",
		},
		{
			name: "extra env",
			cmd: Cmd{Args: []string{"var", "GIT_COMMITTER_IDENT"}, ExtraEnv: []string{
				"GIT_COMMITTER_NAME=Extra", "GIT_COMMITTER_EMAIL=extra@example.com", "GIT_COMMITTER_DATE=@1000000000 +0000"}},
			want: "Extra <extra@example.com> 1000000000 +0000\n",
		},
		{
			name: "as written",
			cmd:  Cmd{Args: []string{"-c", "x.y=  two words  ", "config", "--get", "x.y"}},
			want: "  two words  \n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cmd.Output(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("output = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestError(t *testing.T) {
	repo := newRepo(t)
	stopped, stop := context.WithCancelCause(context.Background())
	stop(errors.New("test stop"))
	tests := []struct {
		name     string
		ctx      context.Context
		cmd      Cmd
		want     string // the error's text
		message  string // Message's
		exitCode int
	}{
		{
			name:     "failure",
			cmd:      Cmd{Dir: repo, Args: []string{"rev-parse", "--verify", "nosuch"}},
			want:     "git rev-parse --verify nosuch: exit status 128: fatal: Needed a single revision",
			message:  "Needed a single revision",
			exitCode: 128,
		},
		{
			name:     "quiet failure",
			cmd:      Cmd{Dir: repo, Args: []string{"config", "--get", "no.such"}},
			want:     "git config --get no.such: exit status 1: ",
			message:  "exit status 1",
			exitCode: 1,
		},
		{
			name:     "interrupted before it started",
			ctx:      stopped,
			cmd:      Cmd{Dir: repo, Args: []string{"status"}},
			want:     "interrupted (test stop)",
			message:  "context canceled",
			exitCode: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			out, err := tt.cmd.Output(ctx)
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("err = %v (%T), want an *Error", err, err)
			}
			if out != "" {
				t.Errorf("output = %q, want none with an error", out)
			}
			if got := e.Error(); got != tt.want {
				t.Errorf("error = %q, want %q", got, tt.want)
			}
			if got := Message(e.Stderr, e.Err); got != tt.message {
				t.Errorf("Message = %q, want %q", got, tt.message)
			}
			if e.ExitCode != tt.exitCode {
				t.Errorf("ExitCode = %d, want %d", e.ExitCode, tt.exitCode)
			}
			if !slices.Equal(e.Args, tt.cmd.Args) || e.Dir != tt.cmd.Dir {
				t.Errorf("Args, Dir = %q, %q; want %q, %q", e.Args, e.Dir, tt.cmd.Args, tt.cmd.Dir)
			}
			if errors.Unwrap(e) != e.Err {
				t.Errorf("Unwrap = %v, want Err %v", errors.Unwrap(e), e.Err)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		stderr, want string
	}{
		{"fatal: Needed a single revision\n", "Needed a single revision"},
		{"error: one\nhint: do this\nhint: or that\nfatal: two\n", "one; two"},
		{"  warning: kept  \n\n", "warning: kept"},
		{"hint: only a hint\n", "exit status 1"},
		{"", "exit status 1"},
	}
	for _, tt := range tests {
		if got := Message(tt.stderr, errors.New("exit status 1")); got != tt.want {
			t.Errorf("Message(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}

// TestEnv checks what each Env lets through of the process's environment:
// its variables, the GIT_DIR it names, the user's configuration.
func TestEnv(t *testing.T) {
	home := t.TempDir()
	global := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(global, []byte("[patchbot]\n\tleak = global\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(newRepo(t), ".git")
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_DIR", gitDir)
	t.Setenv("PATCHBOT_TEST_SECRET", "s3cret")
	t.Setenv("https_proxy", "http://proxy.example:3128")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("GIT_TERMINAL_PROMPT", "1")

	tests := []struct {
		env Env
		// want are variables the shell of a git alias must see, with
		// their values; "" for none.
		want map[string]string
		// leak is 'git config --get patchbot.leak': "" when git fails
		// (it reads no user configuration).
		leak string
	}{
		{
			env: Inherit,
			want: map[string]string{"HOME": home, "GIT_DIR": gitDir, "PATCHBOT_TEST_SECRET": "s3cret",
				"https_proxy": "http://proxy.example:3128", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"},
			leak: "global\n",
		},
		{
			env: NoUserConfig,
			want: map[string]string{"HOME": home, "GIT_DIR": gitDir, "PATCHBOT_TEST_SECRET": "s3cret",
				"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"},
		},
		{
			env: Anonymous,
			want: map[string]string{"HOME": os.DevNull, "GIT_DIR": "", "PATCHBOT_TEST_SECRET": "",
				"https_proxy": "http://proxy.example:3128", "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
				"GIT_ASKPASS": "", "SSH_ASKPASS": "", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"},
		},
	}
	for _, tt := range tests {
		t.Run([]string{"Inherit", "NoUserConfig", "Anonymous"}[tt.env], func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			out, err := (&Cmd{Dir: dir, Env: tt.env, Args: []string{"-c", "alias.showenv=!env", "showenv"}}).Output(ctx)
			if err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{}
			for _, l := range strings.Split(out, "\n") {
				if k, v, ok := strings.Cut(l, "="); ok {
					vars[k] = v
				}
			}
			for k, want := range tt.want {
				if got := vars[k]; got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}

			leak, err := (&Cmd{Dir: dir, Env: tt.env, Args: []string{"config", "--get", "patchbot.leak"}}).Output(ctx)
			if leak != tt.leak {
				t.Errorf("patchbot.leak from the user's configuration = %q (err %v), want %q", leak, err, tt.leak)
			}
		})
	}
}
