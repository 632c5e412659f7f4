// Package reviewtest provides a fake GitHub for the tests of code that
// posts through package review. Gerrit needs no fake: tests use a real one
// (scripts/gerrit-test-server).
package reviewtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// A GitHub is the part of GitHub's REST API that patchbot uses: the
// comments of pull requests, listed two to a page so that paging is
// exercised. It serves the API under /api/v3/, as GitHub Enterprise does,
// so that a client that builds absolute URLs instead of resolving them
// against GITHUB_API_URL gets a 400 and shows up in Stray.
type GitHub struct {
	URL string // the API's URL, for GITHUB_API_URL: SERVER/api/v3

	srv      *httptest.Server
	api      http.Handler
	mu       sync.Mutex
	comments []Comment
	nextID   int64
	requests []string // "METHOD PATH"
	auth     []string // Authorization headers
	stray    []string // requests outside /api/v3/
	fault    func(w http.ResponseWriter, r *http.Request) bool
}

// A Comment is an issue comment as the fake stores it.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
}

// NewGitHub starts a fake GitHub. Close it when done.
func NewGitHub() *GitHub {
	g := &GitHub{nextID: 100}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/comments", g.list)
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/comments", g.create)
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", g.edit)
	api := http.NewServeMux()
	api.Handle("/api/v3/", http.StripPrefix("/api/v3", mux))
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.stray = append(g.stray, r.Method+" "+r.URL.String())
		g.mu.Unlock()
		http.Error(w, `{"message":"outside /api/v3"}`, http.StatusBadRequest)
	})
	g.api = api
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.requests = append(g.requests, r.Method+" "+r.URL.Path)
		g.auth = append(g.auth, r.Header.Get("Authorization"))
		fault := g.fault
		g.mu.Unlock()
		if fault != nil && fault(w, r) {
			return
		}
		api.ServeHTTP(w, r)
	}))
	g.URL = g.srv.URL + "/api/v3"
	return g
}

// Close stops the server.
func (g *GitHub) Close() { g.srv.Close() }

// SetFault makes f see every request first; when it returns true it has
// answered (or broken the connection) and the fake does nothing more.
func (g *GitHub) SetFault(f func(w http.ResponseWriter, r *http.Request) bool) {
	g.mu.Lock()
	g.fault = f
	g.mu.Unlock()
}

// Serve answers r as the fake would without a fault: a fault that wants the
// work done and the answer lost calls it with a recorder.
func (g *GitHub) Serve(w http.ResponseWriter, r *http.Request) { g.api.ServeHTTP(w, r) }

// Comments returns the stored comments, oldest first.
func (g *GitHub) Comments() []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Comment(nil), g.comments...)
}

// SetComments replaces the stored comments.
func (g *GitHub) SetComments(cs []Comment) {
	g.mu.Lock()
	g.comments = append([]Comment(nil), cs...)
	g.mu.Unlock()
}

// Requests returns the requests received, as "METHOD PATH".
func (g *GitHub) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.requests...)
}

// Count returns how many requests start with prefix, such as "POST ".
func (g *GitHub) Count(prefix string) int {
	n := 0
	for _, r := range g.Requests() {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// Auth returns the Authorization header of each request.
func (g *GitHub) Auth() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.auth...)
}

// Stray returns the requests made outside the API's path prefix.
func (g *GitHub) Stray() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.stray...)
}

func (g *GitHub) list(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	lo, hi := min((page-1)*2, len(g.comments)), min(page*2, len(g.comments))
	if hi < len(g.comments) {
		w.Header().Set("Link", fmt.Sprintf(`<%s/api/v3%s?page=%d>; rel="next"`, g.srv.URL, r.URL.Path, page+1))
	}
	json.NewEncoder(w).Encode(g.comments[lo:hi])
}

func (g *GitHub) create(w http.ResponseWriter, r *http.Request) {
	var in Comment
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, `{"message":"bad JSON"}`, http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	c := Comment{ID: g.nextID, Body: in.Body,
		HTMLURL: fmt.Sprintf("https://github.example/%s/%s/pull/%s#issuecomment-%d", r.PathValue("owner"), r.PathValue("repo"), r.PathValue("n"), g.nextID)}
	g.comments = append(g.comments, c)
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(c)
}

func (g *GitHub) edit(w http.ResponseWriter, r *http.Request) {
	var in Comment
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, `{"message":"bad JSON"}`, http.StatusBadRequest)
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range g.comments {
		if g.comments[i].ID == id {
			g.comments[i].Body = in.Body
			json.NewEncoder(w).Encode(g.comments[i])
			return
		}
	}
	http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
}
