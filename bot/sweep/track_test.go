package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/track"
)

// trackRepo makes a Go module with a benchmark and three commits on main.
func trackRepo(t *testing.T) string {
	t.Helper()
	r := gittest.New(t)
	r.Commit("s: add", map[string]string{
		"go.mod":    "module example.com/s\n\ngo 1.26\n",
		"s.go":      "package s\n\nfunc S(n int) int { return n * n }\n",
		"s_test.go": "package s\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkS(b *testing.B) {\n\tfor i := range b.N {\n\t\tsink = S(i)\n\t}\n}\n",
	})
	for _, n := range []string{"1", "2"} {
		r.Commit("readme "+n, map[string]string{"README": n})
	}
	return r.Dir
}

func trackConfig(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("track.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestTrackOff: without track.branch a sweep of every task leaves the
// track task out, and naming it says there is nothing to track.
func TestTrackOff(t *testing.T) {
	o := &Options{At: frozenDay, Offline: true, Queue: &fakeQueue{}}
	res, err := Run(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Tasks {
		if tr.Task == "track" {
			t.Errorf("a sweep of every task ran track: %+v", tr)
		}
	}
	res, err = Run(context.Background(), o, []string{"track"})
	if err != nil || len(res.Tasks) != 1 || !strings.Contains(res.Tasks[0].Summary, "nothing to track") {
		t.Errorf("-only track: %+v, %v", res, err)
	}
}

// TestTrackQueued: with serve's queue and a source, the task queues the
// track job for serve's workers, once while it waits.
func TestTrackQueued(t *testing.T) {
	q, err := queue.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "q.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(context.Background())
	cfg := trackConfig(t, "track:\n  branch: main\n  source: https://github.com/gopher/s.git\n  every: 2\n")
	o := &Options{Config: cfg, At: frozenDay, Offline: true, Queue: q, Repo: "gopher/s"}
	for i, want := range []string{"queued track job 1 for github.com/gopher/s@main", "track job 1 already queued (available) for github.com/gopher/s@main"} {
		res, err := Run(context.Background(), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tr := res.Tasks[2]; tr.Task != "track" || tr.Summary != want {
			t.Errorf("sweep %d: %+v, want %q", i+1, tr, want)
		}
	}
}

// openStore opens a track store in a new SQLite file, as serve's queue
// has it.
func openStore(t *testing.T) *track.Store {
	t.Helper()
	sqldb, err := db.OpenSQL(context.Background(), db.Database{Engine: "sqlite", Path: filepath.Join(t.TempDir(), "q.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqldb.Close() })
	store, err := track.Open(context.Background(), sqldb, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// TestTrackHere: without a queue, the task records the repository it is
// given, here, in the store.
func TestTrackHere(t *testing.T) {
	dir := trackRepo(t)
	store := openStore(t)
	cfg := trackConfig(t, "bench:\n  benchtime: 1x\ntrack:\n  branch: main\n  count: 1\n")
	o := &Options{Config: cfg, At: frozenDay, Offline: true, Tracks: store, TrackDir: dir}
	res, err := Run(context.Background(), o, []string{"track"})
	if err != nil {
		t.Fatalf("%v: %+v", err, res)
	}
	if got := res.Tasks[0].Summary; got != "example.com/s@main: recorded 3 commits, 0 change points found, 0 bisected" {
		t.Errorf("summary %q", got)
	}
	h, err := store.History(context.Background(), "example.com/s@main", track.Window{})
	if err != nil || len(h.Commits) != 3 || len(h.Series) == 0 {
		t.Errorf("history: %+v, %v", h, err)
	}
	// A dry run records nothing.
	os.WriteFile(filepath.Join(dir, "README"), []byte("3"), 0o644)
	o.Env.Clients = job.NewClients(cfg, nil, true, nil)
	res, err = Run(context.Background(), o, []string{"track"})
	if err != nil || !strings.HasPrefix(res.Tasks[0].Summary, "would record the new commits of main") {
		t.Errorf("dry run: %+v, %v", res.Tasks, err)
	}
}

// TestTrackKeys: a track request refused for a setting of the track
// section names the section's key, not the request's field or a flag.
func TestTrackKeys(t *testing.T) {
	dir := trackRepo(t)
	store := openStore(t)
	cfg := trackConfig(t, "track:\n  branch: main\n  bench: \"(\"\n")
	_, err := TrackTask(context.Background(), &Sweep{Options: &Options{Config: cfg, Tracks: store, TrackDir: dir}})
	if fe, ok := errors.AsType[*remedy.FieldError](err); !ok || fe.Field != "track.bench" || !strings.HasPrefix(err.Error(), `track.bench "(": not a regular expression`) {
		t.Errorf("TrackTask = %v (%T), want a *remedy.FieldError for track.bench", err, err)
	}
}

func TestSourceTrackName(t *testing.T) {
	for src, want := range map[string]string{
		"https://github.com/gopher/s.git": "github.com/gopher/s@main",
		"https://go.googlesource.com/go":  "go.googlesource.com/go@main",
		"file:///srv/git/s.git":           "srv/git/s@main",
	} {
		if got, err := SourceTrackName(src, "main"); err != nil || got != want {
			t.Errorf("SourceTrackName(%q) = %q, %v; want %q", src, got, err, want)
		}
	}
}
