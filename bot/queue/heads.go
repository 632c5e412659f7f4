package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The heads of pull requests, as the processes on the queue's database
// learned of them from GitHub's pull_request events (opened, synchronize,
// reopened): when a head arrived, so that a command can be checked against
// the moment it was written. A reviewer's approval is of what they could
// see; a head pushed after their comment is not theirs to approve.
//
// They live beside River's tables, in one table of patchbot's own, so that
// every process on the database (a webhook may reach any of them) sees
// the same record. Rows older than headRetention are deleted as new ones
// come.

// headRetention is how long a head's record is kept: far past the window
// in which a command is still run (the webhook's MaxCommentAge).
const headRetention = 30 * 24 * time.Hour

const headsSchema = `CREATE TABLE IF NOT EXISTS patchbot_pr_head (
	pr TEXT NOT NULL,
	sha TEXT NOT NULL,
	seen_ms BIGINT NOT NULL,
	PRIMARY KEY (pr, sha)
)`

// headKey is a pull request's key in the table: GitHub's names are not
// case-sensitive.
func headKey(pr string) string { return strings.ToLower(pr) }

// RecordHead records that pull request pr ("owner/repo#12") was learned at
// at to have the head sha. A head seen again (a force-push back to it) is
// recorded at the later time.
func (q *Queue) RecordHead(ctx context.Context, pr, sha string, at time.Time) error {
	ms := at.UnixMilli()
	if err := q.exec.Exec(ctx, `INSERT INTO patchbot_pr_head (pr, sha, seen_ms) VALUES ($1, $2, $3)
		ON CONFLICT (pr, sha) DO UPDATE SET seen_ms = CASE WHEN excluded.seen_ms > patchbot_pr_head.seen_ms THEN excluded.seen_ms ELSE patchbot_pr_head.seen_ms END`,
		headKey(pr), sha, ms); err != nil {
		return fmt.Errorf("queue database %s: recording the head of %s: %w", q.db, pr, err)
	}
	if err := q.exec.Exec(ctx, `DELETE FROM patchbot_pr_head WHERE seen_ms < $1`, at.Add(-headRetention).UnixMilli()); err != nil {
		return fmt.Errorf("queue database %s: forgetting old heads: %w", q.db, err)
	}
	return nil
}

// HeadSeen returns when the processes on the database learned that pull
// request pr's head was sha (zero if they never did), and whether they
// learned of any head of pr.
func (q *Queue) HeadSeen(ctx context.Context, pr, sha string) (time.Time, bool, error) {
	var seen sql.NullInt64
	var n int64
	err := q.exec.QueryRow(ctx, `SELECT MAX(CASE WHEN sha = $2 THEN seen_ms END), COUNT(*) FROM patchbot_pr_head WHERE pr = $1`,
		headKey(pr), sha).Scan(&seen, &n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, fmt.Errorf("queue database %s: reading the heads of %s: %w", q.db, pr, err)
	}
	if !seen.Valid {
		return time.Time{}, n > 0, nil
	}
	return time.UnixMilli(seen.Int64), true, nil
}
