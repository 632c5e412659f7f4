package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// TrackTask records the branch of the configuration's track section, as
// 'patchbot track' does (job.Track), and comments on the culprits of its
// slowdowns on the sweep's GitHub repository or Gerrit server: as a job
// for serve's workers when the sweep has serve's queue and the section a
// source to fetch from, else here, in the repository the sweep runs in
// (Options.TrackDir), recording in Options.Tracks. Without track.branch it
// is off (a sweep of every task leaves it out) and, asked for, does
// nothing. A dry run records nothing and says what it would do.
func TrackTask(ctx context.Context, s *Sweep) (*TaskResult, error) {
	cfg := s.Config
	if cfg == nil {
		cfg = config.Default()
	}
	tc := cfg.Track
	if tc.Branch == "" {
		return &TaskResult{Summary: "nothing to track: track.branch is not set"}, nil
	}
	req := job.TrackRequest{Every: tc.Every, Max: tc.Max, MaxBisect: tc.MaxBisect,
		Bench: job.BenchSettings{Packages: tc.Packages, Bench: tc.Bench, Count: tc.Count}}
	if s.Repo != "" {
		r, err := review.ParseRepository(s.Repo)
		if err != nil {
			return nil, &remedy.FieldError{Field: "github", Value: s.Repo, Reason: err.Error()}
		}
		req.GitHub = r
	}
	if s.Gerrit != nil {
		req.Gerrit = s.Gerrit.URL()
	}
	ti, queued := s.Queue.(work.TrackInserter)
	if queued && tc.Source != "" {
		name, err := SourceTrackName(tc.Source, tc.Branch)
		if err != nil {
			return nil, err
		}
		if s.DryRun() {
			return &TaskResult{Summary: fmt.Sprintf("would queue the track job of %s for serve's workers", name)}, nil
		}
		res, err := ti.InsertTrack(ctx, &queue.TrackArgs{Track: name, Source: tc.Source, Branch: tc.Branch, Request: req})
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("queued track job %d", res.ID)
		if res.Duplicate {
			what = fmt.Sprintf("track job %d already queued (%s)", res.ID, res.State)
		}
		return &TaskResult{Summary: what + " for " + name}, nil
	}
	if s.DryRun() {
		return &TaskResult{Summary: fmt.Sprintf("would record the new commits of %s here, and bisect and comment on their slowdowns", tc.Branch)}, nil
	}
	if s.Tracks == nil {
		return nil, errors.New("sweep: no database to record the track in")
	}
	req.Repo, req.Branch = s.TrackDir, tc.Branch
	env := s.Env
	env.Tracks = s.Tracks
	res, err := job.Track(ctx, &req, cfg, env)
	if res == nil {
		return nil, trackKeys(err)
	}
	tr := &TaskResult{Summary: fmt.Sprintf("%s: recorded %d commits, %d change points found, %d bisected", res.Track, len(res.Recorded), len(res.Found), len(res.Bisections))}
	for _, b := range res.Bisections {
		a := Action{}
		switch {
		case b.Result == nil:
			continue
		case b.Result.Culprit == nil:
			a.What = res.Track + ": no culprit: " + b.Result.Reason
		case b.Post != nil:
			a.URL, a.What = b.Post.URL, fmt.Sprintf("%s: culprit %s, commented on %s (%s)", res.Track, b.Result.Culprit.Hash[:12], b.Review, b.Post.Action)
		default:
			a.What = fmt.Sprintf("%s: culprit %s, not commented: %s", res.Track, b.Result.Culprit.Hash[:12], cmp.Or(b.NoReview, "no review server"))
		}
		tr.Actions = append(tr.Actions, a)
	}
	return tr, trackKeys(err)
}

// trackKeys words a refused field of the track request as the key of the
// track section that set it.
func trackKeys(err error) error {
	fe, ok := errors.AsType[*remedy.FieldError](err)
	if !ok {
		return err
	}
	key, ok := map[string]string{"branch": "track.branch", "every": "track.every", "max": "track.max", "max_bisect": "track.max_bisect",
		"bench.count": "track.count", "bench.bench": "track.bench", "threshold": "bench.threshold"}[fe.Field]
	if !ok && strings.HasPrefix(fe.Field, "bench.packages") {
		key, ok = "track.packages", true
	}
	if !ok {
		return err
	}
	return &remedy.FieldError{Field: key, Value: fe.Value, Reason: fe.Reason}
}

// trackOff: the track task is off without track.branch.
func trackOff(o *Options) bool {
	cfg := o.Config
	if cfg == nil {
		cfg = config.Default()
	}
	return cfg.Track.Branch == ""
}

// SourceTrackName returns the name of the track of a repository's branch
// as a sweep queues it: the URL's host and path, without ".git", and the
// branch: "github.com/OWNER/REPO@main".
func SourceTrackName(source, branch string) (string, error) {
	u, err := url.Parse(source)
	if err != nil || u.Host == "" && u.Path == "" {
		return "", fmt.Errorf("sweep: track.source %q: not a URL", source)
	}
	return strings.TrimSuffix(strings.TrimPrefix(u.Host+u.Path, "/"), ".git") + "@" + branch, nil
}
