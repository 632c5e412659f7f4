package review

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestUpdatedQuery(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		query string
		since time.Time
		want  string
	}{
		{"", time.Time{}, ""},
		{"project:go", time.Time{}, "project:go"},
		// UTC, and rounded down to the second: 04:06:07.89 is in it.
		{"", at, `after:"2026-03-04 04:06:07"`},
		{"project:go OR project:tools", at, `(project:go OR project:tools) after:"2026-03-04 04:06:07"`},
		{"status:open", at.Truncate(time.Second), `(status:open) after:"2026-03-04 04:06:07"`},
	} {
		if got := UpdatedQuery(tc.query, tc.since); got != tc.want {
			t.Errorf("UpdatedQuery(%q, %v) = %q, want %q", tc.query, tc.since, got, tc.want)
		}
	}
}

// TestChangesUpdatedSince pushes two changes, the first with two patch
// sets and a message, and reads them back one change a page, through a
// proxy that answers the second page's first request with a 503.
func TestChangesUpdatedSince(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	tag := "updated-" + newChangeID()[1:9]
	before := time.Now().Add(-2 * time.Second)

	r := newTestRepo(t, s)
	id := newChangeID()
	ps1 := r.commit(id, tag+" one\n", false)
	first, _ := pushChange(t, g, s, r, PushOptions{Hashtags: []string{tag}})
	if _, err := g.Post(ctx, GerritPost{Change: first, Message: Message{Kind: "note", Text: "/patchbot bench"}}); err != nil {
		t.Fatal(err)
	}
	ps2 := r.commit(id, tag+" two\n", true)
	pushChange(t, g, s, r, PushOptions{Hashtags: []string{tag}})
	r2 := newTestRepo(t, s)
	r2.commit(newChangeID(), tag+" other\n", false)
	second, _ := pushChange(t, g, s, r2, PushOptions{Hashtags: []string{tag}})

	proxy := newFaultProxy(t, s.url, once(func(r *http.Request) bool { return strings.Contains(r.URL.RawQuery, "S=1") }, answer(http.StatusServiceUnavailable, "")))
	behind := newTestGerrit(t, testServer{proxy.URL, s.user, s.password, s.project}, Options{})
	cs, err := behind.ChangesUpdatedSince(ctx, "hashtag:"+tag, before, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := proxy.count("GET "); n != 3 {
		t.Errorf("%d GETs, want 3 (two pages, one retried)", n)
	}
	if len(cs) != 2 || cs[0].Project != s.project || cs[0].Branch != "master" {
		t.Fatalf("changes = %+v, want %s and %s", cs, second, first)
	}
	c := cs[slices.IndexFunc(cs, func(c ChangeMessages) bool { return strings.HasSuffix(c.URL, "/+/"+first) })]
	if c.CurrentPatchSet != 2 || c.Commits[1] != ps1 || c.Commits[2] != ps2 || c.CurrentCommit() != ps2 {
		t.Errorf("patch sets: current %d, commits %v; want 2, {1: %s, 2: %s}", c.CurrentPatchSet, c.Commits, ps1, ps2)
	}
	i := slices.IndexFunc(c.Messages, func(m ChangeMessage) bool { return strings.HasSuffix(m.Text, "/patchbot bench") })
	if i < 0 {
		t.Fatalf("no message /patchbot bench in %+v", c.Messages)
	}
	m := c.Messages[i]
	if m.ID == "" || m.AccountID == 0 || m.Username != s.user || m.Tag != Tag("note") || m.PatchSet != 1 ||
		m.Date.Before(before) || m.Date.After(time.Now().Add(time.Minute)) || m.Date.Location() != time.UTC {
		t.Errorf("message = %+v", m)
	}
	if c.Updated.Before(m.Date) {
		t.Errorf("change updated %v, before its message of %v", c.Updated, m.Date)
	}

	// Since later than every update: nothing. Gerrit rounds nothing: the
	// second after the last update is past it.
	last := cs[0].Updated
	for _, c := range cs {
		if c.Updated.After(last) {
			last = c.Updated
		}
	}
	if cs, err := g.ChangesUpdatedSince(ctx, "hashtag:"+tag, last.Truncate(time.Second).Add(time.Second), 0); err != nil || len(cs) != 0 {
		t.Errorf("since the next second: %d changes, %v", len(cs), err)
	}
	// Since the very moment of the last update, to the nanosecond: the
	// change updated last is there, though after: reads seconds only.
	if cs, err := g.ChangesUpdatedSince(ctx, "hashtag:"+tag, last, 0); err != nil || len(cs) == 0 {
		t.Errorf("since the last update: %d changes, %v", len(cs), err)
	}
}
