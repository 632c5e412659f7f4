package sweep

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/workflow/freeze"
	"github.com/patchbot/patchbot/workflow/queue"
	"github.com/patchbot/patchbot/workflow/review"
	"github.com/patchbot/patchbot/workflow/work"
)

// These tests run against the real test Gerrit (scripts/gerrit-test-server),
// each on changes of a topic of its own, which every sweep's query names:
// others' changes on the same server are never touched.

var fastPolicy = review.Policy{Attempts: 2, Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxWait: 2 * time.Second}

// The days the calendar answers for: Go 1.4's freeze, and the tree open
// again after it.
var (
	frozenDay = time.Date(2014, 11, 6, 0, 0, 0, 0, time.UTC)
	openDay   = time.Date(2014, 12, 22, 0, 0, 0, 0, time.UTC)
)

func client(t *testing.T, s gerrittest.Server, password string, dryRun bool) *review.Gerrit {
	t.Helper()
	g, err := review.NewGerrit(s.URL, &review.GerritAuth{User: s.User, Password: review.Secret(password)},
		review.Options{DryRun: dryRun, Policy: fastPolicy})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func unique() string { return gerrittest.Unique() }

// A testChange is a change pushed for a test, in a clone that can push
// more patch sets of it.
type testChange struct {
	number, dir, changeID string
}

// push pushes a new change with the topic and hashtags.
func push(t *testing.T, s gerrittest.Server, topic string, hashtags ...string) *testChange {
	t.Helper()
	dir := t.TempDir()
	s.Git(t, dir, "init", "-q", "-b", "master")
	s.Git(t, dir, "fetch", "-q", s.URL+"/a/"+s.Project, "master")
	s.Git(t, dir, "reset", "-q", "--hard", "FETCH_HEAD")
	c := &testChange{dir: dir, changeID: "I" + unique() + unique() + unique() + unique()}
	c.number = c.pushSet(t, s, topic, "1", hashtags...)
	return c
}

// pushSet commits a new patch set of the change and pushes it.
func (c *testChange) pushSet(t *testing.T, s gerrittest.Server, topic, content string, hashtags ...string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "sweep-"+topic+".txt"), []byte(content+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	s.Git(t, c.dir, "add", ".")
	if content == "1" {
		s.Git(t, c.dir, "commit", "-q", "-m", "sweep: a test change\n\nChange-Id: "+c.changeID)
	} else {
		s.Git(t, c.dir, "commit", "-q", "--amend", "--no-edit")
	}
	g := client(t, s, s.Password, false)
	res, err := g.Push(context.Background(), review.PushOptions{Dir: c.dir, Project: s.Project, Topic: topic, Hashtags: hashtags})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 {
		t.Fatalf("push listed %d changes, want 1", len(res.Changes))
	}
	u := res.Changes[0].URL
	return u[strings.LastIndex(u, "/")+1:]
}

// state is what a test checks of a change: its hashtags and the texts of
// its freeze messages.
type state struct {
	hashtags []string
	messages int
}

func stateOf(t *testing.T, s gerrittest.Server, change string) state {
	t.Helper()
	var tags []string
	s.Do(t, "GET", "/changes/"+url.PathEscape(change)+"/hashtags", nil, &tags)
	slices.Sort(tags)
	n := 0
	for _, m := range s.Messages(t, change) {
		if m.Tag == review.Tag(freeze.MessageKind) {
			n++
		}
	}
	return state{tags, n}
}

func (st state) String() string {
	return "[" + strings.Join(st.hashtags, " ") + "] " + strconv.Itoa(st.messages) + " messages"
}

// TestFreezeGerrit sweeps changes with and without wait-release, the
// calendar forcing the tree open, then frozen, each sweep twice, and
// each first in a dry run, checking each change's hashtags and freeze
// messages after every sweep.
func TestFreezeGerrit(t *testing.T) {
	s := gerrittest.Get(t)
	topic := "sweep-freeze-" + unique()
	plain := push(t, s, topic)
	waiting := push(t, s, topic, freeze.WaitRelease)
	ctx := context.Background()

	sweepAt := func(at time.Time, dryRun bool) *Result {
		t.Helper()
		res, err := Run(ctx, &Options{At: at, Offline: true, Gerrit: client(t, s, s.Password, dryRun),
			Query: "topic:" + topic, DryRun: dryRun}, []string{"freeze", "report"})
		if err != nil {
			t.Fatalf("sweep at %s (dry run %v): %v", at.Format(time.DateOnly), dryRun, err)
		}
		return res
	}
	check := func(step string, want map[*testChange]state) {
		t.Helper()
		for c, w := range want {
			if got := stateOf(t, s, c.number); got.String() != w.String() {
				t.Errorf("%s: change %s: %s, want %s", step, c.number, got, w)
			}
		}
	}
	acted := func(res *Result) []string {
		var out []string
		for _, a := range res.Tasks[0].Actions {
			if a.Freeze != nil && a.Freeze.Message != "" {
				out = append(out, a.Change)
			}
		}
		slices.Sort(out)
		return out
	}
	before := map[*testChange]state{plain: {nil, 0}, waiting: {[]string{freeze.WaitRelease}, 0}}
	check("pushed", before)

	for _, step := range []struct {
		name   string
		at     time.Time
		dryRun bool
		acted  []*testChange
		want   map[*testChange]state
	}{
		{"open, dry run", openDay, true, []*testChange{waiting}, before},
		{"open", openDay, false, []*testChange{waiting}, map[*testChange]state{
			plain: {nil, 0}, waiting: {[]string{freeze.ExWaitRelease}, 1}}},
		{"open again", openDay, false, nil, map[*testChange]state{
			plain: {nil, 0}, waiting: {[]string{freeze.ExWaitRelease}, 1}}},
		{"frozen, dry run", frozenDay, true, []*testChange{plain, waiting}, map[*testChange]state{
			plain: {nil, 0}, waiting: {[]string{freeze.ExWaitRelease}, 1}}},
		{"frozen", frozenDay, false, []*testChange{plain, waiting}, map[*testChange]state{
			plain: {[]string{freeze.WaitRelease}, 1}, waiting: {[]string{freeze.ExWaitRelease, freeze.WaitRelease}, 2}}},
		{"frozen again", frozenDay, false, nil, map[*testChange]state{
			plain: {[]string{freeze.WaitRelease}, 1}, waiting: {[]string{freeze.ExWaitRelease, freeze.WaitRelease}, 2}}},
	} {
		res := sweepAt(step.at, step.dryRun)
		var want []string
		for _, c := range step.acted {
			want = append(want, c.number)
		}
		slices.Sort(want)
		if got := acted(res); !slices.Equal(got, want) {
			t.Errorf("%s: acted on %v, want %v", step.name, got, want)
		}
		check(step.name, step.want)
		if step.dryRun != strings.Contains(res.Tasks[1].Report, "dry run: nothing written") {
			t.Errorf("%s: report:\n%s", step.name, res.Tasks[1].Report)
		}
	}
}

// TestTaskFails runs the freeze task with a password Gerrit refuses and
// the others with the right one: freeze fails, is named, and writes
// nothing; stale and report still run.
func TestTaskFails(t *testing.T) {
	s := gerrittest.Get(t)
	topic := "sweep-fail-" + unique()
	c := push(t, s, topic)
	good, bad := client(t, s, s.Password, false), client(t, s, "not-the-password", false)
	o := &Options{At: frozenDay, Offline: true, Gerrit: good, Query: "topic:" + topic, Queue: &fakeQueue{}}
	tasks := slices.Clone(Tasks)
	tasks[0].Run = func(ctx context.Context, s *Sweep) (*TaskResult, error) {
		s2, o2 := *s, *s.Options
		o2.Gerrit = bad
		s2.Options = &o2
		return FreezeTask(ctx, &s2)
	}
	res, err := RunTasks(context.Background(), o, tasks)
	fe, ok := errors.AsType[*FailedError](err)
	if !ok || !slices.Equal(fe.Tasks, []string{"freeze"}) {
		t.Fatalf("err = %v, want freeze failed", err)
	}
	if got := len(res.Tasks); got != 3 {
		t.Fatalf("%d tasks ran, want 3", got)
	}
	if res.Tasks[0].Error == "" || !strings.Contains(res.Tasks[0].Error, "401") {
		t.Errorf("freeze's error = %q, want Gerrit's 401", res.Tasks[0].Error)
	}
	if res.Tasks[1].Error != "" || res.Tasks[2].Error != "" {
		t.Errorf("stale, report: %q, %q", res.Tasks[1].Error, res.Tasks[2].Error)
	}
	if !strings.Contains(res.Tasks[2].Report, "freeze  FAILED") {
		t.Errorf("report:\n%s", res.Tasks[2].Report)
	}
	if got := stateOf(t, s, c.number); got.String() != (state{}).String() {
		t.Errorf("change %s: %s, want untouched", c.number, got)
	}
}

type fakeQueue struct{ inserted []*queue.Args }

func (q *fakeQueue) Insert(ctx context.Context, a *queue.Args) (queue.InsertResult, error) {
	q.inserted = append(q.inserted, a)
	return queue.InsertResult{ID: int64(len(q.inserted)), State: "available"}, nil
}

// benchResult posts what a bench job's reply leaves on a patch set: a
// message tagged serve-bench.
func benchResult(t *testing.T, s gerrittest.Server, change string, ps int) {
	t.Helper()
	s.Do(t, "POST", "/changes/"+change+"/revisions/"+strconv.Itoa(ps)+"/review",
		map[string]string{"message": "benchmarks (a test's)", "tag": review.Tag(work.Kind("bench"))}, nil)
}

// TestStaleGerrit: a change benchmarked at patch set 1 with a patch set 2
// gets one bench job bound to patch set 2 in a real queue; a change
// benchmarked at its current patch set, and one never benchmarked, get
// none; a dry run queues nothing; a second sweep finds the job already
// queued.
func TestStaleGerrit(t *testing.T) {
	s := gerrittest.Get(t)
	topic := "sweep-stale-" + unique()
	stale := push(t, s, topic)
	benchResult(t, s, stale.number, 1)
	stale.pushSet(t, s, topic, "2")
	current := push(t, s, topic)
	benchResult(t, s, current.number, 1)
	never := push(t, s, topic)
	_ = never
	ctx := context.Background()
	q, err := queue.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "q.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(ctx)

	sweep := func(dryRun bool) *TaskResult {
		t.Helper()
		res, err := Run(ctx, &Options{At: frozenDay, Offline: true, Gerrit: client(t, s, s.Password, dryRun),
			Query: "topic:" + topic, Queue: q, DryRun: dryRun}, []string{"stale"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Tasks[0]
	}
	jobs := func() []queue.JobInfo {
		t.Helper()
		js, err := q.Jobs(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	tr := sweep(true)
	if len(tr.Actions) != 1 || tr.Actions[0].Change != stale.number || !strings.HasPrefix(tr.Actions[0].What, "would benchmark patch set 2") {
		t.Fatalf("dry run: %+v", tr.Actions)
	}
	if js := jobs(); len(js) != 0 {
		t.Fatalf("dry run queued %d jobs", len(js))
	}
	tr = sweep(false)
	if len(tr.Actions) != 1 || tr.Actions[0].Job == nil || tr.Actions[0].Job.Duplicate {
		t.Fatalf("sweep: %+v", tr.Actions)
	}
	js := jobs()
	if len(js) != 1 {
		t.Fatalf("%d jobs queued, want 1", len(js))
	}
	ch := s.Changes(t, "change:"+stale.number)[0]
	host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
	if j := js[0]; j.Command != "bench" || j.Review != "gerrit:"+host+":"+stale.number || j.Revision != "2:"+ch.CurrentRevision || j.Who != Who {
		t.Errorf("job: %+v", j)
	}
	tr = sweep(false)
	if len(tr.Actions) != 1 || tr.Actions[0].Job == nil || !tr.Actions[0].Job.Duplicate {
		t.Fatalf("second sweep: %+v", tr.Actions)
	}
	if js := jobs(); len(js) != 1 {
		t.Fatalf("%d jobs queued after the second sweep, want 1", len(js))
	}
}
