package sweep

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/review"
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
			Query: "topic:" + topic}, []string{"freeze", "report"})
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
// message tagged with a bench job's reply kind (work.ReplyKind).
func benchResult(t *testing.T, s gerrittest.Server, change string, ps int) {
	t.Helper()
	s.Do(t, "POST", "/changes/"+change+"/revisions/"+strconv.Itoa(ps)+"/review",
		map[string]string{"message": "benchmarks (a test's)", "tag": review.Tag(work.ReplyPrefix("bench") + "0123456789")}, nil)
}

// TestStaleGerrit: two changes benchmarked at patch set 1 with a patch
// set 2 each get a bench job bound to patch set 2 in a real queue, the
// newer first when the bound allows one a sweep; a change benchmarked at
// its current patch set, and one never benchmarked, get none; a dry run
// queues nothing; a later sweep finds the jobs already queued. Without a
// queue, the same jobs go to the worker here.
func TestStaleGerrit(t *testing.T) {
	s := gerrittest.Get(t)
	topic := "sweep-stale-" + unique()
	older := push(t, s, topic)
	benchResult(t, s, older.number, 1)
	older.pushSet(t, s, topic, "2")
	newer := push(t, s, topic)
	benchResult(t, s, newer.number, 1)
	newer.pushSet(t, s, topic, "2")
	current := push(t, s, topic)
	benchResult(t, s, current.number, 1)
	push(t, s, topic) // never benchmarked
	ctx := context.Background()
	q, err := queue.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "q.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(ctx)

	sweep := func(o Options) *TaskResult {
		t.Helper()
		if o.Gerrit == nil {
			o.Gerrit = client(t, s, s.Password, false)
		}
		o.At, o.Offline, o.Query = frozenDay, true, "topic:"+topic
		res, err := Run(ctx, &o, []string{"stale"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Tasks[0]
	}
	what := func(tr *TaskResult) string {
		var out []string
		for _, a := range tr.Actions {
			w := a.What
			if a.Job != nil {
				w = fmt.Sprintf("job duplicate=%v", a.Job.Duplicate)
			}
			out = append(out, a.Change+": "+strings.TrimSpace(w[:min(len(w), 28)]))
		}
		return strings.Join(out, "; ")
	}
	jobs := func() []queue.JobInfo {
		t.Helper()
		js, err := q.Jobs(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	n, o := newer.number, older.number
	for _, step := range []struct {
		name string
		o    Options
		want string
		jobs int
	}{
		{"dry run", Options{Queue: q, Gerrit: client(t, s, s.Password, true)}, n + ": would benchmark patch set 2; " + o + ": would benchmark patch set 2", 0},
		{"bound 1", Options{Queue: q, MaxStale: 1}, n + ": job duplicate=false; " + o + ": left for the next sweep (at", 1},
		{"bound 5", Options{Queue: q}, n + ": job duplicate=true; " + o + ": job duplicate=false", 2},
		{"again", Options{Queue: q}, n + ": job duplicate=true; " + o + ": job duplicate=true", 2},
	} {
		if got := what(sweep(step.o)); got != step.want {
			t.Errorf("%s: %s\nwant %s", step.name, got, step.want)
		}
		if js := jobs(); len(js) != step.jobs {
			t.Errorf("%s: %d jobs queued, want %d", step.name, len(js), step.jobs)
		}
	}
	host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
	for _, j := range jobs() {
		c := newer
		if strings.HasSuffix(j.Review, ":"+older.number) {
			c = older
		}
		ch := s.Changes(t, "change:"+c.number)[0]
		if j.Command != "bench" || j.Review != "gerrit:"+host+":"+c.number || j.Revision != "2:"+ch.CurrentRevision || j.Who != Who {
			t.Errorf("job: %+v", j)
		}
	}

	// No queue: the worker here gets the same jobs, one at a time, on
	// their last attempt (a failure is answered on the change).
	var ran []string
	work := func(ctx context.Context, j *queue.Job) error {
		if j.Attempt != j.MaxAttempts {
			t.Errorf("job %s: attempt %d of %d", &j.Args, j.Attempt, j.MaxAttempts)
		}
		ran = append(ran, j.Args.Review.String()+" "+strconv.Itoa(j.Args.Revision.PatchSet))
		return nil
	}
	tr := sweep(Options{Work: work})
	if want := []string{"gerrit:" + host + ":" + n + " 2", "gerrit:" + host + ":" + o + " 2"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if !strings.Contains(tr.Summary, "2 benchmarked here") {
		t.Errorf("summary %q", tr.Summary)
	}
}
