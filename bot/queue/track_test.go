package queue

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

func trackArgs(rg *job.Range) *TrackArgs {
	return &TrackArgs{Track: "example.com/m@main", Range: rg, Source: "https://github.com/gopher/m", Branch: "main",
		Request: job.TrackRequest{Every: 2, GitHub: review.Repository{Owner: "gopher", Repo: "m"}}}
}

// TestTrackJobs: a track job and a bisection job of the same track are
// two jobs; the same one again while it waits is a duplicate; the handler
// gets each with its arguments; once done, the same job may be queued
// again (the next run of the track).
func TestTrackJobs(t *testing.T) {
	t.Parallel()
	got := make(chan *TrackJob, 10)
	q := open(t, dbURL(t), Options{
		Handler: func(ctx context.Context, j *Job) error { return nil },
		TrackHandler: func(ctx context.Context, j *TrackJob) error {
			got <- j
			return nil
		},
	})
	rg := &job.Range{Good: strings.Repeat("a", 40), Bad: strings.Repeat("b", 40)}
	run, err := q.InsertTrack(t.Context(), trackArgs(nil))
	if err != nil || run.Duplicate {
		t.Fatalf("InsertTrack: %+v, %v", run, err)
	}
	bis, err := q.InsertTrack(t.Context(), trackArgs(rg))
	if err != nil || bis.Duplicate || bis.ID == run.ID {
		t.Fatalf("InsertTrack of a bisection: %+v, %v; want a job of its own", bis, err)
	}
	if dup, err := q.InsertTrack(t.Context(), trackArgs(nil)); err != nil || !dup.Duplicate || dup.ID != run.ID {
		t.Errorf("InsertTrack again while it waits: %+v, %v; want a duplicate of %d", dup, err, run.ID)
	}
	start(t, q)
	seen := map[int64]*TrackJob{}
	for range 2 {
		j := recv(t, got, "track job")
		seen[j.ID] = j
	}
	if j := seen[bis.ID]; j == nil || j.Args.Range == nil || j.Args.Range.Good != strings.Repeat("a", 40) || j.Args.Request.Every != 2 {
		t.Errorf("the bisection job: %+v", j)
	}
	if j := seen[run.ID]; j == nil || j.Args.Range != nil || j.Args.String() != "track example.com/m@main" {
		t.Errorf("the record job: %+v", j)
	}
	// Done: the next run is a new job.
	for deadline := 0; ; deadline++ {
		res, err := q.InsertTrack(t.Context(), trackArgs(nil))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Duplicate {
			break
		}
		if deadline > 200 {
			t.Fatal("hung: the finished track job still makes the next a duplicate")
		}
		time.Sleep(50 * time.Millisecond) // River marking it done
	}
}

func TestTrackArgsValidate(t *testing.T) {
	for _, c := range []struct {
		mod  func(*TrackArgs)
		want string
	}{
		{func(a *TrackArgs) { a.Track = "" }, "name"},
		{func(a *TrackArgs) { a.Track = "x y" }, "name"},
		{func(a *TrackArgs) { a.Range = &job.Range{Good: "abc", Bad: "def"} }, "range"},
		{func(a *TrackArgs) { a.Source = "--upload-pack=evil" }, "no repository"},
		{func(a *TrackArgs) { a.Branch = "" }, "no branch"},
		{func(a *TrackArgs) { a.Request.Repo = "/etc" }, "the worker sets them"},
		{func(a *TrackArgs) { a.Request.Range = &job.Range{} }, "the worker sets them"},
	} {
		a := trackArgs(nil)
		c.mod(a)
		if err := a.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", a, err, c.want)
		}
	}
	if err := trackArgs(nil).Validate(); err != nil {
		t.Errorf("a valid job: %v", err)
	}
}

// TestTrackArgsJSON: a range is stored as text, "GOOD..BAD", as it was
// when it was a string (a queued job of an older patchbot decodes, and
// its unique key is the same); one that is not two hashes does not
// decode, and the worker cancels its job.
func TestTrackArgsJSON(t *testing.T) {
	good, bad := strings.Repeat("a", 40), strings.Repeat("b", 40)
	data, err := json.Marshal(trackArgs(&job.Range{Good: good, Bad: bad}))
	if err != nil || !strings.Contains(string(data), `"range":"`+good+".."+bad+`"`) {
		t.Fatalf("Marshal = %s, %v", data, err)
	}
	if data, _ := json.Marshal(trackArgs(nil)); strings.Contains(string(data), "range") {
		t.Errorf("a record run's args hold a range: %s", data)
	}
	var a TrackArgs
	if err := json.Unmarshal(data, &a); err != nil || a.Range == nil || *a.Range != (job.Range{Good: good, Bad: bad}) {
		t.Errorf("Unmarshal = %+v, %v", a.Range, err)
	}
	if err := json.Unmarshal([]byte(`{"track":"t","range":"HEAD..main"}`), &a); err == nil {
		t.Errorf("a range of names decodes: %+v", a.Range)
	}
}
