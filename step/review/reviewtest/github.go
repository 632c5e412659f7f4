// Package reviewtest provides the one fake GitHub of patchbot's tests: the
// part of GitHub's REST API that package review calls, for the tests of
// review itself and of the code that reads and posts through it (freeze's
// live signals, the commands). Gerrit needs no fake: tests use a real one
// (scripts/gerrit-test-server).
package reviewtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A GitHub is a fake of GitHub's REST API holding one repository's data:
// comments (each on the pull request it was created on, or, when set with
// SetComments, on every one), milestones, issues and pull requests with
// their labels, pull requests' heads, state and branches, and users'
// roles. It serves the API under /api/v3/, as GitHub Enterprise does, so
// that a client that builds absolute URLs instead of resolving them
// against GITHUB_API_URL gets a 400 and shows up in Stray. Lists hold two
// items a page, so that paging is exercised. It records every request, so
// a test can say "only GETs", and SetFault lets a test break any of them.
//
// It says no where GitHub does, so that a test cannot pass on what GitHub
// would refuse: it serves only the repository it was made for (any other
// is not found); a token is a user (Token is Bot's; AddToken adds others)
// and an unknown one is refused on every route; without a token it answers
// reads of a public repository only, and no write; a comment has an
// author, the token's user when created, and only its author or a user
// who may write to the repository may edit it; a comment goes only on an
// issue or pull request the fake knows.
//
// An endpoint is one line in the table in NewGitHub and one handler.
type GitHub struct {
	URL string // the API's URL, for GITHUB_API_URL: SERVER/api/v3

	repo       string // owner/name, as NewGitHub was given it
	cloneURL   string // the repository's git URL; "": one on the fake's server, which serves no git
	srv        *httptest.Server
	api        http.Handler
	mu         sync.Mutex
	private    bool
	tokens     map[string]string // token: login
	comments   []Comment
	milestones []Milestone
	issues     []*issue
	lastIssue  int               // the number AddIssue or AddPullRequest gave last
	perms      map[string]string // lower-case login: role
	nextID     int64
	requests   []string // "METHOD PATH"
	auth       []string // Authorization headers
	stray      []string // requests outside /api/v3/
	fault      func(w http.ResponseWriter, r *http.Request) bool
}

// The fake's own identity: the token a test gives patchbot, and the login
// of the user it is. Bot has no permission on the repository unless a
// test gives it one (SetPermission), as a bot account added to no team.
const (
	Token = "ghp_reviewtestFAKEtoken0123456789abc"
	Bot   = "patchbot-bot"
)

// A Comment is an issue comment as the fake stores it.
type Comment struct {
	ID      int64
	Body    string
	HTMLURL string
	User    string // the author's login; a Bot when it ends in [bot]
	// Issue is the number of the issue or pull request the comment was
	// created on; 0 (SetComments' comments, unless set) lists it on
	// every one.
	Issue int
}

// A Milestone is a milestone as the fake stores it.
type Milestone struct {
	Number int
	Title  string
	State  string    // "open" or "closed"
	DueOn  time.Time // zero: no due date
}

// A PullRequest is what GET .../pulls/{n} says of a pull request besides
// what it shares with issues (milestone, labels).
type PullRequest struct {
	Head    string // the head commit
	HeadRef string // the branch it is from; "": feature
	Base    string // the branch it is to be merged into; "": master
	State   string // "open" or "closed"; "": open
	Merged  bool   // merged, and so closed
	// MergeCommit is the commit the merge made on Base (a merge, a
	// squash or the rebased head); with Head, the commits that
	// GET .../commits/{sha}/pulls finds the pull request by.
	MergeCommit string
}

// An issue is an issue, or a pull request, as the fake stores it: GitHub
// lists pull requests among the issues, and numbers both in one sequence.
type issue struct {
	number    int
	milestone int // the milestone's number; 0: none
	labels    []string
	state     string       // "open" or "closed"
	pull      *PullRequest // nil: an issue; its State is always state
	mergedAt  time.Time
}

// perPage is the fake's page size, whatever per_page asks.
const perPage = 2

// A handler answers a request for the fake's repository, made by login
// ("" without a token).
type handler func(w http.ResponseWriter, r *http.Request, login string)

// NewGitHub starts a fake GitHub serving the one repository repo
// ("owner/name"), public, with Token signing in as Bot. Close it when done.
func NewGitHub(repo string) *GitHub {
	if owner, name, ok := strings.Cut(repo, "/"); !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		panic(fmt.Sprintf("reviewtest.NewGitHub(%q): want owner/name", repo))
	}
	g := &GitHub{repo: repo, nextID: 100, tokens: map[string]string{Token: Bot}, perms: map[string]string{}}
	mux := http.NewServeMux()
	for _, e := range []struct {
		pattern string
		handler handler
	}{
		{"GET /repos/{owner}/{repo}/issues/{n}/comments", g.listComments},
		{"POST /repos/{owner}/{repo}/issues/{n}/comments", g.createComment},
		{"PATCH /repos/{owner}/{repo}/issues/comments/{id}", g.editComment},
		{"GET /repos/{owner}/{repo}/milestones", g.listMilestones},
		{"GET /repos/{owner}/{repo}/issues", g.listIssues},
		{"GET /repos/{owner}/{repo}/collaborators/{login}/permission", g.permission},
		{"GET /repos/{owner}/{repo}/pulls/{n}", g.pullRequest},
		{"GET /repos/{owner}/{repo}/commits/{sha}/pulls", g.commitPulls},
		{"GET /repos/{owner}/{repo}/issues/{n}/labels", g.listLabels},
		{"POST /repos/{owner}/{repo}/issues/{n}/labels", g.addLabels},
		{"DELETE /repos/{owner}/{repo}/issues/{n}/labels/{name}", g.removeLabel},
	} {
		mux.HandleFunc(e.pattern, g.inRepo(e.handler))
	}
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		g.self(w, r, loginOf(r))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "Not Found")
	})
	api := http.NewServeMux()
	api.Handle("/api/v3/", http.StripPrefix("/api/v3", g.signIn(mux)))
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.stray = append(g.stray, r.Method+" "+r.URL.String())
		g.mu.Unlock()
		fail(w, http.StatusBadRequest, "outside /api/v3")
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

// fail writes GitHub's answer for an error: a JSON object with a message.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// loginKey is the context key under which signIn leaves the request's
// login ("" without a token) for inRepo.
type loginKey struct{}

// signIn finds the user a request's token is, as GitHub does before it
// looks at the path: an unknown token is refused on every route, and a
// request without one may only read.
func (g *GitHub) signIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		login := ""
		if a := r.Header.Get("Authorization"); a != "" {
			scheme, token, _ := strings.Cut(a, " ")
			g.mu.Lock()
			user, ok := g.tokens[token]
			g.mu.Unlock()
			if !ok || !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "token") {
				fail(w, http.StatusUnauthorized, "Bad credentials")
				return
			}
			login = user
		} else if r.Method != http.MethodGet && r.Method != http.MethodHead {
			fail(w, http.StatusUnauthorized, "Requires authentication")
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), loginKey{}, login)))
	})
}

// inRepo makes h answer only for the fake's repository, named in any
// case as GitHub allows, and only to a user who can see it: everyone when
// it is public; when private, a user with a permission on it. GitHub
// answers 404, not 403, for a repository the user may not see.
func (g *GitHub) inRepo(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		login, _ := r.Context().Value(loginKey{}).(string)
		g.mu.Lock()
		visible := !g.private || login != "" && g.role(login) != "none"
		g.mu.Unlock()
		if !strings.EqualFold(r.PathValue("owner")+"/"+r.PathValue("repo"), g.repo) || !visible {
			fail(w, http.StatusNotFound, "Not Found")
			return
		}
		h(w, r, login)
	}
}

// Close stops the server.
func (g *GitHub) Close() { g.srv.Close() }

// Repo returns the repository the fake serves, owner/name.
func (g *GitHub) Repo() string { return g.repo }

// SetFault makes f see every request first; when it returns true it has
// answered (or broken the connection) and the fake does nothing more.
func (g *GitHub) SetFault(f func(w http.ResponseWriter, r *http.Request) bool) {
	g.mu.Lock()
	g.fault = f
	g.mu.Unlock()
}

// RateLimited answers as GitHub does a request over the primary rate
// limit, which resets at reset: 403, with the X-RateLimit headers saying
// none is left, and GitHub's message. For a fault.
func RateLimited(w http.ResponseWriter, reset time.Time) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Used", "5000")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, `{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api","status":"403"}`)
}

// Serve answers r as the fake would without a fault: a fault that wants the
// work done and the answer lost calls it with a recorder.
func (g *GitHub) Serve(w http.ResponseWriter, r *http.Request) { g.api.ServeHTTP(w, r) }

// AddToken makes token sign in as login, for a test that acts as another
// user than Bot (a pull request's author, say), or as an App's
// installation token when login is SLUG[bot].
func (g *GitHub) AddToken(token, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens[token] = login
}

// SetPrivate makes the repository private, or public again: a private
// repository is not found by a request without a token, nor by a user
// without a permission on it.
func (g *GitHub) SetPrivate(private bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.private = private
}

// Comments returns the stored comments, oldest first.
func (g *GitHub) Comments() []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.comments)
}

// SetComments replaces the stored comments. Each must say who wrote it
// (User): whether patchbot may edit a comment depends on it.
func (g *GitHub) SetComments(cs []Comment) {
	for _, c := range cs {
		if c.User == "" {
			panic(fmt.Sprintf("reviewtest: SetComments: comment %d has no User", c.ID))
		}
	}
	g.mu.Lock()
	g.comments = slices.Clone(cs)
	g.mu.Unlock()
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

// AddIssue adds an issue in the milestone (0: none), with the labels, and
// returns its number.
func (g *GitHub) AddIssue(milestone int, state string, labels ...string) int {
	return g.addIssue(&issue{milestone: milestone, state: state, labels: labels})
}

// AddPullRequest adds a pull request, which GitHub lists among the issues,
// in the milestone, with the labels, and returns its number. It is into
// master, at a head of its own.
func (g *GitHub) AddPullRequest(milestone int, state string, labels ...string) int {
	return g.addIssue(&issue{milestone: milestone, state: state, labels: labels, pull: &PullRequest{State: state}})
}

// addIssue numbers is from 70001 on, past the numbers tests chose with
// SetHead and SetPullRequest, and stores it.
func (g *GitHub) addIssue(is *issue) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lastIssue = max(g.lastIssue+1, 70001)
	for g.issue(g.lastIssue) != nil {
		g.lastIssue++
	}
	is.number = g.lastIssue
	if is.pull != nil {
		is.pull.Head = fmt.Sprintf("%040x", is.number)
	}
	g.issues = append(g.issues, is)
	return is.number
}

// roles maps each role SetPermission takes to the permission GitHub's
// permission field says for it: its legacy base roles admin, write, read
// and none.
var roles = map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}

// SetPermission gives login a role on the repository: admin, maintain,
// write, triage, read or none. A login without one has none. GitHub's
// permission field says maintain as write, and triage as read.
func (g *GitHub) SetPermission(login, role string) {
	if _, ok := roles[role]; !ok {
		panic(fmt.Sprintf("reviewtest: SetPermission(%q, %q): not a role", login, role))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.perms[strings.ToLower(login)] = role
}

// role returns login's role on the repository; g.mu is held.
func (g *GitHub) role(login string) string {
	if r, ok := g.perms[strings.ToLower(login)]; ok {
		return r
	}
	return "none"
}

// SetPullRequest makes n a pull request as pr says, keeping its milestone
// and labels if it was one already (n must not be an issue).
func (g *GitHub) SetPullRequest(n int, pr PullRequest) {
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.Merged && pr.State != "closed" {
		panic(fmt.Sprintf("reviewtest: SetPullRequest(%d): merged but %s", n, pr.State))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	is := g.issue(n)
	if is == nil {
		is = &issue{number: n}
		g.issues = append(g.issues, is)
	} else if is.pull == nil {
		panic(fmt.Sprintf("reviewtest: SetPullRequest(%d): an issue, not a pull request", n))
	}
	is.pull, is.state = &pr, pr.State
	if pr.Merged {
		is.mergedAt = time.Now()
	}
}

// SetHead moves the head of pull request n to the commit sha, as a push
// does. A pull request the fake does not know yet becomes one, open, into
// master.
func (g *GitHub) SetHead(n int, sha string) {
	g.mu.Lock()
	is := g.issue(n)
	if is != nil && is.pull != nil {
		is.pull.Head = sha
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	g.SetPullRequest(n, PullRequest{Head: sha})
}

// ClosePullRequest closes pull request n without merging it.
func (g *GitHub) ClosePullRequest(n int) { g.closePull(n, false) }

// MergePullRequest merges pull request n, which closes it.
func (g *GitHub) MergePullRequest(n int) { g.closePull(n, true) }

func (g *GitHub) closePull(n int, merge bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	is := g.issue(n)
	if is == nil || is.pull == nil {
		panic(fmt.Sprintf("reviewtest: no pull request %d", n))
	}
	is.state, is.pull.State = "closed", "closed"
	if merge {
		is.pull.Merged, is.mergedAt = true, time.Now()
	}
}

// Requests returns the requests received, as "METHOD PATH".
func (g *GitHub) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
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
	return slices.Clone(g.auth)
}

// Stray returns the requests made outside the API's path prefix.
func (g *GitHub) Stray() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.stray)
}

// page writes page ?page= (1-based) of all, with a Link header to the next
// page when there is one, as GitHub does.
func page[T any](w http.ResponseWriter, r *http.Request, all []T) {
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	p = max(p, 1)
	lo := min((p-1)*perPage, len(all))
	hi := min(lo+perPage, len(all))
	if hi < len(all) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p+1))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/v3%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
	}
	w.Header().Set("Content-Type", "application/json")
	items := all[lo:hi]
	if items == nil {
		items = []T{} // [], not null
	}
	json.NewEncoder(w).Encode(items)
}

// state returns the ?state= filter: GitHub's default is open.
func state(r *http.Request) string {
	if s := r.URL.Query().Get("state"); s != "" {
		return s
	}
	return "open"
}

// user is a user as GitHub shows one in a comment or a permission.
func user(login string) map[string]string {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]string{"login": login, "type": typ}
}

// loginOf returns the login signIn found for r's token; "" without one.
func loginOf(r *http.Request) string {
	login, _ := r.Context().Value(loginKey{}).(string)
	return login
}

// self answers GET /user as GitHub does: the token's user; 401 without a
// token; 403 to an App's installation token (a login SLUG[bot], AddToken),
// which has no user.
func (g *GitHub) self(w http.ResponseWriter, _ *http.Request, login string) {
	switch {
	case login == "":
		fail(w, http.StatusUnauthorized, "Requires authentication")
	case strings.HasSuffix(login, "[bot]"):
		fail(w, http.StatusForbidden, "Resource not accessible by integration")
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(user(login))
	}
}

// commentJSON is c as GitHub serves it.
func commentJSON(c Comment) map[string]any {
	return map[string]any{"id": c.ID, "body": c.Body, "html_url": c.HTMLURL, "user": user(c.User)}
}

// listComments lists the comments of issue n, known or not: the fake
// does not check that n is an issue here.
func (g *GitHub) listComments(w http.ResponseWriter, r *http.Request, _ string) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	g.mu.Lock()
	var cs []map[string]any
	for _, c := range g.comments {
		if c.Issue == 0 || c.Issue == n {
			cs = append(cs, commentJSON(c))
		}
	}
	g.mu.Unlock()
	page(w, r, cs)
}

// createComment stores a comment by login on a known issue or pull
// request.
func (g *GitHub) createComment(w http.ResponseWriter, r *http.Request, login string) {
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	g.mu.Lock()
	defer g.mu.Unlock()
	is := g.issue(n)
	if is == nil {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	kind := "issues"
	if is.pull != nil {
		kind = "pull"
	}
	g.nextID++
	c := Comment{ID: g.nextID, Body: in.Body, Issue: n, User: login,
		HTMLURL: fmt.Sprintf("https://github.example/%s/%s/%d#issuecomment-%d", g.repo, kind, n, g.nextID)}
	g.comments = append(g.comments, c)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(commentJSON(c))
}

// mayEditOthers lists the roles that may edit another user's comment.
var mayEditOthers = []string{"admin", "maintain", "write"}

// editComment changes a comment's body, for its author or a user who may
// write to the repository.
func (g *GitHub) editComment(w http.ResponseWriter, r *http.Request, login string) {
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.IndexFunc(g.comments, func(c Comment) bool { return c.ID == id })
	if i < 0 {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	c := &g.comments[i]
	if !strings.EqualFold(c.User, login) && !slices.Contains(mayEditOthers, g.role(login)) {
		fail(w, http.StatusForbidden, "Must have admin rights to Repository.")
		return
	}
	c.Body = in.Body
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(commentJSON(*c))
}

func (g *GitHub) listMilestones(w http.ResponseWriter, r *http.Request, _ string) {
	want := state(r)
	g.mu.Lock()
	var out []map[string]any
	for _, m := range g.milestones {
		if want != "all" && m.State != want {
			continue
		}
		v := map[string]any{"number": m.Number, "title": m.Title, "state": m.State}
		if !m.DueOn.IsZero() {
			v["due_on"] = m.DueOn.UTC().Format(time.RFC3339)
		}
		out = append(out, v)
	}
	g.mu.Unlock()
	page(w, r, out)
}

func (g *GitHub) listIssues(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	want := state(r)
	var labels []string
	if l := q.Get("labels"); l != "" {
		labels = strings.Split(l, ",")
	}
	g.mu.Lock()
	var out []map[string]any
	for _, is := range g.issues {
		if want != "all" && is.state != want {
			continue
		}
		if m := q.Get("milestone"); m != "" && m != "*" && m != strconv.Itoa(is.milestone) {
			continue
		}
		if slices.ContainsFunc(labels, func(l string) bool { return !slices.Contains(is.labels, l) }) {
			continue
		}
		ls := []map[string]string{}
		for _, l := range is.labels {
			ls = append(ls, map[string]string{"name": l})
		}
		v := map[string]any{"number": is.number, "state": is.state, "labels": ls}
		if is.pull != nil {
			v["pull_request"] = map[string]string{"url": fmt.Sprintf("http://%s/api/v3/repos/%s/pulls/%d", r.Host, g.repo, is.number)}
		}
		out = append(out, v)
	}
	g.mu.Unlock()
	page(w, r, out)
}

func (g *GitHub) permission(w http.ResponseWriter, r *http.Request, _ string) {
	login := r.PathValue("login")
	g.mu.Lock()
	role := g.role(login)
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"permission": roles[role], "role_name": role, "user": user(login)})
}

// SetCloneURL makes url the repository's git URL, the base.repo.clone_url
// of its pull requests, from which patchbot fetches them: a test gives a
// bare repository's directory. By default it is a URL on the fake's own
// server, which serves no git.
func (g *GitHub) SetCloneURL(url string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cloneURL = url
}

// commitPulls lists the pull requests whose head or merge commit is the
// path's sha, as GitHub lists a commit's associated pull requests: number,
// state and merged_at, in number order, paged.
func (g *GitHub) commitPulls(w http.ResponseWriter, r *http.Request, _ string) {
	sha := r.PathValue("sha")
	var list []map[string]any
	g.mu.Lock()
	for _, is := range g.issues {
		if pr := is.pull; pr != nil && sha != "" && (pr.Head == sha || pr.MergeCommit == sha) {
			v := map[string]any{"number": is.number, "state": pr.State, "merged_at": nil,
				"html_url": strings.TrimSuffix(g.URL, "/api/v3") + "/" + g.repo + "/pull/" + strconv.Itoa(is.number)}
			if pr.Merged {
				v["merged_at"] = is.mergedAt.UTC().Format(time.RFC3339)
			}
			list = append(list, v)
		}
	}
	g.mu.Unlock()
	slices.SortFunc(list, func(a, b map[string]any) int { return a["number"].(int) - b["number"].(int) })
	page(w, r, list)
}

// pullRequest answers a pull request as GitHub does: an issue's number is
// not found.
func (g *GitHub) pullRequest(w http.ResponseWriter, r *http.Request, _ string) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	g.mu.Lock()
	is := g.issue(n)
	var pr PullRequest
	var merged time.Time
	if is != nil && is.pull != nil {
		pr, merged = *is.pull, is.mergedAt
	}
	g.mu.Unlock()
	if is == nil || is.pull == nil {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	if pr.HeadRef == "" {
		pr.HeadRef = "feature"
	}
	if pr.Base == "" {
		pr.Base = "master"
	}
	owner, _, _ := strings.Cut(g.repo, "/")
	g.mu.Lock()
	clone := g.cloneURL
	g.mu.Unlock()
	if clone == "" {
		clone = strings.TrimSuffix(g.URL, "/api/v3") + "/" + g.repo + ".git"
	}
	v := map[string]any{"number": n, "state": pr.State, "merged": pr.Merged, "merged_at": nil,
		"head": map[string]any{"sha": pr.Head, "ref": pr.HeadRef, "label": owner + ":" + pr.HeadRef},
		"base": map[string]any{"ref": pr.Base, "label": owner + ":" + pr.Base,
			"repo": map[string]any{"full_name": g.repo, "clone_url": clone}}}
	if pr.Merged {
		v["merged_at"] = merged.UTC().Format(time.RFC3339)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// IssueLabels returns the labels of issue or pull request n, sorted; nil
// when there is no such issue.
func (g *GitHub) IssueLabels(n int) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is := g.issue(n); is != nil {
		return slices.Sorted(slices.Values(is.labels))
	}
	return nil
}

// issue returns the stored issue or pull request n, or nil; g.mu is held.
func (g *GitHub) issue(n int) *issue {
	for _, is := range g.issues {
		if is.number == n {
			return is
		}
	}
	return nil
}

// writeLabels writes an issue's labels as GitHub does: objects with a name.
func writeLabels(w http.ResponseWriter, labels []string) {
	ls := []map[string]string{}
	for _, l := range labels {
		ls = append(ls, map[string]string{"name": l})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ls)
}

func (g *GitHub) listLabels(w http.ResponseWriter, r *http.Request, _ string) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	g.mu.Lock()
	is := g.issue(n)
	var ls []string
	if is != nil {
		ls = slices.Clone(is.labels)
	}
	g.mu.Unlock()
	if is == nil {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	ms := []map[string]string{}
	for _, l := range ls {
		ms = append(ms, map[string]string{"name": l})
	}
	page(w, r, ms)
}

// addLabels takes a JSON array of names, as go-github sends it, or
// {"labels": [...]}, as GitHub's documentation shows it.
func (g *GitHub) addLabels(w http.ResponseWriter, r *http.Request, _ string) {
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		var obj struct{ Labels []string }
		if err := json.Unmarshal(raw, &obj); err != nil {
			fail(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		names = obj.Labels
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	g.mu.Lock()
	defer g.mu.Unlock()
	is := g.issue(n)
	if is == nil {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	for _, l := range names {
		if !slices.Contains(is.labels, l) {
			is.labels = append(is.labels, l)
		}
	}
	writeLabels(w, is.labels)
}

func (g *GitHub) removeLabel(w http.ResponseWriter, r *http.Request, _ string) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	name := r.PathValue("name")
	g.mu.Lock()
	defer g.mu.Unlock()
	is := g.issue(n)
	if is == nil || !slices.Contains(is.labels, name) {
		fail(w, http.StatusNotFound, "Label does not exist")
		return
	}
	is.labels = slices.DeleteFunc(is.labels, func(l string) bool { return l == name })
	writeLabels(w, is.labels)
}
