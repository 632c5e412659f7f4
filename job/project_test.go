package job

import (
	"strings"
	"testing"
)

func TestProjectOf(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://github.com/golang/go", "github.com/golang/go"},
		{"https://github.com/golang/go.git", "github.com/golang/go"},
		{"https://github.com/golang/go/", "github.com/golang/go"},
		{"https://GitHub.com/golang/go", "github.com/golang/go"},
		{"https://user:pw@ghe.example.com:8443/org/repo.git", "ghe.example.com/org/repo"},
		{"ssh://git@github.com/golang/go.git", "github.com/golang/go"},
		{"git@github.com:golang/go.git", "github.com/golang/go"},
		{"github.com:golang/go", "github.com/golang/go"},
		{"git://go.googlesource.com/go", "go.googlesource.com/go"},
		{"https://go-review.googlesource.com/go", "go-review.googlesource.com/go"},
		{"https://go.googlesource.com/go\n", "go.googlesource.com/go"},
		{"", ""},
		{"/home/gopher/go", ""},
		{"../go", ""},
		{"./a:b", ""},
		{"file:///home/gopher/go", ""},
		{"https://github.com/", ""},
		{"https://github.com", ""},
		{"https://github.com/a b", ""},
	}
	for _, tt := range tests {
		if got := ProjectOf(tt.url); got != tt.want {
			t.Errorf("ProjectOf(%q) = %q; want %q", tt.url, got, tt.want)
		}
	}
}

// FuzzProjectOf: whatever a remote or a review server says, ProjectOf
// gives "" or a project a Request accepts, with no space in it, and the
// same project again when read back.
func FuzzProjectOf(f *testing.F) {
	for _, s := range []string{"https://github.com/golang/go.git", "git@github.com:golang/go", "ssh://u@h.example:22/a/b/", "/local/path", "file:///x", "h:p", "https://h/%2e%2e/x", "https://[::1]:80/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := ProjectOf(s)
		if p == "" {
			return
		}
		if strings.ContainsAny(p, " \t\r\n") {
			t.Fatalf("ProjectOf(%q) = %q, with a space", s, p)
		}
		if again := ProjectOf("https://" + p); again != p {
			t.Fatalf("ProjectOf(%q) = %q, but ProjectOf(https://%s) = %q", s, p, p, again)
		}
	})
}
