package job

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/internal/repo"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/bisect"
	"github.com/patchbot/patchbot/step/changepoint"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/track"
)

// A TrackRequest asks to record a branch's new commits' benchmarks, find
// where each benchmark's series changed, bisect each new slowdown to its
// commit and comment once on that commit's review.
type TrackRequest struct {
	Repo   string `json:"repo,omitempty"`   // the repository (and Go module); "" means "."
	Branch string `json:"branch,omitempty"` // the branch tracked; "" means the one checked out
	// Name is the track's name in the store; "" is the module's path
	// and the branch, "example.com/m@main".
	Name string `json:"name,omitempty"`

	Every int `json:"every,omitempty"` // record one commit in Every; 0 means 1
	Max   int `json:"max,omitempty"`   // at most Max commits recorded in one run; 0 means DefaultTrackMax
	// Threshold is the smallest change that counts, as a change point
	// and in the bisection; 0 means bench.threshold.
	Threshold float64 `json:"threshold,omitempty"`
	// MaxBisect bounds the bisections of one run; 0 means
	// DefaultMaxBisect. The rest wait for the next run.
	MaxBisect int `json:"max_bisect,omitempty"`

	// Bench says which benchmarks and how: its Packages default to every
	// package of the module (./...), its Count to DefaultTrackCount runs
	// of each commit; the bisections run sequentially (-count auto).
	Bench BenchSettings `json:"bench"`

	// GitHub, "OWNER/REPO", comments on the pull request a culprit came
	// in by; Gerrit, a server's URL, on the change it came by (its commit,
	// else its Change-Id). Both: Gerrit for a culprit whose change is
	// found there, GitHub for any other. Neither: the culprit is recorded
	// and said, not commented.
	GitHub review.Repository `json:"github,omitzero"`
	Gerrit string            `json:"gerrit,omitempty"`
	// DryRun says what a run would do (the commits it would record, the
	// bisections and comments waiting) and does none of it: nothing is
	// benchmarked, recorded or commented.
	DryRun bool `json:"dry_run,omitempty"`

	// Range, when set, makes the run bisect the slowdowns of that range
	// (a change's Good and Bad) and comment on their culprit, and nothing
	// else: serve's bisection jobs, which a run with Env.QueueBisect
	// queued.
	Range *Range `json:"range,omitempty"`
}

// Validate reports the first problem of r that is found without reading
// the repository or the store, as a *remedy.FieldError in r's own field
// names, which each caller words its own way (the CLI as its flags, sweep
// as the keys of config.yaml's track section).
func (r *TrackRequest) Validate() error {
	for _, f := range []struct {
		name string
		n    int
	}{{"every", r.Every}, {"max", r.Max}, {"max_bisect", r.MaxBisect}} {
		if f.n < 0 {
			return remedy.Fieldf(f.name, strconv.Itoa(f.n), "must be 1 or more")
		}
	}
	if err := validThreshold(r.Threshold); err != nil {
		return err
	}
	if !r.GitHub.IsZero() {
		if _, err := review.ParseRepository(r.GitHub.String()); err != nil {
			return remedy.Fieldf("github", r.GitHub.String(), "want OWNER/REPO")
		}
	}
	if r.Gerrit != "" {
		if _, err := review.CheckServerURL(r.Gerrit); err != nil {
			return remedy.Fieldf("gerrit", "", "%v", err)
		}
	}
	if rg := r.Range; rg != nil && !rg.Valid() {
		return remedy.Fieldf("range", rg.Good+".."+rg.Bad, "want two commits' full hashes")
	}
	return r.Bench.validate()
}

// A Range is the commits a bisection searches: after Good, up to Bad,
// each a full hash. Its text form (JSON's, a queued job's) is
// "GOOD..BAD".
type Range struct {
	Good, Bad string
}

// String abbreviates the hashes, for messages.
func (r Range) String() string { return abbrev.Hash(r.Good) + ".." + abbrev.Hash(r.Bad) }

// Valid reports whether r's commits are full hashes.
func (r Range) Valid() bool { return hexRE.MatchString(r.Good) && hexRE.MatchString(r.Bad) }

// ParseRange parses a range's text form, GOOD..BAD, two full hashes.
func ParseRange(s string) (Range, error) {
	good, bad, _ := strings.Cut(s, "..")
	if r := (Range{good, bad}); r.Valid() {
		return r, nil
	}
	return Range{}, fmt.Errorf("range %q: want GOOD..BAD, two commits' full hashes", s)
}

func (r Range) MarshalText() ([]byte, error) { return []byte(r.Good + ".." + r.Bad), nil }

func (r *Range) UnmarshalText(b []byte) error {
	var err error
	*r, err = ParseRange(string(b))
	return err
}

// Track's defaults.
const (
	DefaultTrackMax   = 20
	DefaultTrackCount = 5
	DefaultMaxBisect  = 3
)

// A TrackResult is what a run of track did.
type TrackResult struct {
	Track    string         `json:"track"`
	Head     string         `json:"head"`
	Recorded []track.Commit `json:"recorded"`
	Left     int            `json:"left"` // commits waiting for later runs
	// Found are the change points this run found, Bisections what the
	// run bisected (of them or of earlier runs' left waiting).
	Found      []*track.Change   `json:"found"`
	Bisections []*TrackBisection `json:"bisections"`
}

// A TrackBisection is one bisection of a slowdown, for the changes of one
// range, and the comment it made.
type TrackBisection struct {
	Good, Bad string           `json:"-"`
	Changes   []*track.Change  `json:"changes"`
	Result    *bisect.Result   `json:"result,omitempty"`
	Confirm   *benchrun.Result `json:"-"`
	// Review is where the comment went ("github:o/r#7" in JSON, as
	// review.Target writes it); nil when the culprit's review was not
	// found (NoReview says why).
	Review   *review.Target     `json:"review,omitempty"`
	NoReview string             `json:"no_review,omitempty"`
	Post     *review.PostResult `json:"post,omitempty"`
}

// tracker is a run of track, with what it measures by and bisects by as
// functions, so that a test can model them.
type tracker struct {
	req   *TrackRequest
	cfg   *config.Config
	env   Env
	store *track.Store // env.Tracks
	// measure runs the benchmarks of hash interleaved with those of
	// ref, the track's reference commit, or alone when ref is "".
	measure func(ctx context.Context, ref, hash string) (*benchrun.Result, error)
	bisect  func(ctx context.Context, good, bad string, pkgs []string, bench string, threshold float64) (*bisect.Result, error)
	say     func(format string, args ...any)
}

// Track runs track as req says, in the store env.Tracks; env.Tell hears
// what it does as it does it.
func Track(ctx context.Context, req *TrackRequest, cfg *config.Config, env Env) (*TrackResult, error) {
	env, cfg = env.orDefaults(), orDefault(cfg)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if env.Tracks == nil {
		return nil, errors.New("track: no store to record in (job.Env.Tracks)")
	}
	b := req.Bench.orDefaults(config.Count{N: DefaultTrackCount}, cfg.Bench.Benchtime)
	if len(b.Packages) == 0 {
		b.Packages = []string{"./..."}
	}
	o, err := benchOptions(ctx, &b, &cfg.Bench, env)
	if err != nil {
		return nil, err
	}
	// The reference's test binaries are built once a run, and again
	// by the next, with its toolchain: a new Go changes both sides.
	cache, err := benchrun.MkdirTemp("track")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cache)
	o.Dir, o.BinCache = req.Repo, cache
	t := &tracker{req: req, cfg: cfg, env: env, store: env.Tracks,
		measure: func(ctx context.Context, ref, hash string) (*benchrun.Result, error) {
			o := o
			o.Base, o.Head, o.Single = ref, hash, ref == ""
			if ref != "" && len(req.Bench.Packages) == 0 {
				// Against the reference, what the commits since
				// it affect; valuesOf records the rest as the
				// reference's.
				o.Packages = nil
			}
			return benchrun.Run(ctx, o)
		},
		bisect: func(ctx context.Context, good, bad string, pkgs []string, bench string, threshold float64) (*bisect.Result, error) {
			bs := req.Bench
			bs.Packages, bs.Bench, bs.Count, bs.Auto = pkgs, bench, 0, true
			quiet := env
			quiet.Tell = nil // the track says what it bisects, and what came of it
			return Bisect(ctx, &BisectRequest{Repo: req.Repo, Good: good, Bad: bad, Threshold: threshold, Bench: bs}, cfg, quiet)
		},
	}
	return t.run(ctx)
}

// t0 is the request's threshold, or the configuration's.
func t0(req *TrackRequest, cfg *config.Config) float64 {
	if req.Threshold > 0 {
		return req.Threshold
	}
	return cfg.Bench.Threshold.Fraction()
}

func (t *tracker) run(ctx context.Context) (*TrackResult, error) {
	req := t.req
	t.say = func(format string, args ...any) { t.env.Tell(fmt.Sprintf(format, args...)) }
	threshold := t0(req, t.cfg)
	if !(threshold > 0 && threshold < 1) {
		return nil, &SetupError{Field: "threshold", Err: fmt.Errorf("bench.threshold %g%%: track needs a change above 0%% and under 100%%, like 5%%", 100*threshold)}
	}
	branch, name, err := TrackName(req)
	if err != nil {
		return nil, err
	}
	res := &TrackResult{Track: name, Recorded: []track.Commit{}, Found: []*track.Change{}, Bisections: []*TrackBisection{}}
	if req.DryRun {
		return res, t.dryRun(ctx, name, branch, res)
	}
	if req.Range == nil {
		if err := t.record(ctx, name, branch, threshold, res); err != nil {
			return res, err
		}
	}

	// Bisect what waits, grouped by range, then comment; both resume
	// where a run that died left them.
	changes, err := t.store.Changes(ctx, name, track.Window{})
	if err != nil {
		return res, err
	}
	bisects := 0
	var failed []error
	for _, g := range groupChanges(changes) {
		state := g.state()
		rg := Range{g.Good, g.Bad}
		switch {
		case req.Range != nil && *req.Range != rg:
			continue
		case req.Range == nil && t.env.QueueBisect != nil:
			if err := t.env.QueueBisect(ctx, rg); err != nil {
				return res, fmt.Errorf("track: queueing the bisection of %s: %w", rg, err)
			}
			t.say("queued the bisection of %s", rg)
			continue
		}
		if state == track.StateFound {
			if bisects == cmp.Or(req.MaxBisect, DefaultMaxBisect) {
				t.say("bisection of %s left for the next run (at most %d a run)", rg, cmp.Or(req.MaxBisect, DefaultMaxBisect))
				continue
			}
			bisects++
			if err := t.bisectGroup(ctx, name, g); err != nil {
				// The next range is not held up by this one's failure;
				// this one is tried again by the next run, up to
				// MaxTries.
				if ctx.Err() != nil {
					return res, err
				}
				failed = append(failed, t.failed(ctx, name, g, err))
				continue
			}
		} else if err := g.load(); err != nil {
			return res, err
		}
		res.Bisections = append(res.Bisections, g)
		if g.state() == track.StateBisected {
			if err := t.comment(ctx, name, g); err != nil {
				if ctx.Err() != nil {
					return res, err
				}
				failed = append(failed, t.failed(ctx, name, g, err))
			}
		}
	}
	return res, errors.Join(failed...)
}

// MaxTries is how many runs try a range's bisection and comment before
// it is given up, with the last error as the reason (StateNoCulprit):
// a failure that three runs did not mend (a pull request that refuses
// comments, a bisection over the job's time) would otherwise be tried on
// every run, forever.
const MaxTries = 3

// failed records a failed try of g's bisection or comment and returns err;
// at the MaxTries-th the changes are given up.
func (t *tracker) failed(ctx context.Context, name string, g *TrackBisection, err error) error {
	for _, c := range g.Changes {
		c.Tries++
		if c.Tries >= MaxTries {
			c.State, c.Reason = track.StateNoCulprit, fmt.Sprintf("given up after %d tries: %v", c.Tries, err)
		}
		if uerr := t.store.UpdateChange(ctx, name, c); uerr != nil {
			return errors.Join(err, uerr)
		}
	}
	t.say("failed: %s..%s: %v", abbrev.Hash(g.Good), abbrev.Hash(g.Bad), err)
	return err
}

// pending returns the commits a run records now, and says how many.
func (t *tracker) pending(ctx context.Context, name, branch string, res *TrackResult) (*track.Plan, error) {
	req := t.req
	last, err := t.store.Last(ctx, name)
	if err != nil {
		return nil, err
	}
	every, maxN := cmp.Or(req.Every, 1), cmp.Or(req.Max, DefaultTrackMax)
	plan, err := track.Pending(track.PlanOptions{Dir: req.Repo, Branch: branch, Last: last, Every: every, Max: maxN})
	if err != nil {
		return nil, err
	}
	res.Head, res.Left = plan.Head, plan.Left
	verb := "recording"
	if req.DryRun {
		verb = "would record"
	}
	switch {
	case len(plan.Commits) == 0 && last != nil:
		t.say("%s: nothing new to record since %s", name, abbrev.Hash(last.Hash))
	default:
		t.say("%s: %s %d commits (one in %d of %d new; %d left for later runs)", name, verb, len(plan.Commits), every, plan.New, plan.Left)
	}
	return plan, nil
}

// dryRun says what a run would do: the commits it would record, the
// bisections and comments that wait; it runs and writes nothing.
func (t *tracker) dryRun(ctx context.Context, name, branch string, res *TrackResult) error {
	if t.req.Range == nil {
		plan, err := t.pending(ctx, name, branch, res)
		if err != nil {
			return err
		}
		for _, c := range plan.Commits {
			t.say("would record %s %s", abbrev.Hash(c.Hash), c.Subject)
		}
	}
	changes, err := t.store.Changes(ctx, name, track.Window{})
	if err != nil {
		return err
	}
	for _, g := range groupChanges(changes) {
		rg := Range{g.Good, g.Bad}
		switch {
		case t.req.Range != nil && *t.req.Range != rg:
		case t.req.Range == nil && t.env.QueueBisect != nil:
			t.say("would queue the bisection of %s", rg)
		case g.state() == track.StateFound:
			t.say("would bisect %s for %s", rg, changeNames(g.Changes))
		default:
			t.say("would comment on the culprit %s of %s", abbrev.Hash(g.Changes[0].Culprit), rg)
		}
	}
	t.say("dry run: nothing benchmarked, recorded or commented")
	return nil
}

// changeNames lists the benchmarks of changes, for a line of track's.
func changeNames(changes []*track.Change) string {
	var names []string
	for _, c := range changes {
		names = append(names, c.Key.Name)
	}
	return strings.Join(names, ", ")
}

// record records the track's new commits and finds its new change points.
func (t *tracker) record(ctx context.Context, name, branch string, threshold float64, res *TrackResult) error {
	plan, err := t.pending(ctx, name, branch, res)
	if err != nil {
		return err
	}

	// Record, oldest first, each commit interleaved with the track's
	// first (its reference), whose values are read once. A commit whose
	// benchmarks do not build or run is recorded with its error, so that
	// it is not tried again.
	ref, refValues, err := t.reference(ctx, name)
	if err != nil {
		return err
	}
	for i := range plan.Commits {
		c := plan.Commits[i]
		r, err := t.measure(ctx, ref, c.Hash)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var values []track.Value
		if se, ok := errors.AsType[*benchrun.SideError](err); ok && ref != "" && se.Side == 0 {
			// The reference's failure, not the commit's: recording
			// it as the commit's would leave every commit after it
			// without values.
			return &ReferenceError{Track: name, Ref: ref, Err: err}
		}
		if err != nil {
			c.Error = errorText(err)
		} else {
			values = valuesOf(r, refValues)
		}
		if _, err := t.store.Add(ctx, name, &c, values); err != nil {
			return err
		}
		res.Recorded = append(res.Recorded, c)
		if ref == "" && c.Error == "" {
			// The first commit with values is the reference.
			ref, refValues = c.Hash, map[track.SeriesKey]float64{}
			for _, v := range values {
				refValues[v.Key] = v.Value
			}
		}
		if c.Error != "" {
			t.say("recorded %s %s: no values: %s", abbrev.Hash(c.Hash), c.Subject, c.Error)
		} else {
			t.say("recorded %s %s: %d values", abbrev.Hash(c.Hash), c.Subject, len(values))
		}
	}

	// Detect, on the whole history; a change point already recorded is
	// not new.
	series, err := t.store.Series(ctx, name, track.Window{})
	if err != nil {
		return err
	}
	known, err := t.store.Changes(ctx, name, track.Window{})
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, c := range track.Detect(series, changepoint.Options{MinChange: threshold, Log: true}) {
		if moved(c, known, series) {
			continue
		}
		c.Found = now
		added, err := t.store.AddChange(ctx, name, c)
		if err != nil {
			return err
		}
		if added {
			res.Found = append(res.Found, c)
			t.say("change point: %s %+.1f%% at %s (after %s)", c.Key.Package+" "+c.Key.Name, 100*(c.Ratio()-1), abbrev.Hash(c.Hash), abbrev.Hash(c.Prev))
		}
	}
	return nil
}

// A ReferenceError is a track's reference commit (its first with values)
// failing to build or run now: nothing more can be recorded against it,
// on any try, until the track starts again under a new name.
type ReferenceError struct {
	Track, Ref string
	Err        error
}

func (e *ReferenceError) Error() string {
	return fmt.Sprintf("track %s: the reference commit %s (the track's first with values) fails now, so nothing more can be recorded against it: %s; track the branch under a new name to start from its head", e.Track, abbrev.Hash(e.Ref), abbrev.FirstLine(e.Err.Error()))
}

func (e *ReferenceError) Unwrap() error { return e.Err }

// MaxErrorText bounds what a commit's record keeps of its failure: the
// compiler's first messages, not a whole build log.
const MaxErrorText = 2 << 10

// errorText is what a commit's record keeps of err: at most
// MaxErrorText bytes of it, so that "does not build; fix it or pick
// another revision:" keeps the compiler's message.
func errorText(err error) string {
	return abbrev.Clip(strings.TrimSpace(err.Error()), MaxErrorText)
}

// moved reports whether c is a change point known already, found again a
// recorded commit or two away: detection runs on the whole history each
// run, and a change point can move as points come after it. It is the
// same change; recording it would bisect and comment on it again.
func moved(c *track.Change, known []*track.Change, series []*track.Series) bool {
	var hashes []string
	for _, s := range series {
		if s.Key == c.Key {
			hashes = s.Hashes
		}
	}
	at := slices.Index(hashes, c.Hash)
	for _, k := range known {
		if k.Key != c.Key {
			continue
		}
		if i := slices.Index(hashes, k.Hash); i >= 0 && at >= 0 && max(i-at, at-i) <= 2 {
			return true
		}
	}
	return false
}

// TrackName returns the branch req tracks (its Branch, or the one
// checked out) and the track's name (its Name, or the module's path and
// the branch). What it cannot find is a *remedy.FieldError for the field
// that would give it.
func TrackName(req *TrackRequest) (branch, name string, err error) {
	dir := cmp.Or(req.Repo, ".")
	branch = req.Branch
	if branch == "" {
		r, err := repo.Open(dir)
		if err != nil {
			return "", "", err
		}
		ref, err := r.Head()
		if err != nil {
			return "", "", remedy.Fieldf("branch", "", "missing, and %s has no HEAD to take it from (%v): name the branch to track", dir, err)
		}
		if !ref.Name().IsBranch() {
			return "", "", remedy.Fieldf("branch", "", "missing, and %s's HEAD is not on a branch: name the branch to track", dir)
		}
		branch = ref.Name().Short()
	}
	if req.Name != "" {
		return branch, req.Name, nil
	}
	mod, err := repo.ModulePath(dir)
	if err != nil {
		return "", "", remedy.Fieldf("name", "", "missing, and there is no Go module to name the track by (%v): name the track", err)
	}
	return branch, mod + "@" + branch, nil
}

// reference returns the track's reference commit, its first recorded
// with values, and those values; "" when there is none yet.
func (t *tracker) reference(ctx context.Context, name string) (string, map[track.SeriesKey]float64, error) {
	h, err := t.store.History(ctx, name, track.Window{})
	if err != nil {
		return "", nil, err
	}
	for _, c := range h.Commits {
		if c.Error != "" {
			continue
		}
		values := map[track.SeriesKey]float64{}
		for _, s := range h.Series {
			if len(s.Hashes) > 0 && s.Hashes[0] == c.Hash {
				values[s.Key] = s.Points[0]
			}
		}
		return c.Hash, values, nil
	}
	return "", nil, nil
}

// valuesOf returns a run's values. A benchmark run beside the
// reference's is the ratio of its median to the reference's, times the
// reference's recorded value: the machine's speed, which drifts over
// minutes on a shared one (by half, on the machine this was written on),
// is the same for both sides of an interleaved run and cancels. One the
// reference lacks (a new benchmark), or a run alone, is its median.
func valuesOf(r *benchrun.Result, ref map[track.SeriesKey]float64) []track.Value {
	var out []track.Value
	for _, tb := range r.Tables {
		for _, row := range tb.Rows {
			if row.New == nil {
				continue
			}
			k := track.SeriesKey{Package: tb.Get("pkg"), Name: row.Name, Unit: tb.Unit}
			v := track.Value{Key: k, Value: row.New.Center, N: row.New.N}
			if base, ok := ref[k]; ok && row.Old != nil && row.Old.Center != 0 {
				v.Value = row.New.Center / row.Old.Center * base
			}
			out = append(out, v)
		}
	}
	// A benchmark the selection left out runs the reference's code: its
	// value is the reference's, measured by no run (N 0).
	if r.Run != nil && r.Run.Selection != nil {
		have := make(map[track.SeriesKey]bool, len(out))
		for _, v := range out {
			have[v.Key] = true
		}
		keys := slices.Collect(maps.Keys(ref))
		slices.SortFunc(keys, func(a, b track.SeriesKey) int {
			return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Unit, b.Unit))
		})
		for _, k := range keys {
			if !have[k] && r.Run.Selection.Skipped(k.Package, k.Name) {
				out = append(out, track.Value{Key: k, Value: ref[k]})
			}
		}
	}
	return out
}

// groupChanges returns the slowdowns left to bisect or comment on (found
// or bisected), by range to bisect (Good, Bad), in the order of their
// commits: one bisection answers them all. A change already done is not
// in a group, so that a slowdown found later in a range bisected before
// gets a bisection of its own.
func groupChanges(changes []*track.Change) []*TrackBisection {
	var out []*TrackBisection
	by := map[[2]string]*TrackBisection{}
	for _, c := range changes {
		if c.State != track.StateFound && c.State != track.StateBisected {
			continue
		}
		k := [2]string{c.Good, c.Bad}
		g := by[k]
		if g == nil {
			g = &TrackBisection{Good: c.Good, Bad: c.Bad}
			by[k] = g
			out = append(out, g)
		}
		g.Changes = append(g.Changes, c)
	}
	return out
}

// stored is what a change keeps of its bisection (track.Change.Bisect):
// the result and the confirming comparison, which the comment shows.
type stored struct {
	Result  *bisect.Result   `json:"result"`
	Confirm *benchrun.Result `json:"confirm,omitempty"`
}

// state returns what g waits for: StateFound while one of its changes is
// not bisected (the bisection answers them all), StateBisected while one
// waits for its comment, else what became of them.
func (g *TrackBisection) state() string {
	for _, want := range []string{track.StateFound, track.StateBisected} {
		for _, c := range g.Changes {
			if c.State == want {
				return want
			}
		}
	}
	return g.Changes[0].State
}

// load reads g's bisection back from its first change.
func (g *TrackBisection) load() error {
	var s stored
	if err := json.Unmarshal([]byte(g.Changes[0].Bisect), &s); err != nil {
		return fmt.Errorf("track: the stored bisection of %s..%s: %v", abbrev.Hash(g.Good), abbrev.Hash(g.Bad), err)
	}
	g.Result, g.Confirm = s.Result, s.Confirm
	return nil
}

func (t *tracker) bisectGroup(ctx context.Context, name string, g *TrackBisection) error {
	var pkgs, names []string
	for _, c := range g.Changes {
		if !slices.Contains(pkgs, c.Key.Package) {
			pkgs = append(pkgs, c.Key.Package)
		}
		names = append(names, c.Key.Name)
	}
	threshold := bisectThreshold(t0(t.req, t.cfg), g.Changes)
	t.say("bisecting %s..%s for %s, for a slowdown over %.3g%%", abbrev.Hash(g.Good), abbrev.Hash(g.Bad), strings.Join(names, ", "), 100*threshold)
	r, err := t.bisect(ctx, g.Good, g.Bad, pkgs, BenchRegexp(names), threshold)
	if err != nil {
		return fmt.Errorf("track: bisecting %s..%s: %w", abbrev.Hash(g.Good), abbrev.Hash(g.Bad), err)
	}
	g.Result = r
	s := stored{Result: r}
	if n := len(r.Steps); n > 0 && r.Steps[n-1].Confirm {
		s.Confirm = r.Steps[n-1].Result
		g.Confirm = s.Confirm
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	for _, c := range g.Changes {
		c.Bisect = string(data)
		if r.Culprit != nil {
			c.State, c.Culprit = track.StateBisected, r.Culprit.Hash
		} else {
			c.State, c.Reason = track.StateNoCulprit, r.Reason
		}
		if err := t.store.UpdateChange(ctx, name, c); err != nil {
			return err
		}
	}
	if r.Culprit != nil {
		t.say("culprit: %s %s (%d steps)", abbrev.Hash(r.Culprit.Hash), r.Culprit.Subject, len(r.Steps))
	} else {
		t.say("no culprit: %s", r.Reason)
	}
	return nil
}

// bisectThreshold returns the slowdown a bisection of changes looks for:
// half the smallest of them, at most 50%, and not under the track's
// threshold. A step of the bisection that compares equal code must find
// it "not slower" by the threshold: its interval's upper end under it,
// which takes more runs the smaller it is (on the machine this was
// written on, 30 runs a side did not bring a 5% one within reach, on a 32%
// slowdown); and a step whose side holds the slowdown finds it twice that.
// Past 50% nothing is gained (a step's "same" is within ±threshold, which
// past 100% means nothing).
func bisectThreshold(threshold float64, changes []*track.Change) float64 {
	least := math.Inf(1)
	for _, c := range changes {
		least = math.Min(least, c.Ratio()-1)
	}
	return max(threshold, min(least/2, 0.5))
}

// BenchRegexp returns the -test.bench regexp that selects the benchmarks
// with the names (as benchstat shows them, "Sum/big-2"): each level of the
// names is an anchored alternation, the first with the functions'
// "Benchmark" (go test matches the top level against the function's
// name), and a last element's "-N" (GOMAXPROCS, which go test adds) is
// optional, since a sub-benchmark may itself end in one. With several
// names it may select more (Sum/small with Sum/big and Mul/small), never
// fewer.
func BenchRegexp(names []string) string {
	var levels [][]string
	for _, n := range names {
		parts := strings.Split(n, "/")
		for i, p := range parts {
			if i == 0 {
				p = "Benchmark" + p
			}
			q := regexp.QuoteMeta(p)
			if i == len(parts)-1 {
				if m := procsRE.FindStringIndex(p); m != nil {
					q = regexp.QuoteMeta(p[:m[0]]) + "(" + regexp.QuoteMeta(p[m[0]:]) + ")?"
				}
			}
			if i == len(levels) {
				levels = append(levels, nil)
			}
			if !slices.Contains(levels[i], q) {
				levels[i] = append(levels[i], q)
			}
		}
	}
	var out []string
	for _, l := range levels {
		out = append(out, "^("+strings.Join(l, "|")+")$")
	}
	return strings.Join(out, "/")
}

var procsRE = regexp.MustCompile(`-[0-9]+$`)

// comment posts g's culprit's comment, once, on its review: its Gerrit
// change (req.Gerrit; gerritChange), or the pull request it came by
// (req.GitHub). Given both servers, a culprit whose change is found on the
// Gerrit is commented there, and any other on GitHub, as a project
// reviewed on Gerrit and mirrored on GitHub has it (a squash-merged pull
// request's commit may carry Change-Ids of another Gerrit).
func (t *tracker) comment(ctx context.Context, name string, g *TrackBisection) error {
	req := t.req
	culprit := g.Result.Culprit.Hash
	// One comment per culprit and range: two ranges whose bisections
	// name one culprit (two tracks of one repository, say) do not edit
	// each other's comment away.
	kind := "regression-" + culprit[:12] + "-" + g.Good[:8]
	clients := t.env.clients(t.cfg, false) // a dry run does not get here
	var err error
	var notOnGerrit string // why the culprit is not commented on Gerrit
	if req.Gerrit != "" {
		var id string
		if id, err = changeIDOf(req.Repo, culprit); err != nil {
			return err
		}
		notOnGerrit = abbrev.Hash(culprit) + " has no Change-Id trailer"
		if id != "" {
			gc, cerr := clients.Gerrit(req.Gerrit)
			if cerr != nil {
				return cerr
			}
			// Without credentials the lookup would be anonymous, and a
			// change the public may not see would pass for none.
			if aerr := gc.CheckAuth("change " + id); aerr != nil {
				return aerr
			}
			change, why, qerr := gerritChange(ctx, gc, culprit, id)
			if qerr != nil {
				return fmt.Errorf("track: finding the culprit %s's change: %w", abbrev.Hash(culprit), qerr)
			}
			if change != 0 {
				gt, gerr := review.GerritTarget(req.Gerrit, change)
				if gerr != nil {
					return gerr
				}
				g.Review = &gt
				// err, not a new one: a failed post is the comment's
				// failure, tried again by the next run.
				g.Post, err = gc.Post(ctx, review.GerritPost{Change: strconv.Itoa(change), Message: review.Message{Kind: kind, Text: regressionText(name, g, false)}, Once: true})
			}
			notOnGerrit = why
		}
	}
	switch {
	case g.Review != nil:
		// Commented on Gerrit.
	case !req.GitHub.IsZero():
		gh, cerr := clients.GitHub()
		if cerr != nil {
			return cerr
		}
		var prs []int
		if prs, err = gh.CommitPullRequests(ctx, req.GitHub.Owner, req.GitHub.Repo, culprit); err != nil {
			return err
		}
		if len(prs) == 0 {
			g.NoReview = fmt.Sprintf("no pull request of %s has %s", req.GitHub, abbrev.Hash(culprit))
			if notOnGerrit != "" {
				g.NoReview += ", and " + notOnGerrit
			}
			break
		}
		pr := req.GitHub.PullRequest(prs[0])
		t := review.GitHubTarget(pr)
		g.Review = &t
		g.Post, err = gh.Post(ctx, pr, review.Message{Kind: kind, Text: regressionText(name, g, true)})
	case req.Gerrit != "":
		g.NoReview = notOnGerrit
	default:
		// Kept bisected: a later run given a server comments.
		t.say("not commented: no review server to comment on ({github} or {gerrit})")
		return nil
	}
	if err != nil {
		return fmt.Errorf("track: commenting on the culprit %s: %w", abbrev.Hash(culprit), err)
	}
	for _, c := range g.Changes {
		if g.Post != nil {
			c.State, c.Comment = track.StateCommented, g.Post.URL
		} else {
			c.State, c.Reason = track.StateNoReview, g.NoReview
		}
		if err := t.store.UpdateChange(ctx, name, c); err != nil {
			return err
		}
	}
	if g.Post != nil {
		t.say("commented on %s: %s (%s)", g.Review, g.Post.URL, g.Post.Action)
	} else {
		t.say("not commented: %s", g.NoReview)
	}
	return nil
}

// gerritChange returns the number of the change on g that the commit
// hash came by: the change with a patch set of that commit (one merged
// through Gerrit), else the one change of its Change-Id, id (a commit
// rebased on its way to the branch). When there is none, or the Change-Id
// names several (cherry-picks to other branches, or other projects) none
// of them this commit, it returns "" and why, rather than guess.
func gerritChange(ctx context.Context, g *review.Gerrit, hash, id string) (change int, why string, err error) {
	for _, q := range []struct{ query, several string }{
		{"commit:" + hash, fmt.Sprintf("%s has several changes with %s as a patch set", g.URL(), abbrev.Hash(hash))},
		{"change:" + id, fmt.Sprintf("%s has several changes %s, none with %s as a patch set", g.URL(), id, abbrev.Hash(hash))},
	} {
		cs, err := g.QueryChanges(ctx, q.query, 2)
		switch {
		case err != nil:
			return 0, "", err
		case len(cs) == 1:
			return cs[0].Number, "", nil
		case len(cs) > 1:
			return 0, q.several, nil
		}
	}
	return 0, fmt.Sprintf("%s has no change %s that its account can see", g.URL(), id), nil
}

// changeIDOf returns the Change-Id trailer of the commit, "" when it has
// none.
func changeIDOf(dir, hash string) (string, error) {
	r, err := repo.Open(dir)
	if err != nil {
		return "", err
	}
	c, err := repo.Resolve(r, hash)
	if err != nil {
		return "", fmt.Errorf("track: the culprit %s: %v", abbrev.Hash(hash), err)
	}
	return repo.ChangeID(c.Message), nil
}
