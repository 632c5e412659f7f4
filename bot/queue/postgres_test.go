package queue

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/internal/pgtest"
)

func postgresURL(t *testing.T) string { return pgtest.URL(t) }
func postgresDB(t *testing.T) string  { return pgtest.NewDB(t) }

// TestPostgres runs a job through a queue on PostgreSQL (the other tests
// do too, with PATCHBOT_QUEUE_TEST_ENGINE=postgres), and checks that the
// queue's name for it hides the password.
func TestPostgres(t *testing.T) {
	dbu := postgresDB(t)
	done := make(chan int64, 1)
	q := open(t, dbu, Options{Handler: func(ctx context.Context, j *Job) error {
		done <- j.ID
		return nil
	}})
	if q.DB().Engine != "postgres" {
		t.Fatalf("engine %q", q.DB().Engine)
	}
	pass, _ := url.Parse(dbu)
	pw, _ := pass.User.Password()
	if s := q.DB().String(); strings.Contains(s, pw) || !strings.Contains(s, "xxxxx") {
		t.Errorf("DB().String() = %q: the password is not hidden", s)
	}
	if err := q.Check(t.Context()); err != nil {
		t.Errorf("Check: %v", err)
	}
	start(t, q)
	id := insert(t, q, args("1")).ID
	if got := recv(t, done, "the job"); got != id {
		t.Errorf("worked job %d, want %d", got, id)
	}
	waitState(t, q, id, "completed")
	if res := insert(t, q, args("1")); !res.Duplicate {
		t.Errorf("the same job again: %+v, want a duplicate", res)
	}
}

// TestPostgresErrors: a server that does not answer, a wrong password and
// a database whose schema the user may not change each give one error
// saying so, never with the password.
func TestPostgresErrors(t *testing.T) {
	base := postgresURL(t)
	u, _ := url.Parse(base)
	pw, _ := u.User.Password()
	with := func(f func(u *url.URL)) string {
		c := *u
		f(&c)
		return c.String()
	}
	for _, tc := range []struct {
		name, url, want string
	}{
		{"unreachable", with(func(u *url.URL) { u.Host = "127.0.0.1:1" }), "cannot connect"},
		{"wrong password", with(func(u *url.URL) { u.User = url.UserPassword(u.User.Username(), "wrong-"+pw) }), "password authentication failed"},
		// The postgres database's public schema is its owner's, not the
		// test user's.
		{"no permission", with(func(u *url.URL) { u.Path = "/postgres" }), "permission denied"},
		{"no database", with(func(u *url.URL) { u.Path = "" }), "no database name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Open(t.Context(), tc.url, &Options{Logger: testLogger(t)})
			if err == nil {
				q.Stop(t.Context())
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			t.Logf("Open: %v", err)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("Open: %v\nwant it to say %q", err, tc.want)
			}
			if strings.Contains(msg, pw) {
				t.Errorf("the error holds the password: %v", err)
			}
			var ue *db.URLError
			if tc.name == "no database" && !errors.As(err, &ue) {
				t.Errorf("a URL without a database is a %T, want a *URLError", err)
			}
		})
	}
}

// TestPostgresStartTogether: three processes' queues opened at the same
// instant on a fresh database, as replicas or the machines of one
// deployment start, ten times over: all open, and the database has one
// schema. (Unserialised, River's migrations collide: "duplicate key value
// violates unique constraint pg_type_typname_nsp_index".)
func TestPostgresStartTogether(t *testing.T) {
	for round := range 10 {
		dbu := postgresDB(t)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 3)
		qs := make([]*Queue, 3)
		for i := range qs {
			wg.Go(func() {
				<-start
				qs[i], errs[i] = Open(t.Context(), dbu, &Options{Logger: testLogger(t)})
			})
		}
		close(start)
		wg.Wait()
		for i, q := range qs {
			if errs[i] != nil {
				t.Errorf("round %d: queue %d: %v", round, i, errs[i])
				continue
			}
			if err := q.Stop(t.Context()); err != nil {
				t.Errorf("round %d: stop: %v", round, err)
			}
		}
		if t.Failed() {
			return
		}
	}
}
