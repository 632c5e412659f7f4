package queue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: a queue whose SQLite file is deleted, or replaced by another,
// under it cannot take a job, although it still answers reads; Check says
// so, and Insert refuses the job rather than store it where no start will
// find it (the webhook would have answered "queued").
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "queue.db")
	q := open(t, "sqlite:"+path, Options{})
	if err := q.Check(t.Context()); err != nil {
		t.Fatalf("Check on a fresh queue: %v", err)
	}
	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := q.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "the file is gone") {
		t.Errorf("Check with the file gone: %v", err)
	}
	if _, err := q.Jobs(t.Context(), 1); err != nil {
		t.Errorf("reads fail too (the test shows nothing): %v", err)
	}
	if res, err := q.Insert(t.Context(), args("lost")); err == nil || !strings.Contains(err.Error(), "the file is gone") {
		t.Errorf("Insert with the file gone: %+v, %v; want refused", res, err)
	}
	other := open(t, "sqlite:"+filepath.Join(dir, "other.db"), Options{})
	other.Stop(t.Context())
	if err := os.Rename(filepath.Join(dir, "other.db"), path); err != nil {
		t.Fatal(err)
	}
	if err := q.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("Check with the file replaced: %v", err)
	}
}

// TestOpenUnwritable: a queue file where it cannot be made says which
// path and why, not SQLite's "unable to open database file (14)".
func TestOpenUnwritable(t *testing.T) {
	if _, err := os.Stat("/sys/kernel"); err != nil {
		t.Skip("no /sys here: the test needs a directory nobody may write in, root included")
	}
	for _, tc := range []struct{ path, want string }{
		{"/sys/queue.db", "queue database /sys/queue.db: cannot write in its directory /sys (permission denied)"},
		{"/dev/null/queue.db", "queue database /dev/null/queue.db: its directory cannot be made (mkdir /dev/null: not a directory)"},
	} {
		_, err := Open(t.Context(), "sqlite:"+tc.path, &Options{Logger: testLogger(t)})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Open(%s) = %v; want %s...", tc.path, err, tc.want)
		}
	}
}
