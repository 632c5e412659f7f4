package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/patchbot/patchbot/internal/db"
)

// The queue's health: whether it can take a job now. Answering a read is
// not enough: a SQLite file deleted or replaced under a running process
// still answers from the file it has open, and jobs stored there are lost
// at the next start; a full disk reads fine and refuses every write.

const healthSchema = `CREATE TABLE IF NOT EXISTS patchbot_health (
	id INTEGER PRIMARY KEY,
	checked_ms BIGINT NOT NULL
)`

// Check reports whether the queue can store a job now: its database file
// (SQLite) is still the one it opened, and it takes a write. The error
// says what is wrong and what to do.
func (q *Queue) Check(ctx context.Context) error {
	if err := q.checkFile(); err != nil {
		return err
	}
	if err := q.exec.Exec(ctx, `INSERT INTO patchbot_health (id, checked_ms) VALUES (1, $1)
		ON CONFLICT (id) DO UPDATE SET checked_ms = excluded.checked_ms`, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("queue database %s: a write failed (a full disk, a read-only file, the server gone?): %w", q.db, db.Scrub(err, q.db))
	}
	return nil
}

// checkFile reports whether the SQLite file is still the one the queue
// opened: one removed or replaced while the process runs takes writes
// into the unlinked file, which the next start does not see. Insert
// checks it before every job, so that a job is not acknowledged and
// lost; it costs a stat.
func (q *Queue) checkFile() error {
	if q.db.Engine != "sqlite" {
		return nil
	}
	fi, err := os.Stat(q.db.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("queue database %s: the file is gone: jobs stored now would be lost; restart serve", q.db)
	case err != nil:
		return fmt.Errorf("queue database %s: %v", q.db, err)
	case q.file != nil && !os.SameFile(fi, q.file):
		return fmt.Errorf("queue database %s: the file was replaced by another: restart serve to use it", q.db)
	}
	return nil
}
