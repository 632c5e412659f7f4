package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/db"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/track"
)

// A Setup names what a sweep works on, as 'patchbot sweep' is told it;
// Open makes the sweep's Options from it. Empty fields take the
// configuration's sweep section (Query, Repo, DB, MaxStale) and
// review.gerrit (Server).
type Setup struct {
	Config *config.Config
	// Tasks are the tasks to run; empty is all of them. Open checks
	// only what they need: the credentials a task writes with, the
	// queue the stale task inserts into.
	Tasks    []string
	Branch   string
	At       time.Time
	Offline  bool
	Server   string // the Gerrit server's URL
	Query    string
	Repo     string // OWNER/REPO on GitHub
	DB       string // serve's queue: the stale benchmarks go there
	MaxStale int
	// WorkDir and UnsafeNoSandbox are the stale benchmarks' run here,
	// without DB (Here).
	WorkDir         string
	UnsafeNoSandbox bool
	// TrackDir is the repository the track task records when it
	// records here: "" is the working directory.
	TrackDir string
	// Env holds the sweep's one set of review clients (Env.Clients,
	// which say whether it is a dry run), and is where it logs.
	Env job.Env
	// Log receives the queue's warnings.
	Log io.Writer
}

// Open checks what s names and returns the Options of its sweep, and the
// function that closes what Open opened (the queue). Nothing is written.
// The error is a *remedy.FieldError for a field of s that is wrong (named
// "gerrit", "github" or "db"), a *job.SetupError for credentials the
// tasks need and do not have, for a queue that does not open, or for a
// sweep of the freeze or stale tasks with neither a Gerrit server nor a
// GitHub repository to sweep.
func Open(ctx context.Context, s *Setup) (*Options, func(), error) {
	cfg := s.Config
	if cfg == nil {
		cfg = config.Default()
	}
	clients := s.Env.Clients
	if clients == nil {
		clients = job.NewClients(cfg, s.Env.Getenv, false, s.Env.Log)
		s.Env.Clients = clients
	}
	runs := func(task string) bool { return len(s.Tasks) == 0 || slices.Contains(s.Tasks, task) }
	o := &Options{
		Config: cfg, Branch: s.Branch, At: s.At, Offline: s.Offline,
		Query: cmp.Or(s.Query, cfg.Sweep.Query), MaxStale: s.MaxStale, Env: s.Env,
	}
	if o.MaxStale == 0 {
		o.MaxStale = cfg.Sweep.MaxStale
	}
	if server := cmp.Or(s.Server, cfg.Review.Gerrit); server != "" {
		var err error
		if o.Gerrit, err = clients.Gerrit(server); err != nil {
			return nil, nil, &remedy.FieldError{Field: "gerrit", Reason: err.Error()}
		}
		// Said before anything is read or written, as freeze -apply
		// does; a dry run writes nothing, and a report reads only.
		if err := o.Gerrit.CheckAuth("the sweep"); err != nil && !clients.DryRun() && !slices.Equal(s.Tasks, []string{"report"}) {
			return nil, nil, &job.SetupError{Err: fmt.Errorf("%v; nothing was done", err)}
		}
	}
	if repo := cmp.Or(s.Repo, cfg.Sweep.GitHub); repo != "" {
		if _, err := review.ParseRepository(repo); err != nil {
			return nil, nil, &remedy.FieldError{Field: "github", Reason: err.Error()}
		}
		var err error
		if o.GitHub, err = clients.GitHub(); err != nil {
			return nil, nil, &job.SetupError{Field: "github", Err: err}
		}
		if !o.GitHub.SignedIn() && !clients.DryRun() && runs("freeze") {
			// {github} is the option that names the repository
			// (internal/remedy): -github to the CLI.
			return nil, nil, &job.SetupError{Err: fmt.Errorf("{github} %s: no token to label its pull requests with: set %s; nothing was done", repo, review.EnvGitHubToken)}
		}
		o.Repo = repo
	}
	if o.Gerrit == nil && o.Repo == "" && (runs("freeze") || runs("stale")) {
		// Nothing configured: succeeding would say the chores were done.
		return nil, nil, &job.SetupError{Err: errors.New("nothing to sweep: no Gerrit server ({gerrit}, or review.gerrit in the configuration) and no GitHub repository ({github}, or sweep.github); name one, or ask for the freeze alone with {only} report")}
	}
	closer := func() {}
	trackOn := runs("track") && cfg.Track.Branch != ""
	dbURL := cmp.Or(s.DB, cfg.Sweep.Queue)
	switch {
	case dbURL != "" && (runs("stale") || trackOn && cfg.Track.Source != "") && !clients.DryRun():
		if _, err := db.Parse(dbURL); err != nil {
			return nil, nil, &remedy.FieldError{Field: "db", Value: dbURL, Reason: err.Error()}
		}
		q, err := queue.Open(ctx, dbURL, &queue.Options{Logger: slog.New(slog.NewTextHandler(s.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err != nil {
			return nil, nil, &job.SetupError{Err: err}
		}
		o.Queue = q
		closer = func() { q.Stop(context.Background()) }
	case dbURL != "":
		o.Queue = DryRunQueue{} // a dry run says "into the queue" and opens nothing
	default:
		o.Work = Here(cfg, o.Env, s.WorkDir, s.UnsafeNoSandbox)
	}
	if trackOn && !clients.DryRun() && (cfg.Track.Source == "" || dbURL == "") {
		// Recorded here, in the queue's database all the same, or the
		// default one: where 'patchbot track' and serve's page read.
		store, closeStore, err := openTracks(ctx, dbURL)
		if err != nil {
			closer()
			return nil, nil, err
		}
		o.Tracks, o.TrackDir = store, s.TrackDir
		prev := closer
		closer = func() { closeStore(); prev() }
	}
	return o, closer, nil
}

// openTracks opens the track store in the database at dbURL, or in the
// default queue's.
func openTracks(ctx context.Context, dbURL string) (*track.Store, func(), error) {
	if dbURL == "" {
		var err error
		if dbURL, err = db.DefaultURL(); err != nil {
			return nil, nil, &job.SetupError{Err: err}
		}
	}
	d, err := db.Parse(dbURL)
	if err != nil {
		return nil, nil, &remedy.FieldError{Field: "db", Value: dbURL, Reason: err.Error()}
	}
	store, closeStore, err := track.OpenDatabase(ctx, d)
	if err != nil {
		return nil, nil, &job.SetupError{Err: err}
	}
	return store, closeStore, nil
}
