package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Part is a bench job's share of a comparison split over the workers:
// one package of several the change affects (or the command named), with
// its benchmarks, so that the packages run on as many workers as there
// are, each package's old and new runs on one of them, interleaved. The
// job that split the comparison (the whole) recorded what the parts
// share (RecordSplit); each part records its result (RecordPart), and
// the reply is the whole's, made of every part recorded so far.
//
// A part is a job of its own: unique by its whole's identity and its
// Part, retried, rescued and cancelled on its own, so that a worker that
// dies loses only its package's attempt.
type Part struct {
	Index   int    `json:"index"`   // from 0
	Of      int    `json:"of"`      // how many parts, MaxParts at most
	Package string `json:"package"` // its directory, relative to the module: "./codec"
	Bench   string `json:"bench"`   // its -test.bench, after the selection
}

// MaxParts bounds the parts of one comparison: a bench command names at
// most 20 package patterns, but ./... may select many more packages.
const MaxParts = 100

// maxPartBench bounds a part's -test.bench (benchrun falls back to whole
// functions past 64 KiB).
const maxPartBench = 80 << 10

// validate checks a part as a job's (Args.Validate).
func (p *Part) validate() error {
	switch {
	case p.Of < 2 || p.Of > MaxParts:
		return fmt.Errorf("a comparison splits into 2 to %d parts, not %d", MaxParts, p.Of)
	case p.Index < 0 || p.Index >= p.Of:
		return fmt.Errorf("part %d is not one of %d", p.Index, p.Of)
	case len(p.Bench) > maxPartBench:
		return fmt.Errorf("part %d's -test.bench is %d bytes, over %d", p.Index, len(p.Bench), maxPartBench)
	case !packageDir(p.Package):
		return fmt.Errorf("part %d's package %q is not a directory of the module (\".\" or \"./DIR\")", p.Index, p.Package)
	}
	return nil
}

// packageDir reports whether dir is "." or "./" and a clean relative
// path that stays in the module.
func packageDir(dir string) bool {
	if dir == "." {
		return true
	}
	rel, ok := strings.CutPrefix(dir, "./")
	return ok && rel != "" && len(dir) <= 1024 && path.Clean(rel) == rel && rel != ".." && !strings.HasPrefix(rel, "../") && !strings.HasPrefix(rel, "/")
}

// partRetention is how long the parts' records are kept: far past a job's
// life in the queue (Options.Retention).
const partRetention = 30 * 24 * time.Hour

// partsSchema is the table of the split comparisons: a row per part
// (idx from 0), and the whole's own (idx -1: what the parts share, and
// whether its final reply was claimed).
const partsSchema = `CREATE TABLE IF NOT EXISTS patchbot_bench_part (
	whole TEXT NOT NULL,
	idx INTEGER NOT NULL,
	parts INTEGER NOT NULL,
	data TEXT NOT NULL,
	final INTEGER NOT NULL DEFAULT 0,
	done_ms BIGINT NOT NULL,
	PRIMARY KEY (whole, idx)
)`

// A PartRecord is what one part of a split comparison recorded.
type PartRecord struct {
	Index int
	Data  []byte
}

// RecordSplit records that the comparison whole (its reply's identity,
// the caller's) is split into parts parts, and data, what they share (the
// selection), before any part runs. Recorded again (the whole's job run
// again), it is replaced, and whether the final reply was claimed is
// kept.
func (q *Queue) RecordSplit(ctx context.Context, whole string, parts int, data []byte) error {
	return q.recordPart(ctx, whole, -1, parts, data)
}

// RecordPart records part idx of whole, of parts in all: its result, as
// data. A part recorded again (its job run again) is replaced.
func (q *Queue) RecordPart(ctx context.Context, whole string, idx, parts int, data []byte) error {
	if idx < 0 {
		return fmt.Errorf("queue: part %d of %s: parts count from 0", idx, whole)
	}
	return q.recordPart(ctx, whole, idx, parts, data)
}

func (q *Queue) recordPart(ctx context.Context, whole string, idx, parts int, data []byte) error {
	now := time.Now()
	if err := q.exec.Exec(ctx, `INSERT INTO patchbot_bench_part (whole, idx, parts, data, done_ms) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (whole, idx) DO UPDATE SET parts = excluded.parts, data = excluded.data, done_ms = excluded.done_ms`,
		whole, idx, parts, string(data), now.UnixMilli()); err != nil {
		return fmt.Errorf("queue database %s: recording part %d of %s: %w", q.db, idx, whole, err)
	}
	if err := q.exec.Exec(ctx, `DELETE FROM patchbot_bench_part WHERE done_ms < $1`, now.Add(-partRetention).UnixMilli()); err != nil {
		return fmt.Errorf("queue database %s: forgetting old parts: %w", q.db, err)
	}
	return nil
}

// Parts returns what the comparison whole's split (Index -1) and its
// parts recorded so far, in the order of their indexes; none when the
// split is not recorded.
func (q *Queue) Parts(ctx context.Context, whole string) ([]PartRecord, error) {
	// A row at a time (River's executor reads one): at most MaxParts+1.
	read := func(idx int) (data string, parts int, ok bool, err error) {
		err = q.exec.QueryRow(ctx, `SELECT data, parts FROM patchbot_bench_part WHERE whole = $1 AND idx = $2`, whole, idx).Scan(&data, &parts)
		switch {
		case errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows):
			return "", 0, false, nil
		case err != nil:
			return "", 0, false, fmt.Errorf("queue database %s: reading part %d of %s: %w", q.db, idx, whole, err)
		}
		return data, parts, true, nil
	}
	data, parts, ok, err := read(-1)
	if err != nil || !ok {
		return nil, err
	}
	out := []PartRecord{{Index: -1, Data: []byte(data)}}
	for i := range min(parts, MaxParts) {
		data, _, ok, err := read(i)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, PartRecord{Index: i, Data: []byte(data)})
		}
	}
	return out, nil
}

// ClaimFinal reports whether part (its index) may post the final reply
// of whole: true to the first part that claims it, however many parts
// finish at once in however many processes, and to that part again (its
// post failed, and its job runs again); false to every other. A review
// server that posts a message once and cannot edit it (Gerrit) gets the
// whole's reply from the part that claims it.
func (q *Queue) ClaimFinal(ctx context.Context, whole string, part int) (bool, error) {
	var got string
	err := q.exec.QueryRow(ctx, `UPDATE patchbot_bench_part SET final = $2 WHERE whole = $1 AND idx = -1 AND (final = 0 OR final = $2) RETURNING whole`, whole, part+1).Scan(&got)
	switch {
	case errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("queue database %s: claiming the reply of %s: %w", q.db, whole, err)
	}
	return true, nil
}
