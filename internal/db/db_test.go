package db

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := []struct{ in, path string }{
		{"sqlite:queue.db", "queue.db"},
		{"sqlite://queue.db", "queue.db"},
		{"sqlite:/var/lib/patchbot/queue.db", "/var/lib/patchbot/queue.db"},
		{"sqlite:///var/lib/patchbot/queue.db", "/var/lib/patchbot/queue.db"},
		{"SQLite:dir/../q.db", "q.db"},
	}
	for _, in := range []string{"postgres://u:s3cret@localhost/patchbot", "postgresql://u@db.example.com:5433/q?sslmode=verify-full"} {
		db, err := Parse(in)
		if err != nil || db.Engine != "postgres" || db.URL != in || strings.Contains(db.String(), "s3cret") {
			t.Errorf("Parse(%q) = %+v (%s), %v; want postgres, the password hidden in String", in, db, db, err)
		}
	}
	for _, tt := range good {
		db, err := Parse(tt.in)
		if err != nil || db.Engine != "sqlite" || db.Path != tt.path {
			t.Errorf("Parse(%q) = %+v, %v; want sqlite %s", tt.in, db, err, tt.path)
		}
	}
	bad := []struct{ in, want string }{
		{"", "want sqlite:FILE"},
		{"/var/lib/q.db", "for a file, sqlite:/var/lib/q.db"},
		{"q.db", "for a file, sqlite:q.db"},
		{"sqlite:", "no file"},
		{"sqlite://", "no file"},
		{"sqlite::memory:", "in-memory"},
		{"sqlite:q.db?mode=ro", "'?'"},
		{"postgres://u:s3cret@localhost:notaport/patchbot", `"postgres://(unparsable URL, hidden)": not a PostgreSQL connection URL`},
		{"postgres://u:s3cret@localhost/", `"postgres://u:xxxxx@localhost/": no database name`},
		{"mysql://localhost/patchbot", `unknown engine "mysql"`},
	}
	for _, tt := range bad {
		_, err := Parse(tt.in)
		var ue *URLError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v; want a *URLError containing %q", tt.in, err, tt.want)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if p, err := DefaultPath(); err != nil || p != "/state/patchbot/queue.db" {
		t.Errorf("with XDG_STATE_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // the spec says to ignore it
	t.Setenv("HOME", "/home/gopher")
	if p, err := DefaultPath(); err != nil || p != "/home/gopher/.local/state/patchbot/queue.db" {
		t.Errorf("without XDG_STATE_HOME: %q, %v", p, err)
	}
	if u, err := DefaultURL(); err != nil || u != "sqlite:/home/gopher/.local/state/patchbot/queue.db" {
		t.Errorf("DefaultURL: %q, %v", u, err)
	}
}
