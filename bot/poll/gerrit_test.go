package poll

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/step/review"
)

// These tests run against the real test Gerrit (gerrittest.Get); each
// makes a change, a group and accounts of its own.

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// gitRepo is a clone of the test project's master, for pushing a change.
type gitRepo struct {
	t        *testing.T
	s        gerrittest.Server
	dir      string
	changeID string
}

func newGitRepo(t *testing.T, s gerrittest.Server) *gitRepo {
	r := &gitRepo{t: t, s: s, dir: t.TempDir(), changeID: "I" + randHex(20)}
	r.git("init", "-q", "-b", "master")
	r.git("fetch", "-q", s.URL+"/a/"+s.Project, "master")
	r.git("reset", "-q", "--hard", "FETCH_HEAD")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	return r.s.Git(r.t, r.dir, args...)
}

// push commits content (amending: a new patch set of the same change)
// and pushes it for review with the hashtag; it returns the commit.
func (r *gitRepo) push(content, hashtag string, amend bool) string {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, "poll.txt"), []byte(content), 0o666); err != nil {
		r.t.Fatal(err)
	}
	r.git("add", "poll.txt")
	args := []string{"commit", "-q", "-m", "poll: " + r.t.Name() + "\n\nChange-Id: " + r.changeID}
	if amend {
		args = append(args, "--amend")
	}
	r.git(args...)
	r.git("push", "-q", r.s.URL+"/a/"+r.s.Project, "HEAD:refs/for/master%hashtag="+hashtag)
	return r.git("rev-parse", "HEAD")
}

// as returns the server signed in as a new account, made with an HTTP
// password.
func as(t *testing.T, s gerrittest.Server, user string) (gerrittest.Server, int) {
	var ai struct {
		ID int `json:"_account_id"`
	}
	s.Do(t, "PUT", "/accounts/"+user, map[string]any{"name": user}, &ai)
	var pw string
	s.Do(t, "PUT", "/accounts/"+user+"/password.http", map[string]any{"generate": true}, &pw)
	s.User, s.Password = user, pw
	return s, ai.ID
}

// say posts a review message on a patch set and returns its id.
func say(t *testing.T, s gerrittest.Server, change, ps int, tag, text string) string {
	t.Helper()
	in := map[string]any{"message": text}
	if tag != "" {
		in["tag"] = tag
	}
	s.Do(t, "POST", fmt.Sprintf("/changes/%d/revisions/%d/review", change, ps), in, nil)
	var ms []struct {
		ID      string `json:"id"`
		Message string `json:"message"`
	}
	s.Do(t, "GET", fmt.Sprintf("/changes/%d/messages", change), nil, &ms)
	for _, m := range slices.Backward(ms) {
		if strings.HasSuffix(m.Message, text) {
			return m.ID
		}
	}
	t.Fatalf("message %q not found on change %d", text, change)
	return ""
}

// messageDate returns the date of a message as Gerrit stores it.
func messageDate(t *testing.T, s gerrittest.Server, change int, id string) time.Time {
	var ms []struct {
		ID   string `json:"id"`
		Date string `json:"date"`
	}
	s.Do(t, "GET", fmt.Sprintf("/changes/%d/messages", change), nil, &ms)
	for _, m := range ms {
		if m.ID == id {
			d, err := time.Parse("2006-01-02 15:04:05.999999999", m.Date)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no message %s", id)
	return time.Time{}
}

// TestPollGerrit is the poller end to end on the real Gerrit: commands by
// a trusted account, a group member and a stranger, a plain message and
// patchbot's own, then a new patch set; the events, bound to the patch
// set each command was written on; a second poll, and a new poller on the
// same cursor file, see nothing new; four polls at once on a fresh cursor
// queue one job per command; a message in the same second as the cursor
// is read once.
func TestPollGerrit(t *testing.T) {
	s := gerrittest.Get(t)
	ctx := context.Background()
	suffix := randHex(4)
	tag := "poll-" + suffix
	group := "poll-reviewers-" + suffix
	s.Do(t, "PUT", "/groups/"+group, map[string]any{}, nil)
	reviewer, reviewerID := as(t, s, "poll-reviewer-"+suffix)
	stranger, strangerID := as(t, s, "poll-stranger-"+suffix)
	s.Do(t, "PUT", "/groups/"+group+"/members/"+reviewer.User, nil, nil)

	start := time.Now().Add(-2 * time.Second)
	r := newGitRepo(t, s)
	ps1 := r.push("one\n", tag, false)
	cs := s.Changes(t, "hashtag:"+tag)
	if len(cs) != 1 {
		t.Fatalf("%d changes with hashtag %s", len(cs), tag)
	}
	change := cs[0].Number

	m1 := say(t, s, change, 1, "", "Looks right.\n\n/patchbot bench -count 3 ./codec")
	m2 := say(t, reviewer, change, 1, "", "/patchbot freeze")
	m3 := say(t, stranger, change, 1, "", "/patchbot bench")
	say(t, s, change, 1, "", "LGTM")
	say(t, s, change, 1, review.Tag("bench"), "/patchbot bench")
	ps2 := r.push("two\n", tag, true)

	g, err := review.NewGerrit(s.URL, &review.GerritAuth{User: s.User, Password: review.Secret(s.Password)}, review.Options{})
	if err != nil {
		t.Fatal(err)
	}
	trust := command.Trust{GerritSelf: []string{"patchbot-" + suffix}, GerritGroup: group, GerritTrusted: []string{s.User}}
	dir := t.TempDir()
	newPoller := func(dir string) *Poller {
		t.Helper()
		store, err := NewFileStore(dir, s.URL)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(g, &Options{Query: "hashtag:" + tag, Trust: trust, Store: store, Start: start})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	p := newPoller(dir)
	var events []*Event
	if _, err := p.Poll(ctx, collect(&events)); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(events), []string{m1 + ":run", m2 + ":run", m3 + ":refuse"}; !slices.Equal(got, want) {
		t.Fatalf("first poll: %v, want %v", got, want)
	}
	for i, wantWho := range []string{s.User, reviewer.User, stranger.User} {
		e := events[i]
		if e.PatchSet != 1 || e.Commit != ps1 || e.CurrentPatchSet != 2 || e.CurrentCommit != ps2 || !e.Newer() ||
			e.Change != change || e.Project != s.Project || e.Branch != "master" || e.Author.String() != wantWho {
			t.Errorf("event %d = %+v; want bound to patch set 1 (%s) by %s, with patch set 2 (%s) current", i, e, ps1, wantWho, ps2)
		}
	}
	if id := events[1].Author.AccountID; id != reviewerID {
		t.Errorf("reviewer's account %d, want %d", id, reviewerID)
	}
	if id := events[2].Author.AccountID; id != strangerID || events[2].Decision.Reply == "" {
		t.Errorf("stranger's event: %+v", events[2])
	}
	a, err := events[0].Args()
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
	if a.Review.String() != "gerrit:"+strings.TrimSuffix(host, "/")+":"+strconv.Itoa(change) || a.Revision != (review.Revision{PatchSet: 1, Commit: ps1}) || a.Command != "bench" ||
		a.Delivery != m1 || a.Request.Gerrit.Revision != ps1 || a.Request.Bench.Count != 3 {
		t.Errorf("args = %+v", a)
	}

	if got := poll(t, p); len(got) != 0 {
		t.Errorf("second poll: %v", got)
	}
	// A new poller on the same cursor file: nothing old, and the next
	// command, on patch set 2.
	p2 := newPoller(dir)
	if got := poll(t, p2); len(got) != 0 {
		t.Errorf("new poller: %v", got)
	}
	m4 := say(t, reviewer, change, 2, "", "/patchbot bench")
	events = nil
	if _, err := p2.Poll(ctx, collect(&events)); err != nil {
		t.Fatal(err)
	}
	if got := ids(events); !slices.Equal(got, []string{m4 + ":run"}) || events[0].PatchSet != 2 || events[0].Commit != ps2 || events[0].Newer() {
		t.Errorf("after patch set 2: %v %+v", got, events)
	}

	// Four polls at once from a fresh cursor: two on one poller, one on
	// each of two more pollers of the same file, all queueing into one
	// SQLite queue. Every message is read by several; each is one job.
	q, err := queue.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "queue.db"), &queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(ctx)
	fresh := t.TempDir()
	pa, pb, pc := newPoller(fresh), newPoller(fresh), newPoller(fresh)
	var mu sync.Mutex
	inserted, duplicates := map[string]int{}, 0
	enqueue := func(ctx context.Context, e *Event) error {
		if e.Decision.Verdict != command.Run {
			return nil // the server slice posts the reply
		}
		a, err := e.Args()
		if err != nil {
			return err
		}
		res, err := q.Insert(ctx, a)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if res.Duplicate {
			duplicates++
		} else {
			inserted[e.MessageID]++
		}
		return nil
	}
	var wg sync.WaitGroup
	for _, p := range []*Poller{pa, pa, pb, pc} {
		wg.Go(func() {
			if _, err := p.Poll(ctx, enqueue); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	want := map[string]int{m1: 1, m2: 1, m4: 1}
	if !maps.Equal(inserted, want) {
		t.Errorf("jobs inserted per message: %v, want one each of %v", inserted, want)
	}
	jobs, err := q.Jobs(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 {
		t.Errorf("%d jobs in the queue, want 3: %+v", len(jobs), jobs)
	}
	t.Logf("four polls at once: %d jobs, %d duplicate inserts", len(jobs), duplicates)
	if got := poll(t, pb); len(got) != 0 {
		t.Errorf("after the polls at once: %v", got)
	}

	// The cursor of a poll that read, in m2's second, everything but m2
	// (Gerrit dates messages to the second, so m2 came later in the same
	// second): m2 is read, once, and nothing else. No overlap, so that
	// only the second's rounding brings it in.
	var ms []struct {
		ID   string `json:"id"`
		Date string `json:"date"`
	}
	s.Do(t, "GET", fmt.Sprintf("/changes/%d/messages", change), nil, &ms)
	d := messageDate(t, s, change, m2)
	cur := Cursor{Since: d, Seen: map[string]time.Time{}}
	same := 0
	for _, m := range ms {
		if m.ID != m2 {
			at := messageDate(t, s, change, m.ID)
			cur.Seen[m.ID] = at
			if at.Equal(d) {
				same++
			}
		}
	}
	t.Logf("m2 shares its second with %d other messages", same)
	store := new(MemStore)
	store.Save(cur)
	ps, err := New(g, &Options{Query: "hashtag:" + tag, Trust: trust, Store: store, Overlap: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := poll(t, ps); !slices.Equal(got, []string{m2 + ":run"}) {
		t.Errorf("m2 unread in its second: %v, want m2 alone", got)
	}
	if got := poll(t, ps); len(got) != 0 {
		t.Errorf("again: %v", got)
	}
}
