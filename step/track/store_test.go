package track

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/patchbot/patchbot/internal/pgtest"
)

// engines opens a new, empty database of each engine: a SQLite file, and
// a database of its own on the test PostgreSQL (internal/pgtest; without
// it the PostgreSQL case skips, or fails under scripts/test).
var engines = []struct {
	name string
	open func(t *testing.T) *sql.DB
}{
	{"sqlite", func(t *testing.T) *sql.DB {
		// The queue's settings (bot/queue's sqliteDSN).
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "q.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}},
	{"postgres", func(t *testing.T) *sql.DB {
		db, err := sql.Open("pgx", pgtest.NewDB(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}},
}

var _ = stdlib.GetDefaultDriver // registers "pgx" with database/sql

func TestStore(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			db := e.open(t)
			s, err := Open(ctx, db, e.name)
			if err != nil {
				t.Fatal(err)
			}
			// Open again: the schema is current, nothing to do.
			if _, err := Open(ctx, db, e.name); err != nil {
				t.Fatalf("second Open: %v", err)
			}
			const tr = "example.com/m@main"
			if c, err := s.Last(ctx, tr); err != nil || c != nil {
				t.Fatalf("Last of an empty track: %+v, %v", c, err)
			}
			key := SeriesKey{"example.com/m", "Sum-2", "sec/op"}
			when := time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)
			for i, h := range []string{"aa", "bb", "cc"} {
				c := &Commit{Hash: h, Subject: "commit " + h, Time: when.Add(time.Duration(i) * time.Hour)}
				var values []Value
				if h == "bb" {
					c.Error = "does not build"
				} else {
					values = []Value{{Key: key, Value: float64(i + 1), N: 5}, {Key: SeriesKey{"example.com/m", "Sum-2", "B/op"}, Value: 8, N: 5}}
				}
				added, err := s.Add(ctx, tr, c, values)
				if err != nil || !added || c.Seq != int64(i+1) {
					t.Fatalf("Add %s: %v, %v, seq %d", h, added, err, c.Seq)
				}
			}
			if added, err := s.Add(ctx, tr, &Commit{Hash: "cc", Time: when}, []Value{{Key: key, Value: 9, N: 1}}); err != nil || added {
				t.Errorf("Add of a recorded commit: %v, %v; want false, the first kept", added, err)
			}
			last, err := s.Last(ctx, tr)
			if err != nil || last.Hash != "cc" || last.Seq != 3 || !last.Time.Equal(when.Add(2*time.Hour)) {
				t.Errorf("Last: %+v, %v", last, err)
			}
			cs, err := s.Commits(ctx, tr, Window{})
			if err != nil || len(cs) != 3 || cs[1].Error != "does not build" {
				t.Errorf("Commits: %+v, %v", cs, err)
			}
			series, err := s.Series(ctx, tr, Window{})
			if err != nil {
				t.Fatal(err)
			}
			if len(series) != 2 || series[0].Key.Unit != "B/op" || fmt.Sprint(series[1].Hashes, series[1].Points) != "[aa cc] [1 3]" {
				t.Errorf("Series: %+v", series)
			}
			ch := &Change{Key: key, Hash: "cc", Prev: "aa", Good: "aa", Bad: "cc", Before: 1, After: 3, P: 1e-4, Found: when, State: StateFound}
			if added, err := s.AddChange(ctx, tr, ch); err != nil || !added {
				t.Fatalf("AddChange: %v, %v", added, err)
			}
			if added, err := s.AddChange(ctx, tr, ch); err != nil || added {
				t.Errorf("AddChange again: %v, %v; want false", added, err)
			}
			ch.State, ch.Culprit, ch.Bisect, ch.Comment = StateCommented, "cc", `{"result":{}}`, "https://example.com/c/1"
			if err := s.UpdateChange(ctx, tr, ch); err != nil {
				t.Fatal(err)
			}
			got, err := s.Changes(ctx, tr, Window{})
			if err != nil || len(got) != 1 {
				t.Fatalf("Changes: %+v, %v", got, err)
			}
			if g := got[0]; g.State != StateCommented || g.Comment != ch.Comment || g.Bisect != ch.Bisect || g.Good != "aa" || g.Ratio() != 3 || !g.Found.Equal(when) {
				t.Errorf("Changes: %+v", g)
			}
			if ts, err := s.Tracks(ctx, 0); err != nil || len(ts) != 1 || ts[0] != tr {
				t.Errorf("Tracks: %v, %v", ts, err)
			}
		})
	}
}

// TestWindow: a window reads the latest commits, their series (of a
// unit, the first ones) and their change points, in SQL: what the public
// status page reads stays bounded however long a history grows.
func TestWindow(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, e.open(t), e.name)
			if err != nil {
				t.Fatal(err)
			}
			const tr = "example.com/m@main"
			a, aB, b, old := SeriesKey{"m", "A", "sec/op"}, SeriesKey{"m", "A", "B/op"}, SeriesKey{"m", "B", "sec/op"}, SeriesKey{"m", "Old", "sec/op"}
			var hashes []string
			for i := range 10 {
				h := fmt.Sprintf("%02d", i+1)
				hashes = append(hashes, h)
				values := []Value{{Key: a, Value: float64(i), N: 1}, {Key: aB, Value: 8, N: 1}, {Key: b, Value: 2, N: 1}}
				if i < 2 {
					values = append(values, Value{Key: old, Value: 1, N: 1}) // a benchmark since removed
				}
				if _, err := s.Add(ctx, tr, &Commit{Hash: h, Time: time.Unix(int64(i), 0)}, values); err != nil {
					t.Fatal(err)
				}
			}
			for _, at := range []int{2, 8} {
				for _, k := range []SeriesKey{a, aB} {
					if _, err := s.AddChange(ctx, tr, &Change{Key: k, Hash: hashes[at], Prev: hashes[at-1], Before: 1, After: 2, State: StateFound}); err != nil {
						t.Fatal(err)
					}
				}
			}
			// A change of m.B, which a window of one series leaves out.
			if _, err := s.AddChange(ctx, tr, &Change{Key: b, Hash: hashes[8], Prev: hashes[7], Before: 2, After: 3, State: StateFound}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Add(ctx, "example.com/z@main", &Commit{Hash: "zz"}, nil); err != nil {
				t.Fatal(err)
			}

			type got struct{ commits, series, changes string }
			read := func(w Window) got {
				t.Helper()
				cs, err := s.Commits(ctx, tr, w)
				if err != nil {
					t.Fatal(err)
				}
				ss, err := s.Series(ctx, tr, w)
				if err != nil {
					t.Fatal(err)
				}
				chs, err := s.Changes(ctx, tr, w)
				if err != nil {
					t.Fatal(err)
				}
				var g got
				for _, c := range cs {
					g.commits += c.Hash + " "
				}
				for _, sr := range ss {
					g.series += fmt.Sprintf("%s.%s %s %v; ", sr.Key.Package, sr.Key.Name, sr.Key.Unit, sr.Hashes)
				}
				for _, c := range chs {
					g.changes += c.Hash + " " + c.Key.Name + " " + c.Key.Unit + "; "
				}
				return g
			}
			for _, tt := range []struct {
				w    Window
				want got
			}{
				{Window{}, got{
					"01 02 03 04 05 06 07 08 09 10 ",
					"m.A B/op [01 02 03 04 05 06 07 08 09 10]; m.A sec/op [01 02 03 04 05 06 07 08 09 10]; m.B sec/op [01 02 03 04 05 06 07 08 09 10]; m.Old sec/op [01 02]; ",
					"03 A B/op; 03 A sec/op; 09 A B/op; 09 A sec/op; 09 B sec/op; "}},
				{Window{Commits: 3}, got{"08 09 10 ", "m.A B/op [08 09 10]; m.A sec/op [08 09 10]; m.B sec/op [08 09 10]; ", "09 A B/op; 09 A sec/op; 09 B sec/op; "}},
				{Window{Commits: 3, Unit: "sec/op"}, got{"08 09 10 ", "m.A sec/op [08 09 10]; m.B sec/op [08 09 10]; ", "09 A sec/op; 09 B sec/op; "}},
				{Window{Commits: 2, Unit: "sec/op", Series: 1}, got{"09 10 ", "m.A sec/op [09 10]; ", "09 A sec/op; "}},
				{Window{Series: 3, Unit: "sec/op"}, got{
					"01 02 03 04 05 06 07 08 09 10 ",
					"m.A sec/op [01 02 03 04 05 06 07 08 09 10]; m.B sec/op [01 02 03 04 05 06 07 08 09 10]; m.Old sec/op [01 02]; ",
					"03 A sec/op; 09 A sec/op; 09 B sec/op; "}},
				{Window{Commits: 100}, read(Window{})},
				// Ending at an earlier commit: what was read when it was
				// the last, whatever was recorded since.
				{Window{Last: 3}, got{"01 02 03 ", "m.A B/op [01 02 03]; m.A sec/op [01 02 03]; m.B sec/op [01 02 03]; m.Old sec/op [01 02]; ", "03 A B/op; 03 A sec/op; "}},
				{Window{Last: 5, Commits: 2, Unit: "sec/op"}, got{"04 05 ", "m.A sec/op [04 05]; m.B sec/op [04 05]; ", ""}},
				{Window{Last: 2, Series: 1}, got{"01 02 ", "m.A B/op [01 02]; ", ""}},
			} {
				if g := read(tt.w); g != tt.want {
					t.Errorf("%+v:\n got %q\nwant %q", tt.w, g, tt.want)
				}
			}
			if ts, err := s.Tracks(ctx, 1); err != nil || len(ts) != 1 || ts[0] != tr {
				t.Errorf("Tracks(1): %v, %v; want [%s]", ts, err, tr)
			}
			if ts, err := s.Tracks(ctx, 0); err != nil || len(ts) != 2 {
				t.Errorf("Tracks(0): %v, %v; want both", ts, err)
			}
		})
	}
}

// TestOpenTogether opens one fresh database from several connections at
// once, as replicas starting together do: one migrates, the others find
// the schema current.
func TestOpenTogether(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for range 4 {
				wg.Go(func() {
					_, err := Open(context.Background(), db, e.name)
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestNewerSchema: a database migrated by a newer patchbot is refused,
// and saying so, not read.
func TestNewerSchema(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			if _, err := Open(context.Background(), db, e.name); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("UPDATE patchbot_track_schema SET version = $1", Version()+1); err != nil {
				t.Fatal(err)
			}
			_, err := Open(context.Background(), db, e.name)
			if !errors.Is(err, ErrNewerSchema) {
				t.Errorf("Open of a newer schema: %v, want ErrNewerSchema", err)
			}
		})
	}
}

// TestOpenReadOnly: a read-only store reads a current schema, says what
// else it found (nothing tracked, an older or a newer schema) without
// migrating, and refuses every write.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			if _, err := openReadOnly(ctx, db, e.name); !errors.Is(err, ErrNoHistory) {
				t.Fatalf("an empty database: %v, want ErrNoHistory", err)
			}
			w, err := Open(ctx, db, e.name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Add(ctx, "t", &Commit{Hash: "a", Subject: "a", Time: time.Unix(1, 0)}, nil); err != nil {
				t.Fatal(err)
			}
			r, err := openReadOnly(ctx, db, e.name)
			if err != nil {
				t.Fatalf("a current schema: %v", err)
			}
			if c, err := r.Last(ctx, "t"); err != nil || c == nil || c.Hash != "a" {
				t.Errorf("Last = %+v, %v; want commit a", c, err)
			}
			if _, err := r.Add(ctx, "t", &Commit{Hash: "b", Subject: "b", Time: time.Unix(2, 0)}, nil); !errors.Is(err, errReadOnly) {
				t.Errorf("Add: %v, want errReadOnly", err)
			}
			if _, err := r.AddChange(ctx, "t", &Change{}); !errors.Is(err, errReadOnly) {
				t.Errorf("AddChange: %v, want errReadOnly", err)
			}
			if err := r.UpdateChange(ctx, "t", &Change{}); !errors.Is(err, errReadOnly) {
				t.Errorf("UpdateChange: %v, want errReadOnly", err)
			}
			for _, tt := range []struct {
				version int
				want    error
			}{{Version() - 1, ErrOldSchema}, {Version() + 1, ErrNewerSchema}} {
				if _, err := db.Exec("UPDATE patchbot_track_schema SET version = $1", tt.version); err != nil {
					t.Fatal(err)
				}
				if _, err := openReadOnly(ctx, db, e.name); !errors.Is(err, tt.want) {
					t.Errorf("version %d: %v, want %v", tt.version, err, tt.want)
				}
				var v int
				if err := db.QueryRow("SELECT version FROM patchbot_track_schema").Scan(&v); err != nil || v != tt.version {
					t.Errorf("version after the read-only open: %d, %v; want %d, untouched", v, err, tt.version)
				}
			}
		})
	}
}
