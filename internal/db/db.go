// Package db is where patchbot keeps what outlives a process: one SQL
// database, SQLite or PostgreSQL, named by a URL (serve's, sweep's and
// track's -db), which holds River's queue (bot/queue) and the branches'
// histories (step/track) side by side. It parses the URL, names the
// default file, and opens the database with the settings every user of it
// shares: for SQLite WAL, a busy timeout and immediate transactions, for
// PostgreSQL a migration lock that processes started together take turns
// under; errors never show a password.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// A Database is a parsed database URL (serve's, sweep's and track's -db):
// which engine, and where.
type Database struct {
	Engine string // "sqlite" or "postgres"
	Path   string // for sqlite: the database file
	URL    string // for postgres: the connection URL, password and all
}

// String returns the URL for messages and logs: a PostgreSQL password is
// replaced by xxxxx.
func (d Database) String() string {
	if d.Engine == "postgres" {
		return redact(d.URL)
	}
	return d.Engine + ":" + d.Path
}

// redact returns the URL s with its password, if any, as xxxxx; a URL it
// cannot parse is all hidden but its scheme, since where the password
// is in it is not known.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		scheme, _, _ := strings.Cut(s, ":")
		return scheme + "://(unparsable URL, hidden)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// A URLError is a database URL that Parse does not take.
type URLError struct {
	URL    string
	Reason string
}

func (e *URLError) Error() string { return fmt.Sprintf("queue database %q: %s", e.URL, e.Reason) }

// Supported names the URL forms Parse takes, for messages and help.
const Supported = "sqlite:FILE (also sqlite://FILE; sqlite:///abs/path) or postgres://USER:PASSWORD@HOST:PORT/DATABASE"

// Parse parses a database URL. The forms are those of River's own tools:
// sqlite:FILE and sqlite://FILE are the file FILE, relative to the working
// directory unless absolute (sqlite:/var/lib/q.db and sqlite:///var/lib/q.db
// are the same file). A bare path is refused, so that the value always says
// which engine it is for; so are an empty path, :memory: (a queue must
// outlive its process) and a '?' (SQLite options are patchbot's to set).
// postgres:// and postgresql:// URLs are PostgreSQL connection URLs as
// pgx takes them (libpq's form: postgres://user:password@host:port/db?
// sslmode=...); the URL in an error has its password hidden.
func Parse(s string) (Database, error) {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, `/\.`) {
		hint := ""
		if s != "" {
			hint = fmt.Sprintf(" (for a file, sqlite:%s)", s)
		}
		return Database{}, &URLError{s, "want " + Supported + hint}
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		path := strings.TrimPrefix(rest, "//")
		switch {
		case path == "":
			return Database{}, &URLError{s, "no file: want " + Supported}
		case path == ":memory:":
			return Database{}, &URLError{s, "an in-memory queue loses its jobs with the process: give a file"}
		case strings.ContainsAny(path, "?\x00"):
			return Database{}, &URLError{s, "a file name with '?' or NUL is not supported (SQLite's options are set by patchbot)"}
		}
		return Database{Engine: "sqlite", Path: filepath.Clean(path)}, nil
	case "postgres", "postgresql":
		cfg, err := pgxpool.ParseConfig(s)
		if err != nil {
			// pgx's message may quote the URL: say what is wrong
			// without it.
			return Database{}, &URLError{redact(s), "not a PostgreSQL connection URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"}
		}
		if cfg.ConnConfig.Database == "" {
			return Database{}, &URLError{redact(s), "no database name: postgres://USER:PASSWORD@HOST:PORT/DATABASE"}
		}
		return Database{Engine: "postgres", URL: s}, nil
	}
	return Database{}, &URLError{s, fmt.Sprintf("unknown engine %q: want %s", scheme, Supported)}
}

// DefaultPath is the database file when none is named (serve's queue):
// $XDG_STATE_HOME/patchbot/queue.db, or ~/.local/state/patchbot/queue.db
// when XDG_STATE_HOME is not set (or not absolute, as the XDG spec asks).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("queue database: no state directory: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "patchbot", "queue.db"), nil
}

// DefaultURL is the URL of DefaultPath.
func DefaultURL() (string, error) {
	p, err := DefaultPath()
	if err != nil {
		return "", err
	}
	return "sqlite:" + p, nil
}

// busyTimeoutMS is how long a statement waits for another process's write
// lock (a status command reading the file while serve runs) before
// failing with SQLITE_BUSY.
const busyTimeoutMS = 10000

// sqliteDSN is modernc's data source name for the file: WAL journaling
// (River's own SQLite tests depend on it to avoid "database is locked"),
// a busy timeout, and transactions that take the write lock when they
// begin (BEGIN IMMEDIATE), so that two processes on one file wait for each
// other instead of failing on a lock upgrade.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Set("_txlock", "immediate")
	// Not "file:" + path: a plain file name is not read as a URI, so '%'
	// and '#' in it mean themselves.
	return path + "?" + q.Encode()
}

// OpenSQLite opens (creating if need be) the database file, with the
// settings every user of it shares (sqliteDSN) and one connection.
func OpenSQLite(ctx context.Context, path string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("queue database %s: its directory cannot be made (%v): choose a file in a directory this user may write", path, err)
	}
	// SQLite says no more than "unable to open database file (14)" of a
	// directory it may not write in (the file, and its -wal and -shm
	// beside it): find out first, and say which and why.
	probe, err := os.CreateTemp(filepath.Dir(path), ".patchbot-probe-")
	if err != nil {
		return nil, fmt.Errorf("queue database %s: cannot write in its directory %s (%v): choose a file in a directory this user may write", path, filepath.Dir(path), errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("queue database %s: %w", path, err)
	}
	// River works from several goroutines; SQLite allows one writer at a
	// time and answers others with SQLITE_BUSY. One connection serialises
	// them in the pool instead, as riversqlite's documentation and River's
	// own tests do.
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("queue database %s: %w", path, err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("queue database %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("queue database %s: journal mode is %q, not WAL (is the file on a file system without shared memory?)", path, mode)
	}
	return db, nil
}

// OpenPostgres connects to the database at d.URL, as a pool for pgx (and
// River's pgx driver). The errors name the database without its password,
// and what to check.
func OpenPostgres(ctx context.Context, db Database) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(db.URL)
	if err != nil {
		return nil, fmt.Errorf("queue database %s: not a PostgreSQL connection URL", db)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("queue database %s: %v", db, scrub(err, cfg.ConnConfig.Password))
	}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("queue database %s: cannot connect (is the server up, and are the user, password and database right?): %v", db, scrub(err, cfg.ConnConfig.Password))
	}
	return pool, nil
}

// scrub returns err's message with password, should a driver ever quote
// it, hidden.
func scrub(err error, password string) error {
	if password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), password, "xxxxx"))
}

// Scrub returns err with d's password, should a driver ever quote it,
// hidden.
func Scrub(err error, d Database) error { return scrub(err, passwordOf(d)) }

// passwordOf returns the password in db's URL, to scrub from messages.
func passwordOf(db Database) string {
	if cfg, err := pgxpool.ParseConfig(db.URL); err == nil {
		return cfg.ConnConfig.Password
	}
	return ""
}

// migrationLock is the key of the PostgreSQL advisory lock under which a
// process migrates River's schema and the queue's own tables: "patchbot"
// in ASCII. (The track store takes a lock of its own: step/track.)
const migrationLock = 0x7061746368626f74

// LockMigrations waits for the database's migration lock and returns the
// function that releases it. Processes started together on a fresh
// database (replicas, the machines of one deployment) would otherwise run
// River's migrations at once and collide ("duplicate key value violates
// unique constraint pg_type_typname_nsp_index"); under the lock, the first
// migrates and the others find the schema current. The lock is a session's,
// so it is held on one connection of the pool, which unlock gives back.
func LockMigrations(ctx context.Context, pool *pgxpool.Pool) (unlock func(), err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot connect: %v", err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
		conn.Release()
		return nil, fmt.Errorf("waiting for the migration lock: %v", err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		// pg_advisory_unlock says false, not an error, when this
		// session does not hold the lock (a pooler between, say): the
		// session's lock ends with its connection, which is closed then.
		var released bool
		if err := conn.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", int64(migrationLock)).Scan(&released); err != nil || !released {
			conn.Conn().Close(ctx)
		}
		conn.Release()
	}, nil
}

// OpenSQL opens db's database through database/sql, for the tables
// patchbot keeps there beside River's (step/track's history of
// benchmarks): the same file or server, with the same settings (for
// SQLite, WAL, the busy timeout and one connection, so that it waits for
// River's writes rather than failing on them). Statements use $1, $2 for
// their arguments, which both engines take. Close it when done.
func OpenSQL(ctx context.Context, db Database) (*sql.DB, error) {
	switch db.Engine {
	case "sqlite":
		return OpenSQLite(ctx, db.Path)
	case "postgres":
		cfg, err := pgx.ParseConfig(db.URL)
		if err != nil {
			return nil, fmt.Errorf("queue database %s: not a PostgreSQL connection URL", db)
		}
		d := stdlib.OpenDB(*cfg)
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := d.PingContext(pctx); err != nil {
			d.Close()
			return nil, fmt.Errorf("queue database %s: cannot connect (is the server up, and are the user, password and database right?): %v", db, scrub(err, cfg.Password))
		}
		return d, nil
	}
	return nil, &URLError{db.String(), "unknown engine"}
}
