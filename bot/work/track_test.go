package work

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
	"github.com/patchbot/patchbot/step/track"
)

// trackInserts records the bisection jobs a track job queues.
type trackInserts []*queue.TrackArgs

func (t *trackInserts) InsertTrack(_ context.Context, a *queue.TrackArgs) (queue.InsertResult, error) {
	if err := a.Validate(); err != nil {
		return queue.InsertResult{}, err
	}
	*t = append(*t, a)
	return queue.InsertResult{ID: int64(len(*t))}, nil
}

const trackWork = `package w

// Work adds up N squares.
func Work() int {
	s := 0
	for i := range N {
		s += i * i
	}
	return s
}
`

const trackWorkTest = `package w

import "testing"

var sink int

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Work()
	}
}
`

// TestTrackJob runs the track jobs of a branch as serve's worker does,
// on real benchmarks: a repository whose branch has 12 commits, the
// seventh doing four times the work, each merged by a pull request of
// the fake GitHub. The record job fetches the branch, records the 12
// commits, finds the change point and queues one bisection job; that job
// bisects to the culprit and comments once on its pull request; run
// again, it comments nothing more. With 4 commits a side, 1 run in 3
// found no change point (p just over 0.001); with 6, none in 6 under
// load. About 15 seconds, so -short skips it.
func TestTrackJob(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks at 12 commits")
	}
	benchEnv(t)
	root := t.TempDir()
	src, bare := filepath.Join(root, "src"), filepath.Join(root, "bare.git")
	gittest.Git(t, root, "init", "-q", "--bare", bare)
	gittest.Git(t, root, "init", "-q", "-b", "main", src)
	var hashes []string
	for i := range 12 {
		files := map[string]string{"README": strings.Repeat("line\n", i+1)}
		msg := fmt.Sprintf("readme: line %d", i+1)
		switch i {
		case 0:
			files = map[string]string{"go.mod": "module example.com/w\n\ngo 1.26\n", "n.go": "package w\n\nconst N = 1000\n", "w.go": trackWork, "w_test.go": trackWorkTest}
			msg = "w: add"
		case 6:
			files, msg = map[string]string{"n.go": "package w\n\nconst N = 4000\n"}, "w: four times the work"
		}
		hashes = append(hashes, commit(t, src, msg, files, false))
	}
	gittest.Git(t, src, "push", "-q", bare, "main")
	fake := reviewtest.NewGitHub("owner/repo")
	defer fake.Close()
	for i, h := range hashes {
		fake.SetPullRequest(10+i, reviewtest.PullRequest{Head: fmt.Sprintf("%040x", 10+i), MergeCommit: h, State: "closed", Merged: true})
	}
	db, err := db.OpenSQL(context.Background(), db.Database{Engine: "sqlite", Path: filepath.Join(root, "q.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := track.Open(context.Background(), db, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	var inserted trackInserts
	env := map[string]string{"GITHUB_TOKEN": fakeToken, "GITHUB_API_URL": fake.URL}
	w := &Worker{
		Areas:      &Areas{Root: filepath.Join(root, "areas")},
		Env:        job.Env{Getenv: func(k string) string { return env[k] }},
		Tracks:     store,
		TrackQueue: &inserted,
	}
	args := queue.TrackArgs{Track: "example.com/w@main", Source: bare, Branch: "main",
		Request: job.TrackRequest{Threshold: 0.5, GitHub: review.Repository{Owner: "owner", Repo: "repo"}, Max: 20, Bench: job.BenchSettings{Count: 3, Benchtime: "50ms"}}}
	ctx := context.Background()
	if err := w.HandleTrack(ctx, &queue.TrackJob{ID: 1, Attempt: 1, MaxAttempts: 5, Args: args}); err != nil {
		t.Fatal(err)
	}
	h, err := store.History(ctx, args.Track, track.Window{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != 12 || len(h.Changes) != 1 || h.Changes[0].Hash != hashes[6] || h.Changes[0].State != track.StateFound {
		for _, s := range h.Series {
			t.Logf("%s: %v", s.Key, s.Points)
		}
		t.Fatalf("after the record job: %d commits, changes %+v; want 12 and one found at %s", len(h.Commits), h.Changes, hashes[6][:12])
	}
	if len(inserted) != 1 || inserted[0].Range == nil || fake.Count("POST ") != 0 {
		t.Fatalf("the record job queued %+v and posted %d times; want one bisection and no post", inserted, fake.Count("POST "))
	}
	bis := &queue.TrackJob{ID: 2, Attempt: 1, MaxAttempts: 5, Args: *inserted[0]}
	for range 2 {
		if err := w.HandleTrack(ctx, bis); err != nil {
			t.Fatal(err)
		}
	}
	cs := fake.Comments()
	if len(cs) != 1 || cs[0].Issue != 16 || !strings.Contains(cs[0].Body, "w: four times the work") {
		t.Fatalf("comments %+v, want one on #16, the culprit's pull request", cs)
	}
	h, _ = store.History(ctx, args.Track, track.Window{})
	if c := h.Changes[0]; c.State != track.StateCommented || c.Culprit != hashes[6] || c.Comment == "" {
		t.Errorf("the change after its bisection job: %+v", c)
	}
	// The record job again: nothing new, nothing queued.
	if err := w.HandleTrack(ctx, &queue.TrackJob{ID: 3, Attempt: 1, MaxAttempts: 5, Args: args}); err != nil {
		t.Fatal(err)
	}
	if len(inserted) != 1 || len(fake.Comments()) != 1 {
		t.Errorf("the record job again queued %d and commented %d; want nothing more", len(inserted)-1, len(fake.Comments())-1)
	}
}

// bareWorker returns a worker with a track store, and a bare repository
// whose main has one commit of files, for the track jobs that fail.
func bareWorker(t *testing.T, files map[string]string) (*Worker, string) {
	t.Helper()
	root := t.TempDir()
	bare := filepath.Join(root, "bare.git")
	gittest.Git(t, root, "init", "-q", "--bare", bare)
	src := filepath.Join(root, "src")
	gittest.Git(t, root, "init", "-q", "-b", "main", src)
	commit(t, src, "first", files, false)
	gittest.Git(t, src, "push", "-q", bare, "main")
	db, err := db.OpenSQL(context.Background(), db.Database{Engine: "sqlite", Path: filepath.Join(root, "q.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store, err := track.Open(context.Background(), db, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	return &Worker{Areas: &Areas{Root: filepath.Join(root, "areas")}, Tracks: store}, bare
}

// TestTrackJobBadSource: a branch or URL no fetch can give is the job's,
// not the moment's: permanent.
func TestTrackJobBadSource(t *testing.T) {
	w, bare := bareWorker(t, map[string]string{"a": "a"})
	for _, branch := range []string{"nope", "a..b"} {
		err := w.HandleTrack(context.Background(), &queue.TrackJob{ID: 1, Attempt: 1, MaxAttempts: 5,
			Args: queue.TrackArgs{Track: "t", Source: bare, Branch: branch}})
		if err == nil || !permanent(err) || !strings.Contains(err.Error(), "branch") {
			t.Errorf("branch %q: %v, want a permanent error about the branch", branch, err)
		}
	}
}

// TestTrackJobRefused: a track job whose request is refused (a field
// that is not valid) is cancelled, not retried: every attempt would be
// refused alike.
func TestTrackJobRefused(t *testing.T) {
	w, bare := bareWorker(t, map[string]string{"go.mod": "module example.com/m\n"})
	for _, req := range []job.TrackRequest{{GitHub: review.Repository{Owner: "nope"}}, {Every: -1}, {Threshold: 2}, {Bench: job.BenchSettings{Bench: "("}}} {
		err := w.HandleTrack(context.Background(), &queue.TrackJob{ID: 1, Attempt: 1, MaxAttempts: 5,
			Args: queue.TrackArgs{Track: "t", Source: bare, Branch: "main", Request: req}})
		if err == nil || !permanent(err) {
			t.Errorf("request %+v: %v, want a permanent error", req, err)
		}
	}
}
