package benchrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestSweepTemp: the temporary directories of processes that are gone are
// removed; this process's, and names that say no process, are left.
func TestSweepTemp(t *testing.T) {
	dir := t.TempDir()
	// A pid that was a process and is no more: a child that exited.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{ // name: removed
		tempPrefix + strconv.Itoa(dead.Process.Pid) + "-123":      true,
		tempPrefix + strconv.Itoa(os.Getpid()) + "-456":           false,
		tempPrefix + strconv.Itoa(dead.Process.Pid) + "-bisect-7": true,
		tempPrefix + "789": false, // an old name, without a pid
		tempPrefix + "x-1": false,
		"other-" + strconv.Itoa(dead.Process.Pid) + "-1": false,
	}
	var want []string
	for name, gone := range names {
		if err := os.MkdirAll(filepath.Join(dir, name, "bin"), 0o700); err != nil {
			t.Fatal(err)
		}
		if gone {
			want = append(want, filepath.Join(dir, name))
		}
	}
	removed, err := SweepTemp(dir)
	slices.Sort(want) // SweepTemp's order is the directory's
	if err != nil || !slices.Equal(removed, want) {
		t.Errorf("SweepTemp = %q, %v; want %q", removed, err, want)
	}
	for name, gone := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) == gone {
			t.Errorf("%s: there %v, want removed %v", name, err == nil, gone)
		}
	}
}

// TestMkdirTemp: what MkdirTemp makes, SweepTemp knows by its name: left
// while this process lives.
func TestMkdirTemp(t *testing.T) {
	dir, err := MkdirTemp("track")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	want := tempPrefix + strconv.Itoa(os.Getpid()) + "-track-"
	if name := filepath.Base(dir); len(name) <= len(want) || name[:len(want)] != want || filepath.Dir(dir) != filepath.Clean(os.TempDir()) {
		t.Errorf("MkdirTemp(track) = %s, want %s/%sRANDOM", dir, os.TempDir(), want)
	}
	if removed, _ := SweepTemp(""); slices.Contains(removed, dir) {
		t.Errorf("SweepTemp removed %s, this live process's", dir)
	}
}
