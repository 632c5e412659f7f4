// Package gerrittest gives tests the real Gerrit that
// scripts/gerrit-test-server starts, so that every test that needs it finds
// it the same way, and without it skips, or fails under scripts/test
// (internal/testenv).
package gerrittest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/internal/testenv"
)

// A Server is the test Gerrit: its URL, and the account and project the
// script made on it.
type Server struct {
	URL, User, Password, Project string
}

// Get returns the server named by the PATCHBOT_TEST_GERRIT_* variables that
// 'scripts/gerrit-test-server start' prints. Without them it skips t ('go
// test ./...' alone runs everything else), or fails t when the run requires
// Gerrit (testenv.Gerrit), as scripts/test does.
func Get(t testing.TB) Server {
	t.Helper()
	s, err := env()
	testenv.Need(t, testenv.Gerrit, err)
	return s
}

// Missing returns why there is no test Gerrit, or nil when there is one:
// for a testscript condition or command, which has no testing.TB.
func Missing() error {
	_, err := env()
	return err
}

func env() (Server, error) {
	s := Server{
		URL:      os.Getenv("PATCHBOT_TEST_GERRIT_URL"),
		User:     os.Getenv("PATCHBOT_TEST_GERRIT_USER"),
		Password: os.Getenv("PATCHBOT_TEST_GERRIT_PASSWORD"),
		Project:  os.Getenv("PATCHBOT_TEST_GERRIT_PROJECT"),
	}
	if s.URL == "" || s.Password == "" || s.Project == "" {
		return s, errors.New("PATCHBOT_TEST_GERRIT_URL, _PASSWORD or _PROJECT is not set")
	}
	return s, nil
}

// Do makes a REST call to the server as the test account and decodes the
// answer into out, if not nil; any status but 200, 201 or 204 fails t. It
// is plain net/http, not package review nor x/build/gerrit, so that a test
// sets up and checks the server without the code it tests.
func (s Server) Do(t testing.TB, method, path string, in, out any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(s.URL, "/")+"/a"+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(s.User, s.Password)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated, http.StatusNoContent:
	default:
		t.Fatalf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		if err := json.Unmarshal(bytes.TrimPrefix(data, []byte(")]}'")), out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// CreateBranch creates branch in the test project at revision.
func (s Server) CreateBranch(t testing.TB, branch, revision string) {
	t.Helper()
	s.Do(t, "PUT", "/projects/"+url.PathEscape(s.Project)+"/branches/"+url.PathEscape(branch), map[string]string{"revision": revision}, nil)
}

// Abandon abandons a change.
func (s Server) Abandon(t testing.TB, change string) {
	t.Helper()
	s.Do(t, "POST", "/changes/"+url.PathEscape(change)+"/abandon", map[string]string{}, nil)
}

// A Message is a review message of a change.
type Message struct {
	Tag     string `json:"tag"`
	Message string `json:"message"`
}

// Messages returns the review messages of a change, oldest first.
func (s Server) Messages(t testing.TB, change string) []Message {
	t.Helper()
	var ms []Message
	s.Do(t, "GET", "/changes/"+url.PathEscape(change)+"/messages", nil, &ms)
	return ms
}

// A Change is what Gerrit's ChangeInfo tells of a change, as far as tests
// check it.
type Change struct {
	Number          int                 `json:"_number"`
	ChangeID        string              `json:"change_id"`
	Project         string              `json:"project"`
	Branch          string              `json:"branch"`
	Topic           string              `json:"topic"`
	Hashtags        []string            `json:"hashtags"`
	CurrentRevision string              `json:"current_revision"`
	Revisions       map[string]Revision `json:"revisions"`
	Messages        []Message           `json:"messages"`
}

// A Revision is a patch set of a change.
type Revision struct {
	Number int    `json:"_number"`
	Commit Commit `json:"commit"`
}

// A Commit is the commit of a patch set.
type Commit struct {
	Message string `json:"message"`
	Author  struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"author"`
}

// Current returns the current patch set of c, the zero Revision if Gerrit
// did not list it.
func (c Change) Current() Revision { return c.Revisions[c.CurrentRevision] }

// Changes returns the changes that query (Gerrit's search syntax, such as
// "topic:x") matches, each with its current revision and commit and its
// review messages.
func (s Server) Changes(t testing.TB, query string) []Change {
	t.Helper()
	var cs []Change
	s.Do(t, "GET", "/changes/?q="+url.QueryEscape(query)+"&o=CURRENT_REVISION&o=CURRENT_COMMIT&o=MESSAGES", nil, &cs)
	return cs
}

// GitAuth returns the git -c setting that signs git's HTTP requests in as
// the test account: `git -c "$(GitAuth)" push …`.
func (s Server) GitAuth() string {
	return "http.extraHeader=Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(s.User+":"+s.Password))
}

// Git runs git in dir as the test account (the identity Gerrit accepts as a
// committer, no user or system configuration, and GitAuth for the server)
// and returns its trimmed output; a failure fails t.
func (s Server) Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", s.GitAuth()}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Administrator", "GIT_AUTHOR_EMAIL=admin@example.com",
		"GIT_COMMITTER_NAME=Administrator", "GIT_COMMITTER_EMAIL=admin@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Unique returns 10 random hex digits, for the names (topics, branches) a
// test makes on the shared server.
func Unique() string {
	b := make([]byte, 5)
	rand.Read(b)
	return hex.EncodeToString(b)
}
