package config

import (
	"testing"
)

func TestSweep(t *testing.T) {
	if got := Default().Sweep; got != (Sweep{MaxStale: 5}) {
		t.Errorf("built-in sweep section = %+v, want only max_stale 5", got)
	}
	for _, tt := range []struct {
		in   string
		want Sweep
		err  string
	}{
		{in: "sweep:\n  query: project:go\n  github: golang/go\n  queue: sqlite:/var/lib/patchbot/queue.db\n",
			want: Sweep{Query: "project:go", GitHub: "golang/go", Queue: "sqlite:/var/lib/patchbot/queue.db", MaxStale: 5}},
		{in: "sweep:\n  queue: postgres://patchbot@db:5432/patchbot\n  max_stale: 20\n", want: Sweep{Queue: "postgres://patchbot@db:5432/patchbot", MaxStale: 20}},
		{in: "sweep:\n  queue: postgres://patchbot:s3cret@db/patchbot\n", err: "user.yaml:2: sweep.queue: postgres://patchbot:xxxxx@db/patchbot has a password in it: leave it out, and set PGPASSWORD where sweep runs"},
		{in: "sweep:\n  queue: /var/lib/q.db\n", err: `user.yaml:2: sweep.queue: "/var/lib/q.db" is not sqlite:FILE or postgres://USER@HOST:PORT/DATABASE`},
		{in: "sweep:\n  github: golang\n", err: `user.yaml:2: sweep.github: "golang" is not a repository like owner/repo`},
		{in: "sweep:\n  max_stale: 0\n", err: "user.yaml:2: sweep.max_stale: must be from 1 to 100"},
		{in: "sweep:\n  query: \"a\\nb\"\n", err: "user.yaml:2: sweep.query: has control characters in it"},
		{in: "sweep:\n  only: freeze\n", err: "user.yaml:2: sweep.only: unknown key (known keys here: github, max_stale, query, queue)"},
	} {
		c, err := Parse("user.yaml", []byte(tt.in))
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: err = %v, want %s", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case c.Sweep != tt.want:
			t.Errorf("%q: %+v, want %+v", tt.in, c.Sweep, tt.want)
		}
	}
}
