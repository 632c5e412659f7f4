package serve

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/poll"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/step/review"
)

// changeGerrit is a Gerrit of one change, 12, with two patch sets, for
// the poller: its messages are what the test adds.
type changeGerrit struct {
	mu sync.Mutex
	c  review.ChangeMessages
}

func (g *changeGerrit) URL() string { return "https://go-review.example.com" }

func (g *changeGerrit) ChangesUpdatedSince(ctx context.Context, query string, since time.Time, limit int) ([]review.ChangeMessages, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.c
	c.Messages = append([]review.ChangeMessage(nil), g.c.Messages...)
	return []review.ChangeMessages{c}, nil
}

func (g *changeGerrit) InGroup(ctx context.Context, group, account string) (bool, error) {
	return false, nil
}

func (g *changeGerrit) say(id string, at time.Time, account int, user string, ps int, text string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.c.Messages = append(g.c.Messages, review.ChangeMessage{ID: id, AccountID: account, Username: user, Date: at, PatchSet: ps, Text: text})
	g.c.Updated = at
}

// TestPollAskedAgain: on Gerrit, as on GitHub, a second message asking
// the same command on the same patch set gets one reply saying it was
// asked already (its options inert: a reviewer's text), not silence; the
// message that queued the job, read again, gets nothing; another patch
// set is another job.
func TestPollAskedAgain(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ps1, ps2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	g := &changeGerrit{c: review.ChangeMessages{
		Number: 12, Project: "codec", Branch: "master", URL: "https://go-review.example.com/c/codec/+/12",
		CurrentPatchSet: 2, Commits: map[int]string{1: ps1, 2: ps2},
	}}
	p, err := poll.New(g, &poll.Options{
		Start: t0.Add(-time.Hour),
		Trust: command.Trust{GerritSelf: []string{"patchbot"}, GerritTrusted: []string{"admin", "rob"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	ran := make(chan queue.Args, 10)
	q, err := queue.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "queue.db"), &queue.Options{Logger: log, Handler: func(ctx context.Context, j *queue.Job) error {
		ran <- j.Args
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.WithoutCancel(t.Context())) })
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	store := new(poll.MemStore)

	g.say("m1", t0, 1000000, "admin", 2, "/patchbot bench -count 5 ./codec")
	g.say("m2", t0.Add(time.Minute), 1000001, "rob", 2, "/patchbot bench ./codec -count 5")
	g.say("m3", t0.Add(2*time.Minute), 1000001, "rob", 1, "/patchbot bench -count 5 ./codec")
	// A reviewer's options are the reviewer's text: asked again, they
	// are quoted inert, neither a mention nor a link.
	g.say("m4", t0.Add(3*time.Minute), 1000000, "admin", 1, "/patchbot bench -bench @admin|https://evil.example.com/x ./codec")
	g.say("m5", t0.Add(4*time.Minute), 1000001, "rob", 1, "/patchbot bench -bench @admin|https://evil.example.com/x ./codec")
	for range 2 { // the second poll reads the same messages again
		if _, err := pollOnce(t.Context(), p, store, q, log, nil); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]queue.Args{}
	for range 5 {
		select {
		case a := <-ran:
			got[a.String()] = a
		case <-time.After(time.Minute):
			t.Fatalf("jobs run: %d, want 5", len(got))
		}
	}
	select {
	case a := <-ran:
		t.Fatalf("a fourth job: %s", &a)
	case <-time.After(500 * time.Millisecond):
	}
	server := "gerrit:go-review.example.com:12"
	for _, id := range []string{
		"bench -count 5 ./codec " + server + " @ 2:" + ps2,
		"help " + server + " @ message:m2",
		"bench -count 5 ./codec " + server + " @ 1:" + ps1,
		"bench -bench @admin|https://evil.example.com/x ./codec " + server + " @ 1:" + ps1,
		"help " + server + " @ message:m5",
	} {
		if _, ok := got[id]; !ok {
			t.Errorf("no job %s; jobs: %v", id, keys(got))
		}
	}
	a := got["help "+server+" @ message:m2"]
	want := "/patchbot bench -count 5 ./codec was asked already on patch set 2 (222222222222): nothing new is run. patchbot replies to it once, on this change."
	if a.Request.Post.Text != want || a.Who != "rob" || a.Request.Gerrit == nil || a.Request.Gerrit.Revision != ps2 {
		t.Errorf("the reply to m2: %q by %s on %+v\nwant %q by rob on patch set 2", a.Request.Post.Text, a.Who, a.Request.Gerrit, want)
	}
	evil := got["help "+server+" @ message:m5"].Request.Post.Text
	if !strings.HasPrefix(evil, "/patchbot bench -bench ") || strings.Contains(evil, "@admin") || strings.Contains(evil, "https://") || strings.Contains(evil, "evil.example") {
		t.Errorf("the reply to m5 has a live mention or link: %q", evil)
	}
}

func keys(m map[string]queue.Args) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
