package queue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: a queue whose SQLite file is deleted, or replaced by another,
// under it cannot take a job, although it still answers reads; Check says
// so.
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
	other := open(t, "sqlite:"+filepath.Join(dir, "other.db"), Options{})
	other.Stop(t.Context())
	if err := os.Rename(filepath.Join(dir, "other.db"), path); err != nil {
		t.Fatal(err)
	}
	if err := q.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("Check with the file replaced: %v", err)
	}
}
