package queue

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/job"
)

func trackArgs(rg string) *TrackArgs {
	return &TrackArgs{Track: "example.com/m@main", Range: rg, Source: "https://github.com/gopher/m", Branch: "main",
		Request: job.TrackRequest{Every: 2, GitHub: "gopher/m"}}
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
	rg := RangeArg(job.Range{Good: strings.Repeat("a", 40), Bad: strings.Repeat("b", 40)})
	run, err := q.InsertTrack(t.Context(), trackArgs(""))
	if err != nil || run.Duplicate {
		t.Fatalf("InsertTrack: %+v, %v", run, err)
	}
	bis, err := q.InsertTrack(t.Context(), trackArgs(rg))
	if err != nil || bis.Duplicate || bis.ID == run.ID {
		t.Fatalf("InsertTrack of a bisection: %+v, %v; want a job of its own", bis, err)
	}
	if dup, err := q.InsertTrack(t.Context(), trackArgs("")); err != nil || !dup.Duplicate || dup.ID != run.ID {
		t.Errorf("InsertTrack again while it waits: %+v, %v; want a duplicate of %d", dup, err, run.ID)
	}
	start(t, q)
	seen := map[int64]*TrackJob{}
	for range 2 {
		j := recv(t, got, "track job")
		seen[j.ID] = j
	}
	if j := seen[bis.ID]; j == nil || j.Args.Bisect() == nil || j.Args.Bisect().Good != strings.Repeat("a", 40) || j.Args.Request.Every != 2 {
		t.Errorf("the bisection job: %+v", j)
	}
	if j := seen[run.ID]; j == nil || j.Args.Bisect() != nil || j.Args.String() != "track example.com/m@main" {
		t.Errorf("the record job: %+v", j)
	}
	// Done: the next run is a new job.
	for deadline := 0; ; deadline++ {
		res, err := q.InsertTrack(t.Context(), trackArgs(""))
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
		{func(a *TrackArgs) { a.Range = "abc..def" }, "range"},
		{func(a *TrackArgs) { a.Source = "--upload-pack=evil" }, "no repository"},
		{func(a *TrackArgs) { a.Branch = "" }, "no branch"},
		{func(a *TrackArgs) { a.Request.Repo = "/etc" }, "the worker sets them"},
		{func(a *TrackArgs) { a.Request.Range = &job.Range{} }, "the worker sets them"},
	} {
		a := trackArgs("")
		c.mod(a)
		if err := a.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", a, err, c.want)
		}
	}
	if err := trackArgs("").Validate(); err != nil {
		t.Errorf("a valid job: %v", err)
	}
}
