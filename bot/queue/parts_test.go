package queue

import (
	"strings"
	"sync"
	"testing"
)

// TestParts: a split comparison's record and its parts', read back in
// order by any process on the database, a part recorded again replaced,
// and the final reply claimed once however many claim it at once.
func TestParts(t *testing.T) {
	t.Parallel()
	url := dbURL(t)
	q := open(t, url, Options{})
	ctx := t.Context()
	const whole = "github:owner/repo#1 serve-bench-0123456789"
	if got, err := q.Parts(ctx, whole); err != nil || got != nil {
		t.Fatalf("Parts before the split = %v, %v; want none", got, err)
	}
	if err := q.RecordSplit(ctx, whole, 3, []byte(`{"selection":1}`)); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		idx  int
		data string
	}{{2, "two"}, {0, "zero"}, {2, "two again"}} {
		if err := q.RecordPart(ctx, whole, r.idx, 3, []byte(r.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.RecordPart(ctx, whole, -1, 3, nil); err == nil {
		t.Error("RecordPart recorded part -1, the split's")
	}
	other := open(t, url, Options{})
	got, err := other.Parts(ctx, whole)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, r := range got {
		read = append(read, string(r.Data))
	}
	if want := `{"selection":1}|zero|two again`; strings.Join(read, "|") != want || got[0].Index != -1 || got[1].Index != 0 || got[2].Index != 2 {
		t.Errorf("Parts = %q (%+v), want %q", read, got, want)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	claimed := 0
	for i := range 8 {
		wg.Go(func() {
			qq := q
			if i%2 == 1 {
				qq = other
			}
			ok, err := qq.ClaimFinal(ctx, whole, i)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				claimed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if claimed != 1 {
		t.Errorf("the final reply was claimed %d times, want once", claimed)
	}
	// The whole's job run again records its split again: still claimed,
	// by the part that claimed it, which may claim it again.
	if err := q.RecordSplit(ctx, whole, 3, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range 8 {
		if ok, err := q.ClaimFinal(ctx, whole, i); err != nil {
			t.Fatal(err)
		} else if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("after the split was recorded again, %d parts claim the reply, want the one that did", n)
	}
	if ok, err := q.ClaimFinal(ctx, "no such whole", 0); ok || err != nil {
		t.Errorf("ClaimFinal of no split = %v, %v", ok, err)
	}
}

// TestPartJobs: the parts of one comparison are jobs apart, each unique;
// a part that is not one is refused at the door.
func TestPartJobs(t *testing.T) {
	t.Parallel()
	q := open(t, dbURL(t), Options{})
	part := func(i int, pkg string) *Args {
		a := args("split")
		a.Part = &Part{Index: i, Of: 2, Package: pkg, Bench: "^BenchmarkF$"}
		return a
	}
	whole := insert(t, q, args("split"))
	p0, p1 := insert(t, q, part(0, "./a")), insert(t, q, part(1, "./b/c"))
	if whole.Duplicate || p0.Duplicate || p1.Duplicate || p0.ID == p1.ID || p0.ID == whole.ID {
		t.Errorf("the whole and its parts are not three jobs: %+v %+v %+v", whole, p0, p1)
	}
	if again := insert(t, q, part(0, "./a")); !again.Duplicate || again.ID != p0.ID {
		t.Errorf("a part queued again = %+v, want a duplicate of job %d", again, p0.ID)
	}
	if s := part(1, "./b/c").String(); !strings.HasSuffix(s, "(part 2 of 2: ./b/c)") {
		t.Errorf("String = %q", s)
	}
	for _, bad := range []*Part{
		{Index: 0, Of: 1, Package: "./a"},
		{Index: 2, Of: 2, Package: "./a"},
		{Index: -1, Of: 2, Package: "./a"},
		{Index: 0, Of: MaxParts + 1, Package: "./a"},
		{Index: 0, Of: 2, Package: "../a"},
		{Index: 0, Of: 2, Package: "./a/../../b"},
		{Index: 0, Of: 2, Package: "/etc"},
		{Index: 0, Of: 2, Package: "a"},
		{Index: 0, Of: 2, Package: "./"},
		{Index: 0, Of: 2, Package: "./a", Bench: strings.Repeat("x", maxPartBench+1)},
	} {
		a := args("bad")
		a.Part = bad
		if _, err := q.Insert(t.Context(), a); err == nil {
			t.Errorf("Insert took the part %+v", bad)
		}
	}
	freeze := args("freeze")
	freeze.Command, freeze.Request.Steps = "freeze", []string{"freeze", "post"}
	freeze.Part = &Part{Index: 0, Of: 2, Package: "./a"}
	if _, err := q.Insert(t.Context(), freeze); err == nil {
		t.Error("Insert took a part of a job that runs no benchmark")
	}
}
