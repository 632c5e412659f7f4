// Package gerrittest gives tests the real Gerrit that
// scripts/gerrit-test-server starts, so that every test that needs it finds
// it, and skips without it, the same way.
package gerrittest

import (
	"os"
	"testing"
)

// A Server is the test Gerrit: its URL, and the account and project the
// script made on it.
type Server struct {
	URL, User, Password, Project string
}

// SkipMessage is what a test without a Gerrit says.
const SkipMessage = "no Gerrit: run scripts/gerrit-test-server start (see docs/review.md)"

// Get returns the server named by the PATCHBOT_TEST_GERRIT_* variables that
// 'scripts/gerrit-test-server start' prints, and skips t when they are not
// set: 'go test ./...' alone runs everything else.
func Get(t testing.TB) Server {
	t.Helper()
	s := Server{
		URL:      os.Getenv("PATCHBOT_TEST_GERRIT_URL"),
		User:     os.Getenv("PATCHBOT_TEST_GERRIT_USER"),
		Password: os.Getenv("PATCHBOT_TEST_GERRIT_PASSWORD"),
		Project:  os.Getenv("PATCHBOT_TEST_GERRIT_PROJECT"),
	}
	if s.URL == "" || s.Password == "" || s.Project == "" {
		t.Skip(SkipMessage)
	}
	return s
}
