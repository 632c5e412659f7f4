package serve

import (
	"strings"
	"sync"
	"time"
)

// How long a permission GitHub gave is believed. Every command from
// someone who is not trusted by name costs a read of the author's
// permission, on the token's hourly quota; a stranger who writes a
// command a minute would spend it. A grant (write, maintain, admin) is
// kept a few minutes, so that a revoked one stops working soon; anything
// less (read, none: a refusal) longer, since a refused author is refused
// once per pull request anyway and their later comments change nothing.
const (
	grantTTL   = 5 * time.Minute
	refusedTTL = 30 * time.Minute
	// maxPerms bounds the answers kept: authors of signed deliveries.
	maxPerms = 10_000
)

// A permCache keeps the permission answers GitHub gave, per repository and
// author.
type permCache struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]permEntry
}

type permEntry struct {
	level string
	until time.Time
}

func newPermCache(now func() time.Time) *permCache {
	return &permCache{now: now, m: map[string]permEntry{}}
}

func permKey(owner, repo, login string) string {
	return strings.ToLower(owner + "/" + repo + " " + login)
}

// get returns the permission of login on owner/repo, if one is known.
func (c *permCache) get(owner, repo, login string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[permKey(owner, repo, login)]
	if !ok || !c.now().Before(e.until) {
		return "", false
	}
	return e.level, true
}

// put keeps level, GitHub's answer for login on owner/repo.
func (c *permCache) put(owner, repo, login, level string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.m) >= maxPerms {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxPerms {
			clear(c.m)
		}
	}
	ttl := refusedTTL
	switch level {
	case "admin", "maintain", "write":
		ttl = grantTTL
	}
	c.m[permKey(owner, repo, login)] = permEntry{level: level, until: now.Add(ttl)}
}
