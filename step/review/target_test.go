package review

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTarget(t *testing.T) {
	for _, s := range []string{
		"github:golang/go#8311",
		"github:go-gopher/x.y_z#1",
		"gerrit:go-review.googlesource.com:61510",
		"gerrit:127.0.0.1:29418:7",
		"gerrit:example.com/gerrit:12",
	} {
		tg, err := ParseTarget(s)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", s, err)
			continue
		}
		if tg.String() != s || tg.IsZero() || (tg.GitHub == nil) == (tg.Gerrit == nil) {
			t.Errorf("ParseTarget(%q) = %+v, String %q", s, tg, tg)
		}
		// In JSON, a string; back, the same target.
		b, err := json.Marshal(struct{ T Target }{tg})
		if err != nil || string(b) != `{"T":"`+s+`"}` {
			t.Errorf("json of %q = %s, %v", s, b, err)
		}
		var back struct{ T Target }
		if err := json.Unmarshal(b, &back); err != nil || back.T.String() != s {
			t.Errorf("json round trip of %q = %+v, %v", s, back.T, err)
		}
	}
	for _, s := range []string{
		"", "github:", "github:golang/go", "github:golang/go#0", "github:golang/go#-1",
		"github:golang/go#2147483648", "gitlab:x/y!1", "gerrit:", "gerrit:host", "gerrit:host:",
		"gerrit:host:0", "gerrit:host:x", "gerrit::12", "gerrit:Host.example:12", "gerrit:host/:12",
		"gerrit:host path:12", "gerrit:host\n:12", "github:golang/go#1\n",
		"gerrit:example.com/../x:1/", "gerrit:ho_st:1",
	} {
		if tg, err := ParseTarget(s); err == nil {
			t.Errorf("ParseTarget(%q) = %+v, want an error", s, tg)
		} else if !strings.Contains(err.Error(), "github:OWNER/REPO#N") && !strings.Contains(err.Error(), "pull request") {
			t.Errorf("ParseTarget(%q): %v does not say what a target looks like", s, err)
		}
	}
	var z Target
	if b, _ := json.Marshal(struct{ T Target }{z}); string(b) != `{"T":""}` {
		t.Errorf("zero target in JSON = %s", b)
	}
	both := Target{GitHub: &PullRequest{"a", "b", 1}, Gerrit: &GerritChange{"h", 1}}
	if _, err := json.Marshal(both); err == nil {
		t.Error("a target with both a pull request and a change marshals")
	}
}

func TestGerritTarget(t *testing.T) {
	for _, tc := range []struct {
		url  string
		n    int
		want string
	}{
		{"https://go-review.googlesource.com", 61510, "gerrit:go-review.googlesource.com:61510"},
		{"https://Go-Review.googlesource.com/", 1, "gerrit:go-review.googlesource.com:1"},
		{"http://127.0.0.1:8080/", 7, "gerrit:127.0.0.1:8080:7"},
		{"https://example.com/gerrit/", 12, "gerrit:example.com/gerrit:12"},
	} {
		tg, err := GerritTarget(tc.url, tc.n)
		if err != nil || tg.String() != tc.want {
			t.Errorf("GerritTarget(%q, %d) = %q, %v; want %q", tc.url, tc.n, tg, err, tc.want)
			continue
		}
		// What String writes, ParseTarget reads.
		if back, err := ParseTarget(tg.String()); err != nil || *back.Gerrit != *tg.Gerrit {
			t.Errorf("ParseTarget(%q) = %+v, %v", tg, back, err)
		}
	}
	for _, url := range []string{"", "go-review.googlesource.com", "https://", "https://bad host/"} {
		if tg, err := GerritTarget(url, 1); err == nil {
			t.Errorf("GerritTarget(%q) = %q, want an error", url, tg)
		}
	}
	if _, err := GerritTarget("https://h", 0); err == nil {
		t.Error("change 0 is a target")
	}
}

func TestRevision(t *testing.T) {
	const c40, c64 = "5a295b08c0d6a3b2e6e8e1b5e7a6f1f0c9d8e7f6", "5a295b08c0d6a3b2e6e8e1b5e7a6f1f0c9d8e7f65a295b08c0d6a3b2e6e8e1b5"
	for _, tc := range []struct {
		s    string
		want Revision
	}{
		{c40, Revision{Commit: c40}},
		{c64, Revision{Commit: c64}},
		{"3:" + c40, Revision{PatchSet: 3, Commit: c40}},
	} {
		r, err := ParseRevision(tc.s)
		if err != nil || r != tc.want || r.String() != tc.s {
			t.Errorf("ParseRevision(%q) = %+v, %v; want %+v", tc.s, r, err, tc.want)
		}
		var back Revision
		b, _ := r.MarshalText()
		if err := back.UnmarshalText(b); err != nil || back != r {
			t.Errorf("text round trip of %q = %+v, %v", tc.s, back, err)
		}
	}
	for _, s := range []string{"", "1", "5a295b0", strings.ToUpper(c40), "0:" + c40, "-1:" + c40, "x:" + c40, "3:", ":" + c40, c40 + "\n", "3:3:" + c40} {
		if r, err := ParseRevision(s); err == nil {
			t.Errorf("ParseRevision(%q) = %+v, want an error", s, r)
		}
	}
}

// FuzzParseTarget: whatever ParseTarget accepts, String writes back the
// same, and it names exactly one review.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"github:golang/go#8311", "gerrit:go-review.googlesource.com:61510", "gerrit:example.com/gerrit:12", "gerrit:h:1:2", "gerrit:00000:01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		if tg.String() != s || (tg.GitHub == nil) == (tg.Gerrit == nil) {
			t.Errorf("ParseTarget(%q) = %+v, which writes back as %q", s, tg, tg)
		}
	})
}

func TestRepository(t *testing.T) {
	for _, s := range []string{"golang/go", "gopher/my.repo_1", "a-b/c"} {
		r, err := ParseRepository(s)
		if err != nil || r.String() != s {
			t.Errorf("ParseRepository(%q) = %+v, %v", s, r, err)
		}
		var back Repository
		if err := back.UnmarshalText([]byte(s)); err != nil || back != r {
			t.Errorf("UnmarshalText(%q) = %+v, %v", s, back, err)
		}
	}
	for _, s := range []string{"golang", "golang/go#1", "golang/go/x", "a/..", "a/.", "a b/c", "/go", "golang/"} {
		if r, err := ParseRepository(s); err == nil {
			t.Errorf("ParseRepository(%q) = %+v, want an error", s, r)
		}
	}
	var r Repository
	if err := r.UnmarshalText(nil); err != nil || !r.IsZero() {
		t.Errorf("UnmarshalText of nothing = %+v, %v", r, err)
	}
	if pr := MustParsePullRequest("golang/go#7"); pr.Repository().PullRequest(7) != pr {
		t.Errorf("a pull request's repository's pull request is %v", pr.Repository().PullRequest(7))
	}
}
