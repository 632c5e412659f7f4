package review

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/step/review/reviewtest"
)

// TestGitHubSelf: patchbot's own account is the one configured, else the
// token's user (asked once), else, in a GitHub Actions run, the run's own
// bot; an App's token elsewhere, or no token, is an error that says to name
// the account.
func TestGitHubSelf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		token    string // "": none
		login    string // Options.GitHubLogin
		actions  bool
		want     string
		wantErr  string
		requests int // GET /user, over two calls
	}{
		{name: "configured", token: fakeToken, login: "patchbot-bot", want: "patchbot-bot"},
		{name: "configured app", token: fakeToken, login: "patchbot[bot]", want: "patchbot[bot]"},
		{name: "user token", token: fakeToken, want: reviewtest.Bot, requests: 1},
		{name: "actions token", token: "ghs_app", actions: true, want: ActionsBot, requests: 1},
		{name: "app token outside actions", token: "ghs_app", wantErr: "serve.github.login", requests: 2},
		{name: "no token", wantErr: "set GITHUB_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, auth := newFakeGitHub(t, "gopher/codec")
			f.AddToken("ghs_app", "some-app[bot]")
			auth.Token, auth.Actions = Secret(tc.token), tc.actions
			g, err := NewGitHub(auth, Options{GitHubLogin: tc.login, Policy: fastPolicy})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := g.Self(context.Background())
				switch {
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("Self() = %q, %v; want an error saying %q", got, err, tc.wantErr)
				case tc.wantErr == "" && (err != nil || got != tc.want):
					t.Errorf("Self() = %q, %v; want %q", got, err, tc.want)
				}
			}
			if n := f.Count("GET /api/v3/user"); n != tc.requests {
				t.Errorf("GET /user %d times, want %d", n, tc.requests)
			}
		})
	}
	if _, err := NewGitHub(nil, Options{GitHubLogin: "../admin"}); err == nil {
		t.Error("NewGitHub took the login ../admin")
	}
}

// TestGitHubForeignMarker: a comment that starts with patchbot's marker
// but was written by someone else is not patchbot's. It is never edited,
// whatever the writer's permission (GitHub lets a writer edit anyone's
// comment) and never read as patchbot's result: patchbot writes its own,
// and edits that one afterwards.
func TestGitHubForeignMarker(t *testing.T) {
	for _, perm := range []string{"read", "write"} {
		t.Run(perm, func(t *testing.T) {
			f, auth := newFakeGitHub(t, "gopher/codec")
			f.SetPermission(reviewtest.Bot, perm) // may patchbot edit others' comments?
			spoof := Marker("bench") + "\nWriteInts 9.99x (trust me)\n"
			f.SetComments([]reviewtest.Comment{
				{ID: 1, Body: spoof, User: "mallory"},
				{ID: 2, Body: Marker("bench") + "\nWriteInts 1.00x\n", User: "patchbot-bot-impostor"},
			})
			for _, o := range []Options{{}, {GitHubLogin: reviewtest.Bot}} { // asked, and configured
				g := newTestGitHub(t, auth, o)
				if o.GitHubLogin == "" {
					var err error
					if g, err = NewGitHub(auth, Options{Policy: fastPolicy}); err != nil {
						t.Fatal(err)
					}
				}
				for _, text := range []string{"WriteInts 1.51x", "WriteInts 1.52x"} {
					if _, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: text}); err != nil {
						t.Fatal(err)
					}
				}
			}
			cs := f.Comments()
			if len(cs) != 3 || cs[0].Body != spoof || cs[0].User != "mallory" || cs[1].User != "patchbot-bot-impostor" {
				t.Fatalf("others' comments changed: %+v", cs)
			}
			if cs[2].User != reviewtest.Bot || cs[2].Body != Marker("bench")+"\nWriteInts 1.52x\n" {
				t.Errorf("patchbot's comment = %+v; want its own, updated", cs[2])
			}
			for _, r := range f.Requests() {
				if r == "PATCH /api/v3/repos/gopher/codec/issues/comments/1" || r == "PATCH /api/v3/repos/gopher/codec/issues/comments/2" {
					t.Errorf("an edit of another's comment: %s", r)
				}
			}
		})
	}
}

// TestGerritForeignTag, on the real Gerrit: another account's message with
// patchbot's tag on the patch set does not count as patchbot's; patchbot
// posts its own once, and Self is the account its credentials sign in as.
func TestGerritForeignTag(t *testing.T) {
	s := gerritServer(t)
	ctx := context.Background()
	g := newTestGerrit(t, s, Options{})
	r := newTestRepo(t, s)
	r.commit(newChangeID(), "one\n", false)
	change, _ := pushChange(t, g, s, r, PushOptions{})

	// Another account, made by the test's administrator, says it is
	// patchbot: the tag is the poster's choice.
	admin := gerrittest.Server{URL: s.url, User: s.user, Password: s.password, Project: s.project}
	login := "mallory-" + gerrittest.Unique()
	var acct struct {
		ID int64 `json:"_account_id"`
	}
	admin.Do(t, "PUT", "/accounts/"+login, map[string]any{"name": "Mallory"}, &acct)
	var pw string
	admin.Do(t, "PUT", "/accounts/"+login+"/password.http", map[string]any{"generate": true}, &pw)
	mallory := admin
	mallory.User, mallory.Password = login, pw
	mallory.Do(t, "POST", "/changes/"+change+"/revisions/current/review",
		map[string]any{"message": "patchbot says: 100x faster", "tag": Tag("bench")}, nil)

	self, err := g.Self(ctx)
	var me struct {
		ID int64 `json:"_account_id"`
	}
	admin.Do(t, "GET", "/accounts/self", nil, &me)
	if err != nil || self != me.ID || self == acct.ID {
		t.Fatalf("Self() = %d, %v; want %d, the credentials' account", self, err, me.ID)
	}

	m := Message{Kind: "bench", Text: table}
	for i, want := range []Action{Posted, AlreadyPosted} {
		res, err := g.Post(ctx, GerritPost{Change: change, Message: m, Once: true})
		if err != nil || res.Action != want {
			t.Fatalf("post %d = %+v, %v; want %s", i+1, res, err, want)
		}
	}
	got := tagged(t, g, change, Tag("bench"))
	if len(got) != 2 || got[0].Author.NumericID != acct.ID || got[1].Author.NumericID != me.ID {
		t.Errorf("tagged messages = %+v; want mallory's, then patchbot's", got)
	}
}

// TestGitHubLateStore: GitHub stores a comment after the client gave up
// waiting for the answer (its timeout), later than the client's next look
// could see it. The client waits a request's time before it looks again,
// finds the comment, and never leaves two.
func TestGitHubLateStore(t *testing.T) {
	f, auth := newFakeGitHub(t, "gopher/codec")
	const timeout = 200 * time.Millisecond
	var once sync.Once
	stored := make(chan struct{})
	f.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != "POST" {
			return false
		}
		late := false
		once.Do(func() { late = true })
		if !late {
			return false
		}
		// Slower than the client's timeout, then stored: the
		// answer goes to a client that left.
		time.Sleep(2 * timeout)
		f.Serve(httptest.NewRecorder(), r)
		close(stored)
		return true
	})
	g := newTestGitHub(t, auth, Options{Timeout: timeout})
	res, err := g.Post(context.Background(), testPR, Message{Kind: "bench", Text: "table"})
	if err != nil {
		t.Fatal(err)
	}
	<-stored
	cs := f.Comments()
	if len(cs) != 1 || res.URL != cs[0].HTMLURL {
		t.Errorf("after a create stored late: %d comments (%+v), result %+v; want one, the result's", len(cs), cs, res)
	}
}

// TestPullRequestText: a pull request is OWNER/REPO#N in JSON, read back
// as it was; text that is not one is refused on reading; the zero one is
// "".
func TestPullRequestText(t *testing.T) {
	type doc struct {
		PR PullRequest `json:"pr"`
	}
	for _, tc := range []struct {
		in   doc
		want string
	}{
		{doc{PullRequest{"golang", "go", 8311}}, `{"pr":"golang/go#8311"}`},
		{doc{}, `{"pr":""}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.in, b, err, tc.want)
		}
		var back doc
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	for _, bad := range []string{`{"pr":"golang/go"}`, `{"pr":"../go#1"}`, `{"pr":"golang/go#99999999999"}`} {
		var d doc
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Unmarshal(%s) = %+v; want an error", bad, d)
		}
	}
}
