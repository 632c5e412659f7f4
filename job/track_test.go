package job

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/bisect"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/review/reviewtest"
	"github.com/patchbot/patchbot/step/track"
)

// trackHistory makes a real Git repository of a Go module with n commits
// after a first one, each touching a file of its own (unrelated code), and
// returns its directory and the hashes, the first one's first.
func trackHistory(t *testing.T, n int) (string, []string) {
	t.Helper()
	r := gittest.New(t)
	r.Write(map[string]string{"go.mod": "module example.com/work\n\ngo 1.26\n"})
	return r.Dir, r.History(n, func(i int) map[string]string {
		return map[string]string{fmt.Sprintf("f%02d.txt", i): fmt.Sprint(i)}
	})
}

// trackModel models a history's benchmark: time(i) at the i-th commit,
// measured with noise, and compared by a bisection's steps as a
// sequential comparison would, decided exactly.
type trackModel struct {
	index    map[string]int
	time     func(i int) float64
	rng      *rand.Rand
	noise    float64 // relative, of one measurement
	measured int
	compared int
}

func newTrackModel(hashes []string, time func(int) float64) *trackModel {
	m := &trackModel{index: map[string]int{}, time: time, rng: rand.New(rand.NewPCG(1, 2)), noise: 0.02}
	for i, h := range hashes {
		m.index[h] = i
	}
	return m
}

// measure models an interleaved run of ref and hash (or of hash alone):
// each side's median off by the noise, independently.
func (m *trackModel) measure(_ context.Context, ref, hash string) (*benchrun.Result, error) {
	m.measured++
	v := m.time(m.index[hash]) * (1 + m.noise*m.rng.NormFloat64())
	row := &benchrun.Row{Name: "Work-2", New: &benchrun.Summary{Center: v, N: 5}}
	if ref != "" {
		row.Old = &benchrun.Summary{Center: m.time(m.index[ref]) * (1 + m.noise*m.rng.NormFloat64()), N: 5}
	}
	tb := &benchrun.Table{Unit: "sec/op", Rows: []*benchrun.Row{row}}
	tb.Config = append(tb.Config, benchrun.ConfigValue{Key: "pkg", Value: "example.com/work"})
	return &benchrun.Result{Tables: []*benchrun.Table{tb}}, nil
}

func (m *trackModel) bisect(dir string) func(ctx context.Context, good, bad string, pkgs []string, bench string, threshold float64) (*bisect.Result, error) {
	return func(ctx context.Context, good, bad string, pkgs []string, bench string, threshold float64) (*bisect.Result, error) {
		return bisect.Run(ctx, bisect.Options{Dir: dir, Good: good, Bad: bad, Threshold: threshold,
			Compare: func(_ context.Context, old, new string) (*benchrun.Result, error) {
				m.compared++
				o, n := m.time(m.index[old]), m.time(m.index[new])
				ratio := n / o
				v := benchrun.Same
				switch {
				case ratio > 1.01:
					v = benchrun.Slower
				case ratio < 0.99:
					v = benchrun.Faster
				}
				hi := ratio * 1.01
				row := &benchrun.Row{Name: "Work-2", Old: &benchrun.Summary{Center: o, N: 6}, New: &benchrun.Summary{Center: n, N: 6},
					Compare: &benchrun.Comparison{Verdict: v, N1: 6, N2: 6, Decision: &benchrun.Decision{Verdict: v, Ratio: ratio, Lo: ratio / 1.01, Hi: &hi}}}
				return &benchrun.Result{Base: benchrun.Side{Commit: old}, Head: benchrun.Side{Commit: new},
					Tables: []*benchrun.Table{{Unit: "sec/op", Rows: []*benchrun.Row{row}}}}, nil
			}})
	}
}

// openTestStore opens a store on a new SQLite file.
func openTestStore(t *testing.T) *track.Store {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "q.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	s, err := track.Open(context.Background(), db, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTrackTarget is #29's target on a real 40-commit history: a 10%
// slowdown at commit 12, a 30% one at commit 24 and a 20% speedup at 33,
// every commit recorded with 2% noise a measurement (a model of the
// benchmarks; the history and everything else is real). Both
// slowdowns are found and bisected to their exact commit in at most
// ⌈log₂ N⌉ + 1 steps, each gets one comment on the pull request that
// merged it, the speedup is recorded and not commented; a run that finds
// nothing new comments nothing again.
func TestTrackTarget(t *testing.T) {
	dir, hashes := trackHistory(t, 40)
	m := newTrackModel(hashes, func(i int) float64 {
		v := 1e-6
		if i >= 12 {
			v *= 1.10
		}
		if i >= 24 {
			v *= 1.30
		}
		if i >= 33 {
			v *= 0.80
		}
		return v
	})
	gh := reviewtest.NewGitHub("gopher/work")
	defer gh.Close()
	for i, h := range hashes {
		gh.SetPullRequest(100+i, reviewtest.PullRequest{Head: fmt.Sprintf("%040x", i+1), MergeCommit: h, State: "closed", Merged: true})
	}
	store := openTestStore(t)
	var log strings.Builder
	env := Env{Getenv: func(k string) string {
		return map[string]string{"GITHUB_TOKEN": reviewtest.Token, "GITHUB_API_URL": gh.URL}[k]
	}, Tell: func(line string) { fmt.Fprintln(&log, line) }}
	req := &TrackRequest{Repo: dir, Every: 1, Max: 40, Threshold: 0.05, GitHub: review.Repository{Owner: "gopher", Repo: "work"}}
	run := func() *TrackResult {
		tr := &tracker{req: req, cfg: config.Default(), env: env.orDefaults(), store: store, measure: m.measure, bisect: m.bisect(dir)}
		res, err := tr.run(context.Background())
		if err != nil {
			t.Fatalf("track: %v\n%s", err, log.String())
		}
		return res
	}
	res := run()
	t.Logf("first run:\n%s", log.String())
	if res.Track != "example.com/work@main" || len(res.Recorded) != 40 || m.measured != 40 {
		t.Fatalf("track %q recorded %d (measured %d), want example.com/work@main and 40", res.Track, len(res.Recorded), m.measured)
	}
	// A change point may be placed a recorded commit off: the
	// bisection's range allows for it.
	var found []string
	for i, c := range res.Found {
		want := []int{12, 24, 33}
		if i < len(want) && m.index[c.Hash] >= want[i]-1 && m.index[c.Hash] <= want[i]+2 {
			found = append(found, c.State)
			continue
		}
		found = append(found, fmt.Sprintf("%s@%d", c.State, m.index[c.Hash]))
	}
	if got, want := strings.Join(found, " "), "found found improved"; got != want {
		t.Errorf("change points %s, want %s (at 12, 24 and 33, or a recorded commit off)", got, want)
	}
	if len(res.Bisections) != 2 {
		t.Fatalf("%d bisections, want 2", len(res.Bisections))
	}
	for i, want := range []int{12, 24} {
		g := res.Bisections[i]
		if g.Result.Culprit == nil || m.index[g.Result.Culprit.Hash] != want {
			t.Errorf("bisection %d: culprit %+v (%s), want commit %d", i, g.Result.Culprit, g.Result.Reason, want)
			continue
		}
		if n := len(g.Result.Steps); n > bisect.MaxSteps(g.Result.Commits) {
			t.Errorf("bisection %d: %d steps for %d commits, want at most %d", i, n, g.Result.Commits, bisect.MaxSteps(g.Result.Commits))
		}
		if want := fmt.Sprintf("github:gopher/work#%d", 100+want); g.Review == nil || g.Review.String() != want || g.Post == nil || g.Post.Action != "created" {
			t.Errorf("bisection %d: comment on %q (%+v), want one created on %s", i, g.Review, g.Post, want)
		}
	}
	comments := gh.Comments()
	if len(comments) != 2 {
		t.Fatalf("%d comments, want 2: %+v", len(comments), comments)
	}
	for i, c := range comments {
		for _, want := range []string{"<!-- patchbot:regression-", "**This commit made benchmarks slower**", "`example.com/work` Work-2: +", "commit " + fmt.Sprint([]int{12, 24}[i]), "confirm: "} {
			if !strings.Contains(c.Body, want) {
				t.Errorf("comment on #%d lacks %q:\n%s", c.Issue, want, c.Body)
			}
		}
	}

	// Again, with nothing new: nothing recorded, nothing commented.
	log.Reset()
	posts := gh.Count("POST ")
	res = run()
	if len(res.Recorded) != 0 || len(res.Found) != 0 || len(res.Bisections) != 0 || gh.Count("POST ") != posts {
		t.Errorf("second run: recorded %d, found %d, bisected %d, posted %d; want nothing\n%s", len(res.Recorded), len(res.Found), len(res.Bisections), gh.Count("POST ")-posts, log.String())
	}
	changes, err := store.Changes(context.Background(), res.Track, track.Window{})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, c := range changes {
		states = append(states, c.State)
	}
	if got, want := strings.Join(states, ","), "commented,commented,improved"; got != want {
		t.Errorf("stored states %s, want %s", got, want)
	}
}

// TestTrackRates runs the target's model over 50 seeds, recording every
// commit and every second one, and an unchanged history (A/A): how often
// both slowdowns are bisected to their commit, and how often a history
// that did not change gets a change point. Recording every commit must
// find both every time, and the A/A history nothing; every second
// commit's rate is logged (go test -v -run TestTrackRates ./job), and
// docs/design/track.md quotes it.
func TestTrackRates(t *testing.T) {
	dir, hashes := trackHistory(t, 40)
	target := func(i int) float64 {
		v := 1e-6
		if i >= 12 {
			v *= 1.10
		}
		if i >= 24 {
			v *= 1.30
		}
		if i >= 33 {
			v *= 0.80
		}
		return v
	}
	const seeds = 50
	for _, c := range []struct {
		name  string
		time  func(int) float64
		every int
	}{
		{"target, every commit", target, 1},
		{"target, every second commit", target, 2},
		{"A/A, every commit", func(int) float64 { return 1e-6 }, 1},
	} {
		both, points := 0, 0
		for seed := range uint64(seeds) {
			m := newTrackModel(hashes, c.time)
			m.rng = rand.New(rand.NewPCG(seed, 99))
			tr := &tracker{req: &TrackRequest{Repo: dir, Every: c.every, Max: 40 / c.every, Threshold: 0.05}, cfg: config.Default(), env: Env{}.orDefaults(),
				store: openTestStore(t), measure: m.measure, bisect: m.bisect(dir)}
			res, err := tr.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			culprits := map[int]bool{}
			for _, g := range res.Bisections {
				if g.Result.Culprit != nil {
					culprits[m.index[g.Result.Culprit.Hash]] = true
				}
			}
			if culprits[12] && culprits[24] && len(culprits) == 2 {
				both++
			}
			points += len(res.Found)
		}
		t.Logf("%s: both slowdowns bisected to their commit in %d of %d histories; %d change points in all", c.name, both, seeds, points)
		switch c.name {
		case "target, every commit":
			if both < seeds {
				t.Errorf("%s: both found in %d of %d, want all", c.name, both, seeds)
			}
		case "A/A, every commit":
			if points > 0 {
				t.Errorf("%s: %d change points, want none", c.name, points)
			}
		}
	}
}

// TestTrackResume: a run that bisected but could not comment (GitHub
// failing) leaves the change bisected; the next run comments once,
// without bisecting again or recording anything twice. Given Gerrit too,
// a culprit without a Change-Id is commented on GitHub.
func TestTrackResume(t *testing.T) {
	dir, hashes := trackHistory(t, 20)
	m := newTrackModel(hashes, func(i int) float64 {
		if i >= 10 {
			return 1.3e-6
		}
		return 1e-6
	})
	gh := reviewtest.NewGitHub("gopher/work")
	defer gh.Close()
	gh.SetPullRequest(7, reviewtest.PullRequest{Head: strings.Repeat("1", 40), MergeCommit: hashes[10], State: "closed", Merged: true})
	down := true
	gh.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if down && r.Method == "POST" {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	store := openTestStore(t)
	env := Env{Getenv: func(k string) string {
		return map[string]string{"GITHUB_TOKEN": reviewtest.Token, "GITHUB_API_URL": gh.URL}[k]
	}}
	cfg := config.Default()
	cfg.Review.Attempts, cfg.Review.Backoff = 1, time.Millisecond
	run := func() (*TrackResult, error) {
		// A Gerrit server too, which is never asked: the culprit has no
		// Change-Id, so its pull request is its review.
		tr := &tracker{req: &TrackRequest{Repo: dir, Max: 40, Threshold: 0.05, GitHub: review.Repository{Owner: "gopher", Repo: "work"}, Gerrit: "http://127.0.0.1:9"}, cfg: cfg, env: env.orDefaults(), store: store, measure: m.measure, bisect: m.bisect(dir)}
		return tr.run(context.Background())
	}
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "commenting on the culprit") {
		t.Fatalf("with GitHub down: %v, want the comment's error", err)
	}
	changes, _ := store.Changes(context.Background(), "example.com/work@main", track.Window{})
	if len(changes) != 1 || changes[0].State != track.StateBisected || changes[0].Culprit != hashes[10] {
		t.Fatalf("after the failed comment: %+v, want one change bisected to commit 10", changes)
	}
	measured, compared := m.measured, m.compared
	down = false
	res, err := run()
	if err != nil {
		t.Fatal(err)
	}
	if m.measured != measured || m.compared != compared {
		t.Errorf("the second run measured %d and compared %d more, want none", m.measured-measured, m.compared-compared)
	}
	if len(res.Bisections) != 1 || res.Bisections[0].Post == nil || len(gh.Comments()) != 1 || gh.Comments()[0].Issue != 7 {
		t.Errorf("second run: bisections %+v, comments %+v; want one comment on #7", res.Bisections, gh.Comments())
	}
	if _, err := run(); err != nil || len(gh.Comments()) != 1 {
		t.Errorf("third run: %v, %d comments; want still one", err, len(gh.Comments()))
	}
}

func TestBenchRegexp(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"Work-2"}, `^(BenchmarkWork(-2)?)$`},
		{[]string{"Work"}, `^(BenchmarkWork)$`},
		{[]string{"Sum/big-2", "Sum/small-2"}, `^(BenchmarkSum)$/^(big(-2)?|small(-2)?)$`},
		{[]string{"Sum/size-64", "Mul-2"}, `^(BenchmarkSum|BenchmarkMul(-2)?)$/^(size(-64)?)$`},
		{[]string{"A.b*c-2"}, `^(BenchmarkA\.b\*c(-2)?)$`},
	} {
		if got := BenchRegexp(c.names); got != c.want {
			t.Errorf("BenchRegexp(%q) = %s, want %s", c.names, got, c.want)
		}
	}
}

// TestTrackGerrit comments on the real Gerrit: a history of 30 commits
// after the project's master, each with a Change-Id, slower at every 6th.
// The culprits came to the branch four ways, each commented where its
// review is, once whatever the runs after:
//   - 6, pushed for review as it is, and cherry-picked to another
//     branch for review: its change, found by its commit;
//   - 12, whose Change-Id names no change on that Gerrit (a pull request
//     squash-merged on the GitHub mirror): its pull request;
//   - 18, reviewed as another commit of its Change-Id (rebased on its
//     way): that change;
//   - 24, whose Change-Id is on two changes of other commits, on two
//     branches: neither (not guessed), and it has no pull request.
func TestTrackGerrit(t *testing.T) {
	gs := gerrittest.Get(t)
	dir := t.TempDir()
	git := func(args ...string) string { return gs.Git(t, dir, args...) }
	git("init", "-q", "-b", "master")
	git("fetch", "-q", gs.URL+"/a/"+gs.Project, "master")
	git("reset", "-q", "--hard", "FETCH_HEAD")
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/work\n"), 0o644)
	commit := func(file, msg string) string {
		b := make([]byte, 20)
		crand.Read(b)
		os.WriteFile(filepath.Join(dir, file), []byte(hex.EncodeToString(b)), 0o644)
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	newID := func() string {
		b := make([]byte, 20)
		crand.Read(b)
		return "I" + hex.EncodeToString(b)
	}
	hashes := []string{git("rev-parse", "HEAD")}
	ids := []string{""}
	for i := 1; i <= 30; i++ {
		id := newID()
		hashes, ids = append(hashes, commit(fmt.Sprintf("track%02d.txt", i), fmt.Sprintf("track: step %d\n\nChange-Id: %s", i, id))), append(ids, id)
	}
	push := func(rev, ref string) { git("push", "-q", gs.URL+"/a/"+gs.Project, rev+":"+ref) }
	push(hashes[6], "refs/for/master")
	// 18 and 24 as other commits, off master's tip.
	other := "track-" + gerrittest.Unique()
	gs.CreateBranch(t, other, hashes[0])
	for _, p := range []struct {
		i      int
		branch string
	}{{6, other}, {18, "master"}, {24, "master"}, {24, other}} {
		git("checkout", "-q", "--detach", hashes[0])
		push(commit(fmt.Sprintf("side%02d.txt", p.i), fmt.Sprintf("track: step %d, as reviewed\n\nChange-Id: %s", p.i, ids[p.i])), "refs/for/"+p.branch)
	}
	git("checkout", "-q", "master")

	m := newTrackModel(hashes, func(i int) float64 { return []float64{1e-6, 1.5e-6, 2.2e-6, 3.2e-6, 4.6e-6, 4.6e-6}[i/6] })
	store := openTestStore(t)
	gh := reviewtest.NewGitHub("gopher/work")
	defer gh.Close()
	gh.SetPullRequest(8, reviewtest.PullRequest{Head: strings.Repeat("2", 40), MergeCommit: hashes[12], State: "closed", Merged: true})
	env := Env{Getenv: func(k string) string {
		return map[string]string{"PATCHBOT_GERRIT_USER": gs.User, "PATCHBOT_GERRIT_PASSWORD": gs.Password, "HOME": t.TempDir(),
			"GITHUB_TOKEN": reviewtest.Token, "GITHUB_API_URL": gh.URL}[k]
	}}
	noPR := "no pull request of gopher/work has " + hashes[24][:12] + ", and "
	several := gs.URL + " has several changes " + ids[24] + ", none with " + hashes[24][:12] + " as a patch set"
	for run := range 2 {
		tr := &tracker{req: &TrackRequest{Repo: dir, Max: 40, MaxBisect: 4, Threshold: 0.05, Gerrit: gs.URL, GitHub: review.Repository{Owner: "gopher", Repo: "work"}}, cfg: config.Default(), env: env.orDefaults(), store: store, measure: m.measure, bisect: m.bisect(dir)}
		res, err := tr.run(context.Background())
		if err != nil {
			t.Fatalf("run %d: %v", run+1, err)
		}
		if run > 0 {
			continue
		}
		got := map[string]string{}
		for _, b := range res.Bisections {
			if b.Result == nil || b.Result.Culprit == nil {
				t.Fatalf("first run: a bisection without a culprit: %+v", b)
			}
			v := b.NoReview
			if b.Post != nil {
				v = string(b.Post.Action) + " on " + b.Review.String()
			}
			got[b.Result.Culprit.Hash] = v
		}
		server, _ := review.ServerOf(gs.URL)
		for i, want := range map[int]string{
			6:  "posted on gerrit:" + server + ":",
			12: "created on github:gopher/work#8",
			18: "posted on gerrit:" + server + ":",
			24: noPR + several,
		} {
			if !strings.HasPrefix(got[hashes[i]], want) {
				t.Errorf("first run: the culprit %d: %q, want %q", i, got[hashes[i]], want)
			}
		}
		if len(got) != 4 {
			t.Errorf("first run: %d culprits, want 4: %q", len(got), got)
		}
	}
	// GitHub is asked of the culprits not on Gerrit alone.
	for _, r := range gh.Requests() {
		if r != "GET /api/v3/user" && !strings.Contains(r, hashes[12]) && !strings.Contains(r, hashes[24]) && !strings.Contains(r, "/issues/8/") {
			t.Errorf("GitHub was asked %q, want only of the culprits 12 and 24, and #8", r)
		}
	}
	if cs := gh.Comments(); len(cs) != 1 || cs[0].Issue != 8 || !strings.Contains(cs[0].Body, hashes[12][:12]) {
		t.Errorf("GitHub comments %+v, want one on #8 naming %s", cs, hashes[12][:12])
	}
	for i, query := range map[int]string{6: "commit:" + hashes[6], 18: "change:" + ids[18]} {
		changes := gs.Changes(t, query)
		if len(changes) != 1 {
			t.Fatalf("%d changes of %s, want 1", len(changes), query)
		}
		var posted []string
		for _, msg := range gs.Messages(t, strconv.Itoa(changes[0].Number)) {
			if strings.HasPrefix(msg.Tag, review.Tag("regression-")) {
				posted = append(posted, msg.Message)
			}
		}
		if len(posted) != 1 || !strings.Contains(posted[0], "This commit made benchmarks slower: "+hashes[i][:12]) || !strings.Contains(posted[0], "/work Work-2: +") {
			t.Errorf("change %d has %d regression messages, want one naming the culprit %d:\n%s", changes[0].Number, len(posted), i, strings.Join(posted, "\n---\n"))
		}
	}
	for _, query := range []string{"change:" + ids[24], "change:" + ids[6] + " branch:" + other} {
		for _, c := range gs.Changes(t, query) {
			if n := len(gs.Messages(t, strconv.Itoa(c.Number))); n != 1 { // "Uploaded patch set 1."
				t.Errorf("change %d (%s) has %d messages, want its upload's alone", c.Number, query, n)
			}
		}
	}

	// Given Gerrit alone, on a store of its own, the culprits not found
	// there are recorded as having no review, at once, not retried run
	// after run.
	// Without credentials, whose lookup would see only public changes,
	// nothing is decided: the run fails saying what to set.
	store = openTestStore(t)
	anonymous := Env{Getenv: func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }}
	tr := &tracker{req: &TrackRequest{Repo: dir, Max: 40, MaxBisect: 4, Threshold: 0.05, Gerrit: gs.URL}, cfg: config.Default(), env: anonymous.orDefaults(), store: store, measure: m.measure, bisect: m.bisect(dir)}
	if _, err := tr.run(context.Background()); err == nil || !strings.Contains(err.Error(), "PATCHBOT_GERRIT_USER") {
		t.Errorf("Gerrit alone, without credentials: %v, want an error naming them", err)
	}
	changes, _ := store.Changes(context.Background(), "example.com/work@master", track.Window{})
	for _, c := range changes {
		if c.State == track.StateNoReview || c.State == track.StateCommented {
			t.Errorf("Gerrit alone, without credentials: the change at %s is %s (%s), want it left to the next run", c.Hash, c.State, c.Reason)
		}
	}
	tr.env = env.orDefaults()
	if _, err := tr.run(context.Background()); err != nil {
		t.Fatalf("Gerrit alone: %v", err)
	}
	changes, _ = store.Changes(context.Background(), "example.com/work@master", track.Window{})
	var states []string
	for _, c := range changes {
		states = append(states, c.State+": "+c.Reason)
	}
	want := []string{
		track.StateCommented + ": ",
		track.StateNoReview + ": " + gs.URL + " has no change " + ids[12] + " that its account can see",
		track.StateCommented + ": ",
		track.StateNoReview + ": " + several,
	}
	if !slices.Equal(states, want) {
		t.Errorf("Gerrit alone: changes\n%q\nwant\n%q", states, want)
	}
}

func TestBisectThreshold(t *testing.T) {
	change := func(ratio float64) *track.Change { return &track.Change{Before: 1, After: ratio} }
	for _, c := range []struct {
		threshold float64
		changes   []*track.Change
		want      float64
	}{
		{0.05, []*track.Change{change(1.32)}, 0.16},
		{0.05, []*track.Change{change(1.08)}, 0.05},
		{0.05, []*track.Change{change(3.0), change(1.4)}, 0.2},
		{0.05, []*track.Change{change(4.0)}, 0.5},
		{0.6, []*track.Change{change(4.0)}, 0.6},
	} {
		if got := bisectThreshold(c.threshold, c.changes); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("bisectThreshold(%v, ...) = %v, want %v", c.threshold, got, c.want)
		}
	}
}

// TestMoved: a change point found again one or two recorded commits from
// a known one of its series is the same change; further away, or of
// another series, it is new.
func TestMoved(t *testing.T) {
	k, other := track.SeriesKey{Package: "p", Name: "A-2", Unit: "sec/op"}, track.SeriesKey{Package: "p", Name: "B-2", Unit: "sec/op"}
	hashes := []string{"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"}
	series := []*track.Series{{Key: k, Hashes: hashes}, {Key: other, Hashes: hashes}}
	known := []*track.Change{{Key: k, Hash: "h3"}}
	for _, c := range []struct {
		key  track.SeriesKey
		hash string
		want bool
	}{
		{k, "h3", true}, {k, "h4", true}, {k, "h1", true}, {k, "h6", false}, {k, "h0", false}, {other, "h3", false},
	} {
		if got := moved(&track.Change{Key: c.key, Hash: c.hash}, known, series); got != c.want {
			t.Errorf("moved(%s at %s) = %v, want %v", c.key.Name, c.hash, got, c.want)
		}
	}
}

// TestTrackGivesUp: a comment that fails on MaxTries runs is given up,
// with its error as the reason, and not tried again.
func TestTrackGivesUp(t *testing.T) {
	dir, hashes := trackHistory(t, 20)
	m := newTrackModel(hashes, func(i int) float64 {
		if i >= 10 {
			return 1.3e-6
		}
		return 1e-6
	})
	gh := reviewtest.NewGitHub("gopher/work")
	defer gh.Close()
	gh.SetPullRequest(7, reviewtest.PullRequest{Head: strings.Repeat("1", 40), MergeCommit: hashes[10], State: "closed", Merged: true})
	gh.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == "POST" {
			http.Error(w, "locked", http.StatusForbidden)
			return true
		}
		return false
	})
	store := openTestStore(t)
	env := Env{Getenv: func(k string) string {
		return map[string]string{"GITHUB_TOKEN": reviewtest.Token, "GITHUB_API_URL": gh.URL}[k]
	}}
	cfg := config.Default()
	cfg.Review.Attempts, cfg.Review.Backoff = 1, time.Millisecond
	for run := 1; run <= MaxTries+1; run++ {
		tr := &tracker{req: &TrackRequest{Repo: dir, Max: 40, Threshold: 0.05, GitHub: review.Repository{Owner: "gopher", Repo: "work"}}, cfg: cfg, env: env.orDefaults(), store: store, measure: m.measure, bisect: m.bisect(dir)}
		_, err := tr.run(context.Background())
		if (err != nil) != (run <= MaxTries) {
			t.Errorf("run %d: %v, want an error on the first %d only", run, err, MaxTries)
		}
	}
	changes, _ := store.Changes(context.Background(), "example.com/work@main", track.Window{})
	if len(changes) != 1 || changes[0].State != track.StateNoCulprit || !strings.Contains(changes[0].Reason, "given up after 3 tries") {
		t.Errorf("changes %+v, want one given up", changes)
	}
}

func TestTrackRequestValidate(t *testing.T) {
	hash := strings.Repeat("a", 40)
	for _, tt := range []struct {
		req   TrackRequest
		field string // "" for valid
	}{
		{TrackRequest{}, ""},
		{TrackRequest{Every: 2, Max: 10, MaxBisect: 1, Threshold: 0.05, GitHub: review.Repository{Owner: "o", Repo: "r"}, Gerrit: "https://go-review.googlesource.com", Range: &Range{hash, hash}}, ""},
		{TrackRequest{Every: -1}, "every"},
		{TrackRequest{Max: -1}, "max"},
		{TrackRequest{MaxBisect: -1}, "max_bisect"},
		{TrackRequest{Threshold: 1}, "threshold"},
		{TrackRequest{Threshold: -0.1}, "threshold"},
		{TrackRequest{GitHub: review.Repository{Owner: "o"}}, "github"},
		{TrackRequest{GitHub: review.Repository{Owner: "o", Repo: "r#1"}}, "github"},
		{TrackRequest{Gerrit: "go-review"}, "gerrit"},
		{TrackRequest{Range: &Range{"HEAD", hash}}, "range"},
		{TrackRequest{Bench: BenchSettings{Count: -1}}, "bench.count"},
		{TrackRequest{Bench: BenchSettings{Packages: []string{"-x"}}}, "bench.packages[0]"},
	} {
		checkField(t, fmt.Sprintf("%+v", tt.req), tt.req.Validate(), tt.field)
	}
}

func TestBisectRequestValidate(t *testing.T) {
	for _, tt := range []struct {
		req   BisectRequest
		field string
	}{
		{BisectRequest{Good: "v1", Bad: "HEAD"}, ""},
		{BisectRequest{Bad: "HEAD"}, "good"},
		{BisectRequest{Good: "v1"}, "bad"},
		{BisectRequest{Good: "v1", Bad: "HEAD", Threshold: 1.5}, "threshold"},
		{BisectRequest{Good: "v1", Bad: "HEAD", Bench: BenchSettings{Bench: "("}}, "bench.bench"},
	} {
		checkField(t, fmt.Sprintf("%+v", tt.req), tt.req.Validate(), tt.field)
	}
}

// checkField checks that err is nil for field "", else a
// *remedy.FieldError for field.
func checkField(t *testing.T, what string, err error, field string) {
	t.Helper()
	fe, ok := errors.AsType[*remedy.FieldError](err)
	switch {
	case field == "" && err != nil:
		t.Errorf("%s: Validate = %v, want nil", what, err)
	case field != "" && (!ok || fe.Field != field):
		t.Errorf("%s: Validate = %v (%T), want a *remedy.FieldError for %s", what, err, err, field)
	}
}

// TestTrackNameRefusals: what TrackName cannot find is a field to give,
// named as the request's field.
func TestTrackNameRefusals(t *testing.T) {
	dir := t.TempDir()
	_, _, err := TrackName(&TrackRequest{Repo: dir})
	checkField(t, "outside a repository", err, "repo")
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	_, _, err = TrackName(&TrackRequest{Repo: dir})
	checkField(t, "without a module", err, "name")
	gittest.Git(t, dir, "checkout", "-q", "--detach")
	_, _, err = TrackName(&TrackRequest{Repo: dir})
	checkField(t, "on a detached HEAD", err, "branch")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if branch, name, err := TrackName(&TrackRequest{Repo: dir, Branch: "main"}); branch != "main" || name != "example.com/m@main" || err != nil {
		t.Errorf("TrackName = %q, %q, %v; want main, example.com/m@main", branch, name, err)
	}
}

// TestTrackBrokenCommit: a commit whose benchmarks do not build is
// recorded with the compiler's message, not only the line that says so.
func TestTrackBrokenCommit(t *testing.T) {
	r := gittest.New(t)
	dir := r.Dir
	r.Commit("b: add", map[string]string{
		"go.mod":    "module example.com/b\n\ngo 1.22\n",
		"b.go":      "package b\n\nfunc F() int { return 1 }\n",
		"b_test.go": "package b\n\nimport \"testing\"\n\nfunc BenchmarkF(b *testing.B) {\n\tfor b.Loop() {\n\t\tF()\n\t}\n}\n",
	})
	r.Commit("b: break", map[string]string{"b.go": "package b\n\nfunc F() int { return undefinedName }\n"})
	var said strings.Builder
	env := Env{Tracks: openTestStore(t), Tell: func(l string) { fmt.Fprintln(&said, l) }}
	res, err := Track(context.Background(), &TrackRequest{Repo: dir, Bench: BenchSettings{Count: 1, Benchtime: "1x"}}, config.Default(), env)
	if err != nil {
		t.Fatalf("Track: %v\n%s", err, &said)
	}
	if len(res.Recorded) != 2 || res.Recorded[0].Error != "" {
		t.Fatalf("recorded %+v, want 2 commits, the first with values", res.Recorded)
	}
	if e := res.Recorded[1].Error; !strings.Contains(e, "does not build") || !strings.Contains(e, "undefined: undefinedName") {
		t.Errorf("the broken commit's error:\n%s\nwant the compiler's message", e)
	}
}
