package main

import (
	"strings"
	"testing"

	"github.com/patchbot/patchbot/step/benchrun"
)

// TestCheckLimits: serve refuses a sandbox that cannot bound memory or
// processes (as root without cgroups), saying what is unbounded and what
// to do, unless -unsafe-no-limits accepts it.
func TestCheckLimits(t *testing.T) {
	bounded := benchrun.Isolation{Sandbox: "bubblewrap", Limits: []string{"memory 4 GiB (cgroup v2)", "1152 processes (cgroup v2)"}}
	unbounded := benchrun.Isolation{Sandbox: "bubblewrap", Unlimited: []string{"memory: no cgroup", "processes: no pids cgroup, and RLIMIT_NPROC does not bind root"}}
	for _, tt := range []struct {
		name   string
		iso    benchrun.Isolation
		accept bool
		want   string // in the error; "" for none
	}{
		{"bounded", bounded, false, ""},
		{"unbounded", unbounded, false, "the sandbox cannot bound here: memory: no cgroup; processes: no pids cgroup"},
		{"unbounded, accepted", unbounded, true, ""},
	} {
		err := checkLimits(tt.iso, tt.accept)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v; want none", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "-unsafe-no-limits")):
			t.Errorf("%s: %v; want %q and the flag that accepts it", tt.name, err, tt.want)
		}
	}
}
