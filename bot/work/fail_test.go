package work

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/internal/escape/escapetest"
	"github.com/patchbot/patchbot/job"
)

// TestFailureText checks what a failure reply says of an error on each
// medium: the checkout's paths relative to it, never the server's, and the
// change's text (its output, names) shown without mentioning or linking.
func TestFailureText(t *testing.T) {
	root := filepath.Join(t.TempDir(), "areas")
	area := filepath.Join(root, "0123456789abcdef01234567")
	failed := errors.New("new side (abc): building ./codec: exit status 1\n" +
		area + "/codec/x.go:3:2: undefined: Y\n" +
		"cd " + area + ": @octocat see https://evil.example/ and [x](https://evil.example)")
	for _, tt := range []struct {
		name     string
		markdown bool
		want     []string
	}{
		{"github", true, []string{
			"```text\n",
			"\ncodec/x.go:3:2: undefined: Y\n",
			"\ncd .: @octocat see https://evil.example/", // in the code block, where nothing acts
		}},
		{"gerrit", false, []string{
			"\n    codec/x.\u2060go:3:2: undefined: Y\n", // the dot escaped, as Gerrit would link x.go
			"\n    cd .: @\u2060octocat see https:\u2060//evil.\u2060example/ and [x]\u2060(https:\u2060//evil.\u2060example)\n",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := failureText(job.Asked{Command: "/patchbot bench -bench @octocat|[x](https://evil.example)|#12", Who: "@mallory"}, "abc", failed, nil, root, tt.markdown)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("the reply lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, root) {
				t.Errorf("the reply names the work areas' directory %s:\n%s", root, got)
			}
			var acts []string
			if tt.markdown {
				acts = escapetest.MarkdownActs(got)
			} else {
				acts = escapetest.GerritActs(got)
			}
			if len(acts) > 0 {
				t.Errorf("in the reply, %q act:\n%s", acts, got)
			}
		})
	}
}

func TestRelPaths(t *testing.T) {
	const root = "/srv/patchbot/areas"
	for _, tt := range []struct{ in, want string }{
		{root + "/0123456789abcdef01234567/codec/x.go:3", "codec/x.go:3"},
		{"cd " + root + "/0123456789abcdef01234567: failed", "cd .: failed"},
		{root + "/0123456789abcdef0123456789/x", root + "/0123456789abcdef0123456789/x"}, // not an area's name
		{"/other/0123456789abcdef01234567/x", "/other/0123456789abcdef01234567/x"},
	} {
		if got := relPaths(tt.in, root); got != tt.want {
			t.Errorf("relPaths(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAsked: a reply names who asked by login or account name, never by
// an e-mail address (a Gerrit account without a username), which a public
// change message would publish.
func TestAsked(t *testing.T) {
	for _, tt := range []struct{ who, want string }{
		{"alice", "alice"},
		{"gopher@example.com", ""},
		{"", ""},
	} {
		a := &queue.Args{Command: "bench", Options: "-count 5", Who: tt.who}
		if got := asked(a); got.Who != tt.want || got.Command != "/patchbot bench -count 5" {
			t.Errorf("asked(who %q) = %+v; want who %q and the command", tt.who, got, tt.want)
		}
	}
}
