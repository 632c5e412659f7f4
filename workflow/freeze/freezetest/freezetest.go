// Package freezetest provides fakes of the live sources of package freeze
// that are not Gerrit (tests use a real Gerrit): GitHub's milestones and
// issues, and a release list in go.dev/dl's JSON format.
package freezetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A GitHub is the part of GitHub's REST API that package freeze reads:
// a repository's milestones and its issues filtered by milestone, label
// and state. It serves the API under /api/v3/, as GitHub Enterprise does,
// so a client that ignores GITHUB_API_URL's path fails, and lists two items
// a page, so paging is exercised.
type GitHub struct {
	URL string // the API's URL, for GITHUB_API_URL: SERVER/api/v3

	srv        *httptest.Server
	mu         sync.Mutex
	milestones []Milestone
	issues     []Issue
	requests   []string
}

// A Milestone is a milestone as the fake stores it.
type Milestone struct {
	Number int       `json:"number"`
	Title  string    `json:"title"`
	State  string    `json:"state"`
	DueOn  time.Time `json:"-"`
}

// An Issue is an issue as the fake stores it.
type Issue struct {
	Number    int
	Milestone int
	Labels    []string
	State     string
}

// NewGitHub starts a fake GitHub. Close it when done.
func NewGitHub() *GitHub {
	g := new(GitHub)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/milestones", g.listMilestones)
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/issues", g.listIssues)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.requests = append(g.requests, r.Method+" "+r.URL.Path)
		g.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	g.URL = g.srv.URL + "/api/v3"
	return g
}

// Close stops the server.
func (g *GitHub) Close() { g.srv.Close() }

// Requests returns the requests served so far, as "METHOD PATH".
func (g *GitHub) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

// AddMilestone adds a milestone, open or closed, due on due (zero: no due
// date), and returns its number.
func (g *GitHub) AddMilestone(title, state string, due time.Time) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(g.milestones) + 1
	g.milestones = append(g.milestones, Milestone{Number: n, Title: title, State: state, DueOn: due})
	return n
}

// AddIssue adds an issue in the milestone, with the labels, and returns
// its number.
func (g *GitHub) AddIssue(milestone int, state string, labels ...string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 70000 + len(g.issues) + 1
	g.issues = append(g.issues, Issue{Number: n, Milestone: milestone, Labels: labels, State: state})
	return n
}

const perPage = 2

// page writes the items of page ?page= (1-based) of all, with a Link
// header to the next page when there is one, as GitHub does.
func page[T any](w http.ResponseWriter, r *http.Request, all []T) {
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	p = max(p, 1)
	lo := min((p-1)*perPage, len(all))
	hi := min(lo+perPage, len(all))
	if hi < len(all) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p+1))
		u := *r.URL
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, u.RequestURI()))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(all[lo:hi])
}

func (g *GitHub) listMilestones(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	g.mu.Lock()
	var out []map[string]any
	for _, m := range g.milestones {
		if state != "all" && m.State != state {
			continue
		}
		v := map[string]any{"number": m.Number, "title": m.Title, "state": m.State}
		if !m.DueOn.IsZero() {
			v["due_on"] = m.DueOn.UTC().Format(time.RFC3339)
		}
		out = append(out, v)
	}
	g.mu.Unlock()
	if out == nil {
		out = []map[string]any{}
	}
	page(w, r, out)
}

func (g *GitHub) listIssues(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var labels []string
	if l := q.Get("labels"); l != "" {
		labels = strings.Split(l, ",")
	}
	g.mu.Lock()
	var out []map[string]any
	for _, is := range g.issues {
		if state != "all" && is.State != state {
			continue
		}
		if m := q.Get("milestone"); m != "" && m != "*" && m != strconv.Itoa(is.Milestone) {
			continue
		}
		if slices.ContainsFunc(labels, func(l string) bool { return !slices.Contains(is.Labels, l) }) {
			continue
		}
		var ls []map[string]string
		for _, l := range is.Labels {
			ls = append(ls, map[string]string{"name": l})
		}
		out = append(out, map[string]any{"number": is.Number, "state": is.State, "labels": ls})
	}
	g.mu.Unlock()
	if out == nil {
		out = []map[string]any{}
	}
	page(w, r, out)
}

// A Downloads serves a release list in go.dev/dl's JSON format from a file,
// which a test may swap while it runs.
type Downloads struct {
	URL string // the list's URL, as go.dev/dl/?mode=json

	srv  *httptest.Server
	mu   sync.Mutex
	file string
	hang chan struct{}
}

// NewDownloads starts a server of the release list in file. Close it when
// done.
func NewDownloads(file string) *Downloads {
	d := &Downloads{file: file, hang: make(chan struct{})}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	d.URL = d.srv.URL + "/dl/?mode=json"
	return d
}

// Serve makes the server answer with file from now on; "" makes it hang
// until the client gives up, to test time limits.
func (d *Downloads) Serve(file string) {
	d.mu.Lock()
	d.file = file
	d.mu.Unlock()
}

// Close stops the server.
func (d *Downloads) Close() {
	close(d.hang)
	d.srv.Close()
}

func (d *Downloads) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/dl/" || r.URL.Query().Get("mode") != "json" {
		http.NotFound(w, r)
		return
	}
	d.mu.Lock()
	file := d.file
	d.mu.Unlock()
	if file == "" {
		select {
		case <-r.Context().Done():
		case <-d.hang:
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}
