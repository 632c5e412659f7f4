package review

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testCookies = "# Netscape HTTP Cookie File\n" +
	"go.googlesource.com\tFALSE\t/\tTRUE\t2147483647\to\tgit-gopher.example.com=1//abc\n" +
	".googlesource.com\tTRUE\t/\tTRUE\t2147483647\to\tgit-gopher.example.com=1//wild\n" +
	"127.0.0.1\tFALSE\t/\tFALSE\t2147483647\tGerritAccount\tlocal\n" +
	"#HttpOnly_example.com\tFALSE\t/sub\tFALSE\t2147483647\tk\tv\n" +
	"malformed line\n"

func TestCookiesFor(t *testing.T) {
	tests := []struct {
		url  string
		want string
	}{
		{"https://go.googlesource.com/go", "o=git-gopher.example.com=1//abc o=git-gopher.example.com=1//wild"},
		{"https://go-review.googlesource.com/a/changes/1", "o=git-gopher.example.com=1//wild"},
		{"http://127.0.0.1:8080/a/project", "GerritAccount=local"},
		{"https://example.com/sub/x", "k=v"},
		{"https://example.com/other", ""},
		{"https://googlesource.com.evil.example/", ""},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		var got []string
		for _, c := range cookiesFor(testCookies, u) {
			got = append(got, c.Name+"="+c.Value)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("cookiesFor(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestGerritAuthFromEnv(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitcookies"), []byte(testCookies), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{"HOME": home}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}

	a, err := GerritAuthFromEnv("https://go-review.googlesource.com", env(EnvGerritUser, "gopher", EnvGerritPassword, "pw"))
	if err != nil || a.User != "gopher" || a.Password.Reveal() != "pw" {
		t.Errorf("with user and password: %+v, %v", a, err)
	}
	if _, err := GerritAuthFromEnv("https://go-review.googlesource.com", env(EnvGerritPassword, "pw")); err == nil {
		t.Error("a password without a user was accepted")
	}
	a, err = GerritAuthFromEnv("https://go-review.googlesource.com", env())
	if err != nil || a == nil || a.CookieFile != filepath.Join(home, ".gitcookies") {
		t.Errorf("with ~/.gitcookies: %+v, %v", a, err)
	}
	a, err = GerritAuthFromEnv("https://gerrit.example.org", env())
	if err != nil || a != nil {
		t.Errorf("for a host not in ~/.gitcookies: %+v, %v; want none", a, err)
	}
}
