package work

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestAreaGitError checks how an area's git words a failure, an interrupt
// and a timeout: by its first argument, with the cause of a stop in
// parentheses.
func TestAreaGitError(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	stopped, stop := context.WithCancelCause(context.Background())
	stop(errors.New("test stop"))
	tests := []struct {
		name         string
		ctx          context.Context
		timeout      time.Duration
		args         []string
		prefix, want string // the error starts with prefix and ends with want
	}{
		{
			name:   "failure",
			ctx:    context.Background(),
			args:   []string{"rev-parse", "--verify", "nosuch"},
			prefix: "git rev-parse: exit status 128: ",
			want:   ": fatal: Needed a single revision",
		},
		{
			name:   "interrupted",
			ctx:    stopped,
			args:   []string{"status"},
			prefix: "git status: ",
			want:   " (test stop)",
		},
		{
			name:    "timed out",
			ctx:     context.Background(),
			timeout: 100 * time.Millisecond,
			args:    []string{"-c", "alias.hang=!sleep 600", "hang"},
			prefix:  "git -c: ",
			want:    " (context deadline exceeded)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Areas{Root: t.TempDir(), GitTimeout: tt.timeout}
			_, err := a.git(tt.ctx, dir, tt.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q...%q", err, tt.prefix, tt.want)
			}
		})
	}
}
