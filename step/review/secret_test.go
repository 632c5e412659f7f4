package review

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestSecretNeverShown checks every way a credential could be printed.
func TestSecretNeverShown(t *testing.T) {
	const pw = "s3cret-password-value"
	auth := &GerritAuth{User: "gopher", Password: pw}
	gh := &GitHubAuth{Token: pw}
	js, _ := json.Marshal(struct {
		A *GerritAuth
		B *GitHubAuth
	}{auth, gh})
	var log strings.Builder
	slog.New(slog.NewTextHandler(&log, nil)).Info("auth", "auth", auth, "pw", auth.Password)
	shown := []string{
		fmt.Sprint(auth), fmt.Sprintf("%v %+v %#v %s %q %x", auth, auth, auth, auth.Password, auth.Password, auth.Password),
		fmt.Sprintf("%+v %#v", gh, gh), string(js), log.String(),
		fmt.Sprint(auth.git()),
	}
	for _, s := range shown {
		if strings.Contains(s, pw) || strings.Contains(s, fmt.Sprintf("%x", pw)) {
			t.Errorf("secret shown: %s", s)
		}
	}
	if auth.Password.Reveal() != pw {
		t.Error("Reveal does not give the value back")
	}
}

func TestServerURL(t *testing.T) {
	if _, err := CheckServerURL("https://gopher:hunter2@go-review.googlesource.com"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("URL with a password: %v", err)
	}
	if u, err := CheckServerURL("https://go-review.googlesource.com/"); err != nil || u != "https://go-review.googlesource.com" {
		t.Errorf("CheckServerURL = %q, %v", u, err)
	}
	for _, s := range []string{"go-review.googlesource.com", "ftp://x", "https://x/?q=1"} {
		if _, err := CheckServerURL(s); err == nil {
			t.Errorf("CheckServerURL(%q) succeeded", s)
		}
	}
}
