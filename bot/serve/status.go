package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/step/benchrun"
)

// Limits of the status endpoints.
const (
	// DefaultAPIJobs and MaxAPIJobs are how many jobs /api/jobs lists
	// without and with ?limit=.
	DefaultAPIJobs = 100
	MaxAPIJobs     = 1000
	// PageJobs is how many recent jobs the status page lists; the queue's
	// depth is counted up to MaxAPIJobs.
	PageJobs = 50
	// statusTimeout bounds a status request's reads of the queue.
	statusTimeout = 5 * time.Second
)

// unfinished are the states of a job that is waiting or running.
var unfinished = map[string]bool{"pending": true, "scheduled": true, "available": true, "running": true, "retryable": true}

// healthz serves GET /healthz: 200 when the queue answers.
func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := h.cfg.Queue.Check(ctx); err != nil {
		// The reason is the operator's to read: it names the queue's
		// file or database, never its password (db.Database.String).
		h.log.LogAttrs(ctx, slog.LevelError, "healthz", slog.String("error", err.Error()))
		http.Error(w, "queue: cannot take a job: "+clipValid(err.Error(), 300), http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ok\n"))
}

// An APIJob is a job as /api/jobs lists it: the queue's JobInfo (id,
// review, revision, command, who asked, state, attempts and their errors,
// times) and, once known, the link to its reply.
type APIJob struct {
	queue.JobInfo
	ResultURL string `json:"result_url,omitempty"`
}

// apiJobs serves GET /api/jobs?limit=N: the newest jobs first.
func (h *Handler) apiJobs(w http.ResponseWriter, r *http.Request) {
	limit := DefaultAPIJobs
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxAPIJobs {
			http.Error(w, "limit: want a number from 1 to "+strconv.Itoa(MaxAPIJobs), http.StatusBadRequest)
			return
		}
		limit = n
	}
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	jobs, err := h.cfg.Queue.Jobs(ctx, limit)
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "api/jobs", slog.String("error", err.Error()))
		http.Error(w, "queue: not answering", http.StatusServiceUnavailable)
		return
	}
	out := make([]APIJob, 0, len(jobs))
	for _, j := range jobs {
		a := APIJob{JobInfo: j}
		if res := h.result(ctx, j); res != nil {
			a.ResultURL = res.URL
		}
		out = append(out, a)
	}
	writeJSON(w, out)
}

// writeJSON writes v as the answer, indented.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// result returns what a finished job left, or nil.
func (h *Handler) result(ctx context.Context, j queue.JobInfo) *work.Output {
	if unfinished[j.State] {
		return nil
	}
	res, err := h.cfg.Results(ctx, j)
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelWarn, "result", slog.Int64("job", j.ID), slog.String("error", err.Error()))
		return nil
	}
	if res != nil && !webURL(res.URL) {
		// The review server's answer: a link of another scheme
		// (javascript:, data:) is not one to give out.
		c := *res
		c.URL = ""
		res = &c
	}
	return res
}

// webURL reports whether s is an absolute http or https URL with a host.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// An APIQueue is what GET /api/queue says of the queue: which process
// this is and which leads, among those on the queue's database, so that a
// monitor can tell that one leads (polls Gerrit, rescues the jobs of dead
// processes) and which.
type APIQueue struct {
	Process string        `json:"process"` // this process's name on the queue (queue.Queue.ID)
	Leader  *queue.Leader `json:"leader"`  // null while none leads: none is up, or the last died and its lease is running out
	Depth   int           `json:"depth"`   // jobs waiting or running, counted up to MaxAPIJobs
}

// apiQueue serves GET /api/queue.
func (h *Handler) apiQueue(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	q := APIQueue{Process: h.cfg.Queue.ID()}
	l, ok, err := h.cfg.Queue.Leader(ctx)
	if ok {
		q.Leader = &l
	}
	if err == nil {
		q.Depth, err = h.cfg.Queue.Depth(ctx, MaxAPIJobs)
	}
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "api/queue", slog.String("error", err.Error()))
		http.Error(w, "queue: not answering", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, &q)
}

// The status page's data.
type statusPage struct {
	Depth   int  // jobs waiting or running
	More    bool // there may be more than Depth: the listing was full
	Jobs    []pageJob
	Benches []pageBench
	// Tracks are the tracked branches' plots; TracksError says why
	// they could not be read.
	Tracks      []pageTrack
	TracksError string
}

type pageJob struct {
	queue.JobInfo
	ResultURL string
	LastError string
	Note      string // what its result leaves out
}

type pageBench struct {
	ID       int64
	Review   string
	Revision string
	URL      string          // the reply
	Table    string          // benchcmp format
	Plots    []template.HTML // one per table of the result
}

// status serves GET /: the queue's depth, the recent jobs, and each
// finished bench job's table and plot.
func (h *Handler) status(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), statusTimeout)
	defer cancel()
	// The depth apart: the finished jobs' results are read for the
	// page's jobs only.
	depth, err := h.cfg.Queue.Depth(ctx, MaxAPIJobs)
	var jobs []queue.JobInfo
	if err == nil {
		jobs, err = h.cfg.Queue.Jobs(ctx, PageJobs)
	}
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "status", slog.String("error", err.Error()))
		http.Error(w, "queue: not answering", http.StatusServiceUnavailable)
		return
	}
	p := statusPage{Depth: depth, More: depth == MaxAPIJobs}
	for _, j := range jobs {
		pj := pageJob{JobInfo: j}
		if n := len(j.Errors); n > 0 {
			pj.LastError = clipValid(j.Errors[n-1].Error, 300)
		}
		if res := h.result(ctx, j); res != nil {
			pj.ResultURL, pj.Note = res.URL, clipValid(res.Note, 300)
			if res.Bench != nil {
				p.Benches = append(p.Benches, benchOf(j, res))
			}
		}
		p.Jobs = append(p.Jobs, pj)
	}
	hs, err := h.histories(ctx, "", pageWindow)
	if err != nil {
		// The jobs are shown still; the series say why they are not.
		h.log.LogAttrs(ctx, slog.LevelError, "series", slog.String("error", err.Error()))
		p.TracksError = "the tracked branches could not be read: " + clipValid(err.Error(), 300)
	}
	p.Tracks = pageTracks(hs)
	var buf bytes.Buffer
	if err := statusTemplate.Execute(&buf, &p); err != nil {
		h.log.LogAttrs(ctx, slog.LevelError, "status", slog.String("error", err.Error()))
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// No script runs on the page, whatever a benchmark's name says.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Write(buf.Bytes())
}

func benchOf(j queue.JobInfo, res *work.Output) pageBench {
	r := res.Bench
	// The benchmarks' names are the change's: no direction controls.
	b := pageBench{ID: j.ID, Review: j.Review, Revision: j.Revision, URL: res.URL, Table: escape.NoBidi(r.String(benchrun.Benchcmp))}
	for _, t := range r.Tables {
		if svg := plotTable(t); svg != "" {
			b.Plots = append(b.Plots, svg)
		}
	}
	return b
}

var statusTemplate = template.Must(template.New("status").Funcs(template.FuncMap{
	"short":     abbrev.Hash,
	"apiSeries": func() int { return MaxAPISeries },
	"time": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>patchbot</title>
<style>
body { font-family: sans-serif; margin: 1em 2em; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #ddd; font-size: 90%; }
td.err { color: #a00; max-width: 30em; }
td.note { color: #555; max-width: 30em; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }
</style>
</head>
<body>
<h1>patchbot</h1>
<p>Queue: {{.Depth}}{{if .More}} or more{{end}} job{{if ne .Depth 1}}s{{end}} waiting or running.</p>
<h2>Recent jobs</h2>
{{if .Jobs}}<table>
<tr><th>id</th><th>review</th><th>revision</th><th>command</th><th>who</th><th>state</th><th>attempts</th><th>created</th><th>finished</th><th>result</th></tr>
{{range .Jobs}}<tr><td>{{.ID}}</td><td>{{.Review}}</td><td title="{{.Revision}}">{{short .Revision}}</td><td>{{.Command}}</td><td>{{.Who}}</td><td>{{.State}}</td><td>{{.Attempt}}/{{.MaxAttempts}}</td><td>{{time .CreatedAt}}</td><td>{{time .FinalizedAt}}</td><td>{{if .ResultURL}}<a href="{{.ResultURL}}">reply</a>{{end}}</td></tr>
{{if .LastError}}<tr><td></td><td class="err" colspan="9">{{.LastError}}</td></tr>
{{end}}{{if .Note}}<tr><td></td><td class="note" colspan="9">{{.Note}}</td></tr>
{{end}}{{end}}</table>{{else}}<p>No jobs yet.</p>{{end}}
{{range .Benches}}<h2>Job {{.ID}}: {{.Review}} at {{short .Revision}}{{if .URL}} (<a href="{{.URL}}">reply</a>){{end}}</h2>
<pre>{{.Table}}</pre>
{{range .Plots}}<div>{{.}}</div>
{{end}}{{end}}{{if or .Tracks .TracksError}}<h2>Tracked branches</h2>
{{if .TracksError}}<p class="err">{{.TracksError}}</p>
{{end}}{{range .Tracks}}<h3>{{.Name}}: {{.Recorded}} commits recorded{{if lt .Shown .Recorded}}, the latest {{.Shown}} shown{{end}}</h3>
{{range .Plots}}<div>{{.}}</div>
{{end}}{{if .More}}<p>and more series than these {{len .Plots}}: <a href="api/series?track={{.Name}}&amp;unit=sec%2Fop">/api/series</a> gives the first {{apiSeries}}, <code>patchbot track -show -json</code> every one.</p>
{{end}}{{end}}{{end}}</body>
</html>
`))
