package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/patchbot/patchbot/internal/db"
)

// A Store is the history of tracked branches, in tables of the queue's
// database (SQLite or PostgreSQL) beside River's: which commits were
// recorded, each benchmark's value at each, and the change points found
// with what became of them. Open brings its schema up to date.
type Store struct {
	db       *sql.DB
	engine   string
	readOnly bool // OpenReadOnly's: Add, AddChange and UpdateChange refuse
}

// schema is the store's migrations, in order: migration i+1 brings the
// schema from version i to i+1. A migration is never edited once
// released; a change is a new one. The SQL is what SQLite and PostgreSQL
// both take (DOUBLE PRECISION is REAL to SQLite, BIGINT INTEGER).
var schema = []string{
	// 1: commits, values and change points.
	`CREATE TABLE patchbot_track_commit (
		track TEXT NOT NULL,
		seq BIGINT NOT NULL,
		hash TEXT NOT NULL,
		subject TEXT NOT NULL,
		committed BIGINT NOT NULL,
		recorded BIGINT NOT NULL,
		error TEXT NOT NULL,
		PRIMARY KEY (track, hash),
		UNIQUE (track, seq)
	);
	CREATE TABLE patchbot_track_value (
		track TEXT NOT NULL,
		hash TEXT NOT NULL,
		pkg TEXT NOT NULL,
		name TEXT NOT NULL,
		unit TEXT NOT NULL,
		value DOUBLE PRECISION NOT NULL,
		n BIGINT NOT NULL,
		PRIMARY KEY (track, hash, pkg, name, unit)
	);
	CREATE TABLE patchbot_track_change (
		track TEXT NOT NULL,
		pkg TEXT NOT NULL,
		name TEXT NOT NULL,
		unit TEXT NOT NULL,
		hash TEXT NOT NULL,
		prev TEXT NOT NULL,
		good TEXT NOT NULL,
		bad TEXT NOT NULL,
		before DOUBLE PRECISION NOT NULL,
		after DOUBLE PRECISION NOT NULL,
		p DOUBLE PRECISION NOT NULL,
		found BIGINT NOT NULL,
		state TEXT NOT NULL,
		culprit TEXT NOT NULL,
		reason TEXT NOT NULL,
		bisect TEXT NOT NULL,
		comment TEXT NOT NULL,
		tries BIGINT NOT NULL,
		PRIMARY KEY (track, pkg, name, unit, hash)
	)`,
}

// OpenDatabase opens the store in the database d names (internal/db: the
// queue's, for track, sweep's track task and serve alike), migrating its
// schema, and returns it with the function that closes the database.
func OpenDatabase(ctx context.Context, d db.Database) (*Store, func(), error) {
	return openIn(ctx, d, Open)
}

// openIn opens the database d names and the store in it with open, and
// returns the store with the function that closes the database.
func openIn(ctx context.Context, d db.Database, open func(context.Context, *sql.DB, string) (*Store, error)) (*Store, func(), error) {
	sqldb, err := db.OpenSQL(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	s, err := open(ctx, sqldb, d.Engine)
	if err != nil {
		sqldb.Close()
		return nil, nil, err
	}
	return s, func() { sqldb.Close() }, nil
}

// ErrNoHistory is the error, wrapped, of OpenReadOnly on a database in
// which nothing was ever tracked (no store's tables): a dry run or a look
// has nothing to read there, and makes nothing.
var ErrNoHistory = errors.New("nothing is tracked in this database")

// ErrOldSchema is the error, wrapped, of OpenReadOnly on a database whose
// store an older patchbot made: reading it needs a migration, which is a
// write.
var ErrOldSchema = errors.New("the database's track schema is older than this patchbot's")

// errReadOnly is the error of a write to a read-only store.
var errReadOnly = errors.New("track: the store was opened read-only")

// OpenReadOnly opens the store in the database d names for reading only:
// it neither migrates the schema nor writes, so that a dry run or a look
// at the history leaves the database as it was. A database with no store
// is ErrNoHistory, one that needs a migration ErrOldSchema, one a newer
// patchbot made ErrNewerSchema.
func OpenReadOnly(ctx context.Context, d db.Database) (*Store, func(), error) {
	return openIn(ctx, d, openReadOnly)
}

func openReadOnly(ctx context.Context, db *sql.DB, engine string) (*Store, error) {
	s := &Store{db: db, engine: engine, readOnly: true}
	if err := s.checkVersion(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// checkVersion reports whether the schema is this patchbot's, reading
// only.
func (s *Store) checkVersion(ctx context.Context) error {
	exists := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'patchbot_track_schema'"
	if s.engine == "postgres" {
		exists = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'patchbot_track_schema'"
	}
	var n int
	if err := s.db.QueryRowContext(ctx, exists).Scan(&n); err != nil {
		return fmt.Errorf("track: reading the schema: %w", err)
	}
	if n == 0 {
		return ErrNoHistory
	}
	version := 0
	err := s.db.QueryRowContext(ctx, "SELECT version FROM patchbot_track_schema").Scan(&version)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNoHistory
	case err != nil:
		return fmt.Errorf("track: reading the schema: %w", err)
	case version > len(schema):
		return fmt.Errorf("%w (version %d; this one knows %d): run the newer patchbot, or another database", ErrNewerSchema, version, len(schema))
	case version < len(schema):
		return fmt.Errorf("%w (version %d; this one's is %d): a run that records migrates it", ErrOldSchema, version, len(schema))
	}
	return nil
}

// Version is the schema version this patchbot makes and reads.
func Version() int { return len(schema) }

// ErrNewerSchema is the error, wrapped, of a database whose history was
// migrated by a newer patchbot.
var ErrNewerSchema = errors.New("the database's track schema is newer than this patchbot's")

// Open returns the store in db, whose engine is "sqlite" or "postgres",
// migrating its schema first. Processes that open one database at once
// migrate one after the other (PostgreSQL: an advisory lock for the
// migration's transaction; SQLite: its write lock, taken when the
// transaction begins, as the queue's DSN asks), and the later ones find
// the schema current.
func Open(ctx context.Context, db *sql.DB, engine string) (*Store, error) {
	if engine != "sqlite" && engine != "postgres" {
		return nil, fmt.Errorf("track: engine %q: want sqlite or postgres", engine)
	}
	s := &Store{db: db, engine: engine}
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("track: migrating the schema: %w", err)
	}
	return s, nil
}

// migrationLock is the PostgreSQL advisory lock of the store's
// migrations: "pb-track" in ASCII, apart from the queue's.
const migrationLock = 0x70622d747261636b

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.engine == "postgres" {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS patchbot_track_schema (version BIGINT NOT NULL)"); err != nil {
		return err
	}
	version := 0
	err = tx.QueryRowContext(ctx, "SELECT version FROM patchbot_track_schema").Scan(&version)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, "INSERT INTO patchbot_track_schema (version) VALUES (0)"); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if version > len(schema) {
		return fmt.Errorf("%w (version %d; this one knows %d): run the newer patchbot, or another database", ErrNewerSchema, version, len(schema))
	}
	for v := version; v < len(schema); v++ {
		if _, err := tx.ExecContext(ctx, schema[v]); err != nil {
			return fmt.Errorf("version %d: %v", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE patchbot_track_schema SET version = $1", len(schema)); err != nil {
		return err
	}
	return tx.Commit()
}

// A Commit is a commit of a tracked branch, recorded or to be.
type Commit struct {
	Seq     int64     `json:"seq"` // its place in the track's history, from 1
	Hash    string    `json:"hash"`
	Subject string    `json:"subject"`
	Time    time.Time `json:"time"` // committed
	// Error says why the commit has no values (it did not build, its
	// benchmarks failed); "" when it has.
	Error string `json:"error,omitempty"`
}

// A Value is one benchmark's result at one commit: the median of N runs.
type Value struct {
	Key   SeriesKey
	Value float64
	N     int
}

// A SeriesKey names a series: a benchmark's unit in a package.
type SeriesKey struct {
	Package string `json:"package"`
	Name    string `json:"name"` // as benchstat shows it: "Sum/big-2"
	Unit    string `json:"unit"` // "sec/op", "B/op", ...
}

func (k SeriesKey) String() string { return k.Package + "." + k.Name + " " + k.Unit }

// Last returns the last commit recorded of the track, or nil when there is
// none yet.
func (s *Store) Last(ctx context.Context, track string) (*Commit, error) {
	c := &Commit{}
	var t int64
	err := s.db.QueryRowContext(ctx, "SELECT seq, hash, subject, committed, error FROM patchbot_track_commit WHERE track = $1 ORDER BY seq DESC LIMIT 1", track).
		Scan(&c.Seq, &c.Hash, &c.Subject, &t, &c.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("track %s: reading the last commit: %v", track, err)
	}
	c.Time = time.Unix(t, 0).UTC()
	return c, nil
}

// Add records c, the track's next commit, with its values, in one
// transaction; it sets c.Seq. A commit already recorded is left as it was
// (a run that died after recording it, run again), and Add says false.
func (s *Store) Add(ctx context.Context, track string, c *Commit, values []Value) (bool, error) {
	if s.readOnly {
		return false, errReadOnly
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if s.engine == "postgres" {
		// Two runs of one track (the command line beside serve's job)
		// add one after the other; SQLite's transactions take the
		// write lock when they begin.
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "patchbot-track:"+track); err != nil {
			return false, err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM patchbot_track_commit WHERE track = $1 AND hash = $2", track, c.Hash).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) + 1 FROM patchbot_track_commit WHERE track = $1", track).Scan(&c.Seq); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO patchbot_track_commit (track, seq, hash, subject, committed, recorded, error) VALUES ($1, $2, $3, $4, $5, $6, $7)",
		track, c.Seq, c.Hash, c.Subject, c.Time.Unix(), time.Now().Unix(), c.Error); err != nil {
		return false, err
	}
	for _, v := range values {
		if _, err := tx.ExecContext(ctx, "INSERT INTO patchbot_track_value (track, hash, pkg, name, unit, value, n) VALUES ($1, $2, $3, $4, $5, $6, $7)",
			track, c.Hash, v.Key.Package, v.Key.Name, v.Key.Unit, v.Value, v.N); err != nil {
			return false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("track %s: recording %s: %v", track, c.Hash, err)
	}
	return true, nil
}

// A Window is the part of a track's history a read returns, so that a
// public page reads a bounded part of it however long the history grows:
// the latest Commits commits up to Last, and of their values the series
// of Unit, the first Series of them by package, name and unit, and the
// change points of those series at those commits. The zero Window is the
// whole history.
type Window struct {
	Commits int    // 0: every commit
	Unit    string // "": every unit
	Series  int    // 0: every series
	// Last is the Seq of the window's latest commit: reads given one Last
	// read one window, whatever commits are recorded between them. 0:
	// the track's latest commit when each read begins.
	Last int64
}

// all is the count that stands for "no bound" in a window's SQL.
const all = 1 << 62

func orAll(n int) int64 {
	if n <= 0 {
		return all
	}
	return int64(n)
}

// seqs returns the bounds of w's commits in the track: those with
// from < seq <= to.
func (s *Store) seqs(ctx context.Context, track string, w Window) (from, to int64, err error) {
	to = w.Last
	if to <= 0 {
		if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM patchbot_track_commit WHERE track = $1", track).Scan(&to); err != nil {
			return 0, 0, fmt.Errorf("track %s: reading the last commit: %v", track, err)
		}
	}
	return to - orAll(w.Commits), to, nil
}

// windowKeys is the SQL of the series in a window, a CTE named keys: of
// track $1, commits $2 < seq <= $3, unit $4 ("": any), the first $5.
// The series are chosen among those with a value in the window.
const windowKeys = `WITH keys AS (SELECT DISTINCT k.pkg, k.name, k.unit FROM patchbot_track_value k
	JOIN patchbot_track_commit c ON c.track = k.track AND c.hash = k.hash
	WHERE k.track = $1 AND c.seq > $2 AND c.seq <= $3 AND ($4 = '' OR k.unit = $4)
	ORDER BY k.pkg, k.name, k.unit LIMIT $5)
`

// Commits returns the track's recorded commits in w, oldest first.
func (s *Store) Commits(ctx context.Context, track string, w Window) ([]Commit, error) {
	from, to, err := s.seqs(ctx, track, w)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, "SELECT c.seq, c.hash, c.subject, c.committed, c.error FROM patchbot_track_commit c WHERE c.track = $1 AND c.seq > $2 AND c.seq <= $3 ORDER BY c.seq",
		track, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Commit
	for rows.Next() {
		var c Commit
		var t int64
		if err := rows.Scan(&c.Seq, &c.Hash, &c.Subject, &t, &c.Error); err != nil {
			return nil, err
		}
		c.Time = time.Unix(t, 0).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// A Series is one benchmark's values along the track, in commit order:
// Points[i] is the value at Hashes[i]. Commits without a value for it
// (not built, or before the benchmark existed) are not in it.
type Series struct {
	Key    SeriesKey `json:"key"`
	Hashes []string  `json:"hashes"`
	Points []float64 `json:"values"`
}

// Series returns the track's series in w, by package, name and unit.
func (s *Store) Series(ctx context.Context, track string, w Window) ([]*Series, error) {
	from, to, err := s.seqs(ctx, track, w)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, windowKeys+`SELECT v.pkg, v.name, v.unit, v.hash, v.value
		FROM patchbot_track_value v
		JOIN patchbot_track_commit c ON c.track = v.track AND c.hash = v.hash
		JOIN keys ON keys.pkg = v.pkg AND keys.name = v.name AND keys.unit = v.unit
		WHERE v.track = $1 AND c.seq > $2 AND c.seq <= $3
		ORDER BY v.pkg, v.name, v.unit, c.seq`, track, from, to, w.Unit, orAll(w.Series))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Series
	for rows.Next() {
		var k SeriesKey
		var hash string
		var v float64
		if err := rows.Scan(&k.Package, &k.Name, &k.Unit, &hash, &v); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Key != k {
			out = append(out, &Series{Key: k})
		}
		sr := out[len(out)-1]
		sr.Hashes = append(sr.Hashes, hash)
		sr.Points = append(sr.Points, v)
	}
	return out, rows.Err()
}

// Change states: what became of a change point.
const (
	StateFound     = "found"      // detected; a regression waits for its bisection
	StateImproved  = "improved"   // a speedup: recorded, shown, not bisected
	StateBisected  = "bisected"   // the culprit is known; its comment is not posted yet
	StateCommented = "commented"  // the culprit's review has its comment
	StateNoReview  = "no review"  // the culprit is known, but not its review
	StateNoCulprit = "no culprit" // the bisection named no single commit (Reason)
)

// A Change is a change point of a series and what became of it.
type Change struct {
	Key SeriesKey `json:"key"`
	// Hash is the first recorded commit after the change, Prev the last
	// before it: the culprit is after Prev and at or before Hash.
	Hash string `json:"hash"`
	Prev string `json:"prev"`
	// Good and Bad are the range to bisect: a recorded commit further
	// before the change and one after it, since a change point may be
	// placed a commit late or early by noise (Detect).
	Good   string    `json:"good"`
	Bad    string    `json:"bad"`
	Before float64   `json:"before"` // the mean of the segment before
	After  float64   `json:"after"`
	P      float64   `json:"p"` // the t-test's p-value
	Found  time.Time `json:"found"`

	State   string `json:"state"`
	Culprit string `json:"culprit,omitempty"` // its hash, once bisected
	Reason  string `json:"reason,omitempty"`  // of a bisection without a culprit
	// Bisect is the bisection's result as JSON (step/bisect.Result), and
	// Comment the comment's URL.
	Bisect  string `json:"-"`
	Comment string `json:"comment,omitempty"`
	// Tries counts the runs whose bisection or comment of it failed.
	Tries int `json:"tries,omitempty"`
}

// Ratio returns After/Before: above 1 for a slowdown of a time.
func (c *Change) Ratio() float64 { return c.After / c.Before }

// AddChange records c unless its series already has a change at c.Hash,
// and says whether it did.
func (s *Store) AddChange(ctx context.Context, track string, c *Change) (bool, error) {
	if s.readOnly {
		return false, errReadOnly
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO patchbot_track_change
		(track, pkg, name, unit, hash, prev, good, bad, before, after, p, found, state, culprit, reason, bisect, comment, tries)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
		ON CONFLICT (track, pkg, name, unit, hash) DO NOTHING`,
		track, c.Key.Package, c.Key.Name, c.Key.Unit, c.Hash, c.Prev, c.Good, c.Bad, c.Before, c.After, c.P, c.Found.Unix(), c.State, c.Culprit, c.Reason, c.Bisect, c.Comment, c.Tries)
	if err != nil {
		return false, fmt.Errorf("track %s: recording the change of %s at %s: %v", track, c.Key, c.Hash, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// UpdateChange records c's state, culprit, reason, bisection and comment.
func (s *Store) UpdateChange(ctx context.Context, track string, c *Change) error {
	if s.readOnly {
		return errReadOnly
	}
	_, err := s.db.ExecContext(ctx, `UPDATE patchbot_track_change SET state = $1, culprit = $2, reason = $3, bisect = $4, comment = $5, tries = $6
		WHERE track = $7 AND pkg = $8 AND name = $9 AND unit = $10 AND hash = $11`,
		c.State, c.Culprit, c.Reason, c.Bisect, c.Comment, c.Tries, track, c.Key.Package, c.Key.Name, c.Key.Unit, c.Hash)
	if err != nil {
		return fmt.Errorf("track %s: updating the change of %s at %s: %v", track, c.Key, c.Hash, err)
	}
	return nil
}

// Changes returns the track's change points of w's series at its
// commits, in the order of their commits, then by series.
func (s *Store) Changes(ctx context.Context, track string, w Window) ([]*Change, error) {
	from, to, err := s.seqs(ctx, track, w)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, windowKeys+`SELECT ch.pkg, ch.name, ch.unit, ch.hash, ch.prev, ch.good, ch.bad, ch.before, ch.after, ch.p, ch.found, ch.state, ch.culprit, ch.reason, ch.bisect, ch.comment, ch.tries
		FROM patchbot_track_change ch
		JOIN patchbot_track_commit c ON c.track = ch.track AND c.hash = ch.hash
		JOIN keys ON keys.pkg = ch.pkg AND keys.name = ch.name AND keys.unit = ch.unit
		WHERE ch.track = $1 AND c.seq > $2 AND c.seq <= $3
		ORDER BY c.seq, ch.pkg, ch.name, ch.unit`, track, from, to, w.Unit, orAll(w.Series))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Change
	for rows.Next() {
		c := &Change{}
		var found int64
		if err := rows.Scan(&c.Key.Package, &c.Key.Name, &c.Key.Unit, &c.Hash, &c.Prev, &c.Good, &c.Bad, &c.Before, &c.After, &c.P, &found, &c.State, &c.Culprit, &c.Reason, &c.Bisect, &c.Comment, &c.Tries); err != nil {
			return nil, err
		}
		c.Found = time.Unix(found, 0).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// Tracks returns the names of the tracks in the store, sorted, at most
// limit of them (0: all).
func (s *Store) Tracks(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT track FROM patchbot_track_commit ORDER BY track LIMIT $1", orAll(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
