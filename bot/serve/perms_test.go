package serve

import (
	"testing"
	"time"
)

// TestPermCache: a grant is kept grantTTL, anything less refusedTTL; keys
// are not case-sensitive, as GitHub's names are not.
func TestPermCache(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	c := newPermCache(func() time.Time { return now })
	c.put("Gopher", "Codec", "Alice", "write")
	c.put("gopher", "codec", "mallory", "read")
	c.put("gopher", "codec", "nobody", "none")
	for _, tc := range []struct {
		after       time.Duration
		login, want string
	}{
		{0, "alice", "write"},
		{grantTTL - time.Second, "ALICE", "write"},
		{grantTTL, "alice", ""},
		{refusedTTL - time.Second, "mallory", "read"},
		{refusedTTL - time.Second, "nobody", "none"},
		{refusedTTL, "mallory", ""},
		{0, "bob", ""},
	} {
		now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).Add(tc.after)
		if got, ok := c.get("gopher", "codec", tc.login); got != tc.want || ok != (tc.want != "") {
			t.Errorf("after %v: get(%s) = %q, %v; want %q", tc.after, tc.login, got, ok, tc.want)
		}
	}
	if _, ok := c.get("gopher", "other", "alice"); ok {
		t.Error("a permission on one repository was kept for another")
	}
}
