package queue

import (
	"testing"
	"time"
)

// TestHeads: a pull request's heads are recorded with the time they were
// learned, a head seen again at its later time, by any process on the
// database (a second queue opened on it), and old records are forgotten.
func TestHeads(t *testing.T) {
	t.Parallel()
	url := dbURL(t)
	q := open(t, url, Options{})
	ctx := t.Context()
	const pr, a, b = "Owner/Repo#7", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	check := func(q *Queue, pr, sha string, wantAt time.Time, wantAny bool) {
		t.Helper()
		at, known, err := q.HeadSeen(ctx, pr, sha)
		if err != nil || !at.Equal(wantAt) || known != wantAny {
			t.Errorf("HeadSeen(%s, %.7s) = %v, %v, %v; want %v, %v", pr, sha, at, known, err, wantAt, wantAny)
		}
	}
	check(q, pr, a, time.Time{}, false)
	for _, r := range []struct {
		sha string
		at  time.Time
	}{{a, t0}, {b, t0.Add(time.Minute)}, {a, t0.Add(2 * time.Minute)}, {b, t0.Add(30 * time.Second)}} {
		if err := q.RecordHead(ctx, pr, r.sha, r.at); err != nil {
			t.Fatal(err)
		}
	}
	check(q, pr, a, t0.Add(2*time.Minute), true) // back to a: the later time
	check(q, pr, b, t0.Add(time.Minute), true)   // a late event changes nothing
	check(q, "owner/repo#7", b, t0.Add(time.Minute), true)
	check(q, pr, "cccccccccccccccccccccccccccccccccccccccc", time.Time{}, true)
	check(q, "owner/repo#8", a, time.Time{}, false)

	other := open(t, url, Options{})
	check(other, pr, a, t0.Add(2*time.Minute), true)

	// A record from long after forgets the old ones.
	if err := other.RecordHead(ctx, "owner/repo#9", a, t0.Add(headRetention+time.Hour)); err != nil {
		t.Fatal(err)
	}
	check(q, pr, a, time.Time{}, false)
}
