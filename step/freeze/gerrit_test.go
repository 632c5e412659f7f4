package freeze

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/review"
)

// These tests run against a real Gerrit, started by
// scripts/gerrit-test-server and found by gerrittest.Get. Each
// test uses names of its own (a topic, a release prefix), so they run again
// on the same server without seeing one another's changes and branches.

type testServer struct {
	gerrittest.Server
	url, user, password, project string
}

func gerritServer(t *testing.T) testServer {
	t.Helper()
	s := gerrittest.Get(t)
	return testServer{s, s.URL, s.User, s.Password, s.Project}
}

func (s testServer) auth() *review.GerritAuth {
	return &review.GerritAuth{User: s.user, Password: review.Secret(s.password)}
}

// fastPolicy keeps retries short in tests.
var fastPolicy = review.Policy{Attempts: 3, Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxWait: 5 * time.Second}

func (s testServer) review(t *testing.T) *review.Gerrit {
	t.Helper()
	return s.reviewWith(t, review.Options{Policy: fastPolicy})
}

func (s testServer) reviewWith(t *testing.T, o review.Options) *review.Gerrit {
	t.Helper()
	g, err := review.NewGerrit(s.url, s.auth(), o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// source returns a GerritSource of the test project, signed in.
func (s testServer) source(t *testing.T) *GerritSource {
	t.Helper()
	return NewGerritSource(s.review(t), s.project)
}

func unique() string {
	b := make([]byte, 5)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// pushChange pushes a new change with the topic and returns its number.
func pushChange(t *testing.T, s testServer, topic string) string {
	t.Helper()
	dir := t.TempDir()
	g := gittest.Open(t, dir)
	g.Env = []string{"GIT_AUTHOR_NAME=Administrator", "GIT_AUTHOR_EMAIL=admin@example.com", "GIT_COMMITTER_NAME=Administrator", "GIT_COMMITTER_EMAIL=admin@example.com"}
	git := g.Git
	git("init", "-q", "-b", "master")
	auth := base64.StdEncoding.EncodeToString([]byte(s.user + ":" + s.password))
	git("-c", "http.extraHeader=Authorization: Basic "+auth, "fetch", "-q", s.url+"/a/"+s.project, "master")
	git("reset", "-q", "--hard", "FETCH_HEAD")
	if err := os.WriteFile(filepath.Join(dir, "freeze.txt"), []byte(topic+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	git("add", "freeze.txt")
	b := make([]byte, 20)
	rand.Read(b)
	git("commit", "-q", "-m", "codec: use the fast path for unsigned integers\n\nChange-Id: I"+hex.EncodeToString(b))
	res, err := s.review(t).Push(context.Background(), review.PushOptions{Dir: dir, Project: s.project, Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 {
		t.Fatalf("push listed %d changes, want 1", len(res.Changes))
	}
	u := res.Changes[0].URL
	return u[strings.LastIndex(u, "/")+1:]
}

// freezeMessages returns the texts of the change's freeze messages.
func freezeMessages(t *testing.T, s testServer, change string) []string {
	t.Helper()
	var out []string
	for _, m := range s.Messages(t, change) {
		if m.Tag == review.Tag(MessageKind) {
			out = append(out, m.Message)
		}
	}
	return out
}

// TestGerritReleaseBranch checks the branch signal: with the rule saying
// the tree reopened after release X.1 but no release-branch.X.1 on Gerrit,
// the live signal says the freeze goes on; once the branch appears, the
// rule's answer stands.
func TestGerritReleaseBranch(t *testing.T) {
	srv := gerritServer(t)
	prefix := "t" + unique() + "."
	at := day("2026-04-15")
	s := &Sources{
		Rule: &Rule{Prefix: prefix, First: 1, FirstFreeze: day("2026-01-01"), CycleMonths: 6,
			Freeze: Week{0, 4}, Reopen: Week{2, 3}, Release: Week{3, 2}},
		Branches:            []string{"master"},
		ReleaseBranchPrefix: "release-branch.",
		Gerrit:              srv.source(t),
		Timeout:             time.Minute, // against a hang (see liveSources)
		Now:                 func() time.Time { return at },
	}
	s.Gerrit.Filter = "topic:" + unique() // no changes: only the branch speaks
	branch := "release-branch." + prefix + "1"

	st, err := Check(context.Background(), s, "master", at)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Frozen || st.Release != prefix+"1" || st.Source != "gerrit" || !st.Reopen.IsZero() {
		t.Errorf("without %s: frozen=%v release=%s source=%s reopen=%v", branch, st.Frozen, st.Release, st.Source, st.Reopen)
	}
	if !hasFact(st, "gerrit", branch+" does not exist in "+srv.project) || !hasDisagreement(st, "gerrit says the tree is frozen ("+branch+" does not exist yet)") {
		t.Errorf("without %s: facts %+v, disagreements %q", branch, st.Facts, st.Disagreements)
	}

	srv.CreateBranch(t, branch, "master")
	st, err = Check(context.Background(), s, "master", at)
	if err != nil {
		t.Fatal(err)
	}
	if st.Frozen || st.Release != prefix+"2" || st.Source != "rule" || len(st.Disagreements) > 0 {
		t.Errorf("with %s: frozen=%v release=%s source=%s disagreements=%q", branch, st.Frozen, st.Release, st.Source, st.Disagreements)
	}
	if !hasFact(st, "gerrit", branch+" exists in "+srv.project) {
		t.Errorf("with %s: facts %+v", branch, st.Facts)
	}
}

// TestApplyAndHashtags applies a frozen and then an open status to a real
// change, twice each: the hashtags move and each message is posted once;
// the hashtags are then read back as live signals.
func TestApplyAndHashtags(t *testing.T) {
	srv := gerritServer(t)
	topic := "freeze-" + unique()
	change := pushChange(t, srv, topic)
	// Abandoned at the end, so that its hashtags do not speak in the live
	// signals of other tests on the same server.
	t.Cleanup(func() { srv.Abandon(t, change) })
	g := srv.review(t)
	ctx := context.Background()
	offline := defaultSources(t)
	frozen, err := Check(ctx, offline, "master", day("2014-11-06"))
	if err != nil {
		t.Fatal(err)
	}
	open, err := Check(ctx, offline, "master", day("2014-12-22"))
	if err != nil {
		t.Fatal(err)
	}

	// Open, and not waiting: nothing to do.
	res, err := Apply(ctx, g, change, open)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message != "" || res.Post != nil || len(res.After) != 0 {
		t.Errorf("open, not waiting: %+v", res)
	}

	// A dry run reads and writes nothing.
	res, err = Apply(ctx, srv.reviewWith(t, review.Options{DryRun: true, Policy: fastPolicy}), change, frozen)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message == "" || res.Post != nil || !slices.Equal(res.After, []string{WaitRelease}) {
		t.Errorf("dry run: %+v", res)
	}
	if have, _ := g.Hashtags(ctx, change, nil, nil); len(have) != 0 || len(freezeMessages(t, srv, change)) != 0 {
		t.Fatalf("dry run wrote: hashtags %v", have)
	}
	// The same again, with a log of the writes not done.
	var log strings.Builder
	dry, err := Apply(ctx, srv.reviewWith(t, review.Options{DryRun: true, Log: &log, Policy: fastPolicy}), change, frozen)
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || dry.Post != nil || !slices.Equal(dry.After, res.After) || dry.Message != res.Message {
		t.Errorf("dry run by the client's options: %+v, want %+v", dry, res)
	}
	if have, _ := g.Hashtags(ctx, change, nil, nil); len(have) != 0 || len(freezeMessages(t, srv, change)) != 0 {
		t.Fatalf("dry run by the client's options wrote: hashtags %v; log %q", have, log.String())
	}

	wantFrozen := "The tree is frozen for Go 1.4 since 2014-09-01 (calendar); it is expected to reopen around 2014-12-10. This change is tagged wait-release until then."
	for i := range 2 {
		res, err = Apply(ctx, g, change, frozen)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.After, []string{WaitRelease}) {
			t.Errorf("frozen, run %d: hashtags %v", i+1, res.After)
		}
		if i == 0 && (res.Post == nil || res.Post.Action != review.Posted || res.Message != wantFrozen) {
			t.Errorf("frozen, run 1: %+v", res)
		}
		if i == 1 && res.Message != "" {
			t.Errorf("frozen, run 2 would post again: %+v", res)
		}
	}
	if msgs := freezeMessages(t, srv, change); len(msgs) != 1 || !strings.Contains(msgs[0], wantFrozen) {
		t.Errorf("after two frozen runs: messages %q", msgs)
	}

	// The hashtag is a live signal: with the rule saying open, an open
	// change tagged wait-release says the freeze goes on.
	at := day("2026-09-01")
	live := liveSources(t, at)
	live.Gerrit = srv.source(t)
	live.Gerrit.Filter = "topic:" + topic
	st, err := Check(ctx, live, "master", at)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Frozen || st.Source != "gerrit" || st.Release != "go1.27" || !hasFact(st, "gerrit", "open changes tagged wait-release: 1; tagged ex-wait-release: 0") {
		t.Errorf("with wait-release: %+v", st)
	}

	for i := range 2 {
		res, err = Apply(ctx, g, change, open)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.After, []string{ExWaitRelease}) {
			t.Errorf("open, run %d: hashtags %v", i+1, res.After)
		}
		if i == 0 && (res.Post == nil || res.Post.Action != review.Posted) {
			t.Errorf("open, run 1: %+v", res)
		}
		if i == 1 && res.Message != "" {
			t.Errorf("open, run 2 would post again: %+v", res)
		}
	}
	msgs := freezeMessages(t, srv, change)
	if len(msgs) != 2 || !strings.Contains(msgs[1], "The tree is open for Go 1.5 development (calendar)") || !strings.Contains(msgs[1], "now tagged ex-wait-release") {
		t.Errorf("after two open runs: messages %q", msgs)
	}

	st, err = Check(ctx, live, "master", at)
	if err != nil {
		t.Fatal(err)
	}
	if st.Frozen || st.Source != "rule" || !hasFact(st, "gerrit", "open changes tagged wait-release: 0; tagged ex-wait-release: 1") {
		t.Errorf("with ex-wait-release: %+v", st)
	}
}
