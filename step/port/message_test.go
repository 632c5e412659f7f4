package port

import (
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/repo"
)

func TestCleanMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a: b\n\nBody.\n\nR=r\nCC=golang-dev\nhttps://codereview.appspot.com/123", "a: b\n\nBody."},
		{"a: b\n\nFixes issue 8311.\n\nLGTM=r\nR=r, iant\nTBR=adg\nhttps://golang.org/cl/123/\n", "a: b\n\nFixes #8311."},
		{"a: b\n\nR=r\n\nCommitter: Rob <r@golang.org>", "a: b\n\nCommitter: Rob <r@golang.org>"},
		// R= in the prose stays.
		{"a: b\n\nR= is how reviewers were named.\nMore prose.", "a: b\n\nR= is how reviewers were named.\nMore prose."},
		{"single line", "single line"},
		{"a: b\n\n---\n\ntext after dashes", "a: b\n\n---\n\ntext after dashes"},
		// Everything else is kept byte for byte.
		{"a: b  \n\nBody.\t\nend ", "a: b  \n\nBody.\t\nend "},
		{"  indented: b\n\n\tcode", "  indented: b\n\n\tcode"},
		{"a: b\n\n\nTwo blank lines.\n\n\n\nThree.", "a: b\n\n\nTwo blank lines.\n\n\n\nThree."},
		{"a: b\n\nBody\rwith a CR", "a: b\n\nBody\rwith a CR"},
		{"a: b\n\nBody.\n\n\ncommitter: Gopher <g@golang.org>", "a: b\n\nBody.\n\n\ncommitter: Gopher <g@golang.org>"},
		// Removing review lines closes the gap they leave, and only it.
		{"a: b\n\nBody.\n\nR=r\n\n\ncommitter: R <r@golang.org>", "a: b\n\nBody.\n\n\ncommitter: R <r@golang.org>"},
		{"a: b\n\nBody.\n\n\nR=r\n\nCommitter: R <r@golang.org>", "a: b\n\nBody.\n\n\nCommitter: R <r@golang.org>"},
		{"a: b\n\nBody.\n\nR=r\n\nCC=c\n\nCommitter: R <r@golang.org>", "a: b\n\nBody.\n\nCommitter: R <r@golang.org>"},
		// Blank lines at either end go, as hg stores none.
		{"\n \na: b\n\nBody.\n\t\n\n", "a: b\n\nBody."},
	}
	for _, tt := range tests {
		if got := cleanMessage(tt.in, DefaultDropLines, DefaultRewrites); got != tt.want {
			t.Errorf("cleanMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAddChangeID(t *testing.T) {
	const id = "I0123456789abcdef0123456789abcdef01234567"
	tests := []struct{ in, want string }{
		{"a: b", "a: b\n\nChange-Id: " + id + "\n"},
		{"a: b\n\nBody.", "a: b\n\nBody.\n\nChange-Id: " + id + "\n"},
		{"a: b\n\nBody.\n\nSigned-off-by: A <a@b>", "a: b\n\nBody.\n\nSigned-off-by: A <a@b>\nChange-Id: " + id + "\n"},
		// A subject that looks like a trailer is still a subject.
		{"net: fix it", "net: fix it\n\nChange-Id: " + id + "\n"},
		// An existing Change-Id is kept, and a second one never added.
		{"a: b\n\nChange-Id: I1111111111111111111111111111111111111111", "a: b\n\nChange-Id: I1111111111111111111111111111111111111111\n"},
	}
	for _, tt := range tests {
		got := addChangeID(tt.in, id)
		if got != tt.want {
			t.Errorf("addChangeID(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := addChangeID(got, id); again != got {
			t.Errorf("addChangeID twice changed %q to %q", got, again)
		}
		if strings.Count(got, "Change-Id:") != 1 {
			t.Errorf("%q has %d Change-Ids", got, strings.Count(got, "Change-Id:"))
		}
	}
}

func TestParseUser(t *testing.T) {
	tests := []struct{ in, name, email string }{
		{"Rob Pike <r@golang.org>", "Rob Pike", "r@golang.org"},
		{"r@golang.org", "r@golang.org", "r@golang.org"},
		{"rob", "rob", ""},
		{"<r@golang.org>", "r@golang.org", "r@golang.org"},
		{"Rob <r@golang.org> (work)", "Rob (work)", "r@golang.org"},
		{"a <b> <c>", "a b c", ""},
	}
	for _, tt := range tests {
		name, email := parseUser(tt.in)
		if name != tt.name || email != tt.email {
			t.Errorf("parseUser(%q) = %q, %q; want %q, %q", tt.in, name, email, tt.name, tt.email)
		}
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"a", "a/b.go", "src/.gitignore", "a/.github/x", "..a", "a..b"} {
		if err := checkPath(p); err != nil {
			t.Errorf("checkPath(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"", "/etc/passwd", "../x", "a/../../x", ".git/config", "a/.GIT/hooks/x", ".git./x", "a//b", "./a", "a\\b", "a\x00b"} {
		if err := checkPath(p); err == nil {
			t.Errorf("checkPath(%q) = nil, want an error", p)
		}
	}
}

func TestChangeID(t *testing.T) {
	const a, b = "I" + "0123456789abcdef0123456789abcdef01234567", "I" + "89abcdef0123456789abcdef0123456789abcdef"
	for _, tt := range []struct{ msg, want string }{
		{"x: y\n\nbody", ""},
		{"x: y\n\nChange-Id: " + a + "\n", a},
		{"x: y\n\n* one\n\nChange-Id: " + a + "\n\n* two\n\nChange-Id: " + b, b}, // a squash: the footer's
		{"x: y\n\nsays Change-Id: " + a + " in prose", ""},
	} {
		if got := repo.ChangeID(tt.msg); got != tt.want {
			t.Errorf("repo.ChangeID(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
