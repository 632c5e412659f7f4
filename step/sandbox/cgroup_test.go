package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMountDir(t *testing.T) {
	for _, tc := range []struct {
		m    mount
		path string
		want string
	}{
		{mount{root: "/", point: "/sys/fs/cgroup/memory"}, "/user.slice", "/sys/fs/cgroup/memory/user.slice"},
		{mount{root: "/docker/abc", point: "/sys/fs/cgroup/memory"}, "/docker/abc/x", "/sys/fs/cgroup/memory/x"},
		// A cgroup namespace shows the groups above its root as "/..".
		{mount{root: "/", point: "/sys/fs/cgroup/memory"}, "/../../pbtest", "/sys/fs/cgroup/memory"},
		{mount{root: "/a", point: "/cg"}, "/b", "/cg"},
	} {
		if got := tc.m.dir(tc.path); got != tc.want {
			t.Errorf("%+v.dir(%q) = %q, want %q", tc.m, tc.path, got, tc.want)
		}
	}
	if got := unescape(`/mnt/with\040space`); got != "/mnt/with space" {
		t.Errorf("unescape = %q", got)
	}
}

// TestRemoveStale: the empty group of a dead process goes; a live
// process's stays.
func TestRemoveStale(t *testing.T) {
	c, why := findCgroups("")
	if c == nil {
		t.Skip(why)
	}
	dead := filepath.Join(c.memory, "patchbot-sandbox-2147483646-1")
	live := filepath.Join(c.memory, "patchbot-sandbox-1-1") // pid 1 runs
	for _, d := range []string{dead, live} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.Remove(d) })
	}
	c.removeStale()
	if _, err := os.Stat(dead); err == nil {
		t.Errorf("the dead process's group %s is still there", dead)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live process's group went: %v", err)
	}
}
