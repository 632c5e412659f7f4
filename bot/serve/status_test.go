package serve

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/step/benchrun"
)

// hostile is a benchmark name that the code under test chose.
const hostile = `Evil</text><script>alert(1)</script><text x="0">"'&-2`

// codecResult is a real comparison: benchrun's codec testdata, with one
// benchmark renamed to hostile.
func codecResult(t *testing.T) *benchrun.Result {
	t.Helper()
	r, err := benchrun.CompareFiles("../../step/benchrun/testdata/codec-old.txt", "../../step/benchrun/testdata/codec-new.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range r.Tables {
		for _, row := range tb.Rows {
			if strings.HasPrefix(row.Name, "Uint64") {
				row.Name = hostile
			}
		}
	}
	return r
}

// TestPlot: one axis per benchmark, a dot per run of each side, and every
// text escaped: the SVG is well-formed XML whatever the names are.
func TestPlot(t *testing.T) {
	r := codecResult(t)
	for _, tb := range r.Tables {
		svg := string(plotTable(tb))
		if svg == "" {
			t.Errorf("%s: no plot", tb.Unit)
			continue
		}
		if strings.Contains(svg, "<script") || strings.Contains(svg, hostile) {
			t.Errorf("%s: the hostile name is not escaped:\n%s", tb.Unit, svg)
		}
		// Parse it: each circle but the legend's two is a run.
		d := xml.NewDecoder(strings.NewReader(svg))
		circles, texts, lines := 0, []string{}, 0
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: not XML: %v\n%s", tb.Unit, err, svg)
			}
			switch el := tok.(type) {
			case xml.StartElement:
				switch el.Name.Local {
				case "circle":
					circles++
				case "line":
					lines++
				case "script":
					t.Errorf("%s: a script element", tb.Unit)
				}
			case xml.CharData:
				texts = append(texts, string(el))
			}
		}
		runs := 0
		for _, row := range tb.Rows {
			runs += len(row.Old.Values) + len(row.New.Values)
		}
		if circles != runs+2 || lines != len(tb.Rows) {
			t.Errorf("%s: %d circles and %d axes; want %d runs + 2 and %d", tb.Unit, circles, lines, runs, len(tb.Rows))
		}
		// The name comes back as it was (cut to plotMaxLen), as text.
		if !strings.Contains(strings.Join(texts, "\n"), hostile[:plotMaxLen]) {
			t.Errorf("%s: the benchmark's name is not in the plot's text: %q", tb.Unit, texts)
		}
	}
	// Many benchmarks: the first plotMaxRows, and how many more.
	many := &benchrun.Table{Unit: "sec/op"}
	for i := range plotMaxRows + 50 {
		many.Rows = append(many.Rows, &benchrun.Row{Name: fmt.Sprint("B", i),
			Old: &benchrun.Summary{Values: []float64{1, 2}}, New: &benchrun.Summary{Values: []float64{3}}})
	}
	svg := string(plotTable(many))
	if n := strings.Count(svg, "<line "); n != plotMaxRows || !strings.Contains(svg, ">and 50 more, in the table<") {
		t.Errorf("a table of %d rows: %d axes; want %d and a line for the rest", len(many.Rows), n, plotMaxRows)
	}
	// Added and removed benchmarks and empty tables draw nothing.
	if svg := plotTable(&benchrun.Table{Unit: "sec/op", Rows: []*benchrun.Row{{Name: "X", New: &benchrun.Summary{Values: []float64{1}}}}}); svg != "" {
		t.Errorf("a row of one side only: %s", svg)
	}
}

// TestStatus: /healthz, /api/jobs and the page, on a real queue with jobs
// in it and a result for one of them.
func TestStatus(t *testing.T) {
	res := codecResult(t)
	var benchID int64
	e := newEnv(t, true, func(c *Config) {
		c.Results = func(ctx context.Context, j queue.JobInfo) (*work.Output, error) {
			if j.Command != "bench" {
				return &work.Output{URL: "https://github.example/gopher/codec/pull/7#issuecomment-1"}, nil
			}
			benchID = j.ID
			return &work.Output{URL: "javascript:alert(1)", Bench: res, Note: "<b>values</b> left\u202e out"}, nil
		}
	})
	if w := e.serve(httptest.NewRequest("GET", "/healthz", nil)); w.Code != 200 || w.Body.String() != "ok\n" {
		t.Errorf("healthz: %d %q", w.Code, w.Body)
	}
	e.deliver("st-1", comment{ID: 1, Body: "/patchbot bench"}, 202)
	e.deliver("st-2", comment{ID: 2, Login: "bob", Body: "/patchbot bench"}, 202)
	e.recv()
	e.recv()
	// The page shows results of completed jobs: wait for both.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("hung: the jobs never completed within two minutes")
		}
		jobs, err := e.q.Jobs(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) == 2 && jobs[0].State == "completed" && jobs[1].State == "completed" {
			break
		}
	}

	w := e.serve(httptest.NewRequest("GET", "/api/jobs", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("/api/jobs: %d %s", w.Code, w.Header())
	}
	var jobs []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &jobs); err != nil {
		t.Fatalf("/api/jobs: %v\n%s", err, w.Body)
	}
	if len(jobs) != 2 {
		t.Fatalf("/api/jobs: %d jobs\n%s", len(jobs), w.Body)
	}
	for _, k := range []string{"id", "review", "revision", "command", "who", "state", "attempt", "max_attempts", "created_at", "finalized_at", "result_url"} {
		if _, ok := jobs[0][k]; !ok {
			t.Errorf("/api/jobs: no %q in %v", k, jobs[0])
		}
	}
	if u, _ := jobs[1]["result_url"].(string); u != "" {
		t.Errorf("/api/jobs: the bench job's result_url is %q; want none for a link that is not http(s)", u)
	}
	if jobs[0]["command"] != queue.CommandRefuse || jobs[1]["command"] != "bench" || jobs[1]["who"] != "alice" || jobs[1]["revision"] != head1 {
		t.Errorf("/api/jobs, newest first:\n%s", w.Body)
	}
	if w := e.serve(httptest.NewRequest("GET", "/api/jobs?limit=1", nil)); !strings.Contains(w.Body.String(), queue.CommandRefuse) || strings.Contains(w.Body.String(), head1) {
		t.Errorf("/api/jobs?limit=1:\n%s", w.Body)
	}
	for _, q := range []string{"0", "-1", "1001", "x", "1e3"} {
		if w := e.serve(httptest.NewRequest("GET", "/api/jobs?limit="+q, nil)); w.Code != 400 {
			t.Errorf("/api/jobs?limit=%s: %d; want 400", q, w.Code)
		}
	}

	w = e.serve(httptest.NewRequest("GET", "/", nil))
	page := w.Body.String()
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(w.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("/: %d %v", w.Code, w.Header())
	}
	for _, want := range []string{
		"Queue: 0 jobs waiting or running.",
		"<td>github:gopher/codec#7</td>",
		"<td>bench</td>", "<td>refuse</td>", "<td>alice</td>", "<td>bob</td>", "<td>completed</td>",
		`title="` + head1 + `">` + head1[:12] + "<",
		`<a href="https://github.example/gopher/codec/pull/7#issuecomment-1">reply</a>`,
		"BenchmarkWriteInts-2", // the benchcmp table
		"<svg ",
		"Evil&lt;/text&gt;&lt;script&gt;",
		`<td class="note" colspan="9">&lt;b&gt;values&lt;/b&gt; left out</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "javascript:") {
		t.Errorf("the page has a script in it")
	}
	if strings.Contains(page, "\u202e") {
		t.Errorf("the page has a direction override in it")
	}
	if benchID == 0 || strings.Count(page, "<svg ") != len(res.Tables) {
		t.Errorf("%d plots; want one per table, %d", strings.Count(page, "<svg "), len(res.Tables))
	}

	if w := e.serve(httptest.NewRequest("GET", "/nope", nil)); w.Code != 404 {
		t.Errorf("GET /nope: %d", w.Code)
	}
	if w := e.serve(httptest.NewRequest("POST", "/api/jobs", nil)); w.Code != 405 {
		t.Errorf("POST /api/jobs: %d", w.Code)
	}
}

// TestStatusEmpty: a queue without jobs, and no results at all (no
// worker yet).
func TestStatusEmpty(t *testing.T) {
	e := newEnv(t, false, nil)
	w := e.serve(httptest.NewRequest("GET", "/", nil))
	if w.Code != 200 || !strings.Contains(w.Body.String(), "No jobs yet.") {
		t.Errorf("/: %d\n%s", w.Code, w.Body)
	}
	e.deliver("se-1", comment{Body: "/patchbot bench"}, 202)
	w = e.serve(httptest.NewRequest("GET", "/", nil))
	if !strings.Contains(w.Body.String(), "Queue: 1 job waiting or running.") || !strings.Contains(w.Body.String(), "<td>available</td>") {
		t.Errorf("/ with one job:\n%s", w.Body)
	}
	if w := e.serve(httptest.NewRequest("GET", "/api/jobs", nil)); strings.Contains(w.Body.String(), "result_url") {
		t.Errorf("/api/jobs without results:\n%s", w.Body)
	}
}

// TestAPIQueue: /api/queue names this process and the leader: none while
// no queue on the database has started, this one once it has and has been
// elected.
func TestAPIQueue(t *testing.T) {
	get := func(e *env) APIQueue {
		t.Helper()
		w := e.serve(httptest.NewRequest("GET", "/api/queue", nil))
		var q APIQueue
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("/api/queue: %d %s %q", w.Code, w.Header().Get("Content-Type"), w.Body)
		}
		if err := json.Unmarshal(w.Body.Bytes(), &q); err != nil {
			t.Fatalf("/api/queue: %v: %s", err, w.Body)
		}
		return q
	}
	idle := newEnv(t, false, nil)
	if q := get(idle); q.Process != idle.q.ID() || q.Leader != nil || q.Depth != 0 {
		t.Errorf("a queue not started: %+v, want process %s, no leader", q, idle.q.ID())
	}
	e := newEnv(t, true, nil)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		q := get(e)
		if q.Process != e.q.ID() {
			t.Fatalf("process %q, want %q", q.Process, e.q.ID())
		}
		if q.Leader != nil {
			if q.Leader.ID != e.q.ID() || q.Leader.ExpiresAt.Before(q.Leader.ElectedAt) {
				t.Errorf("leader %+v, want this process, %s", q.Leader, e.q.ID())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hung: no leader two minutes after the queue started")
		}
	}
}
