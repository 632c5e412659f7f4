package serve

import (
	"fmt"
	"testing"
	"time"
)

// TestDeliveriesEvict holds the memory of handled deliveries to its
// bounds: an entry is forgotten after its time, a full memory drops the
// expired entries first, and one full of live entries starts again rather
// than grow, keeping the newest.
func TestDeliveriesEvict(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := &deliveries{ttl: 10 * time.Minute, now: func() time.Time { return now }, m: map[string]seenDelivery{}}

	s.add("a", "202 queued job 1")
	if got, ok := s.get("a"); !ok || got != "202 queued job 1" {
		t.Fatalf("get(a) = %q, %v; want its answer", got, ok)
	}
	now = now.Add(10*time.Minute + time.Second)
	if got, ok := s.get("a"); ok {
		t.Fatalf("get(a) after its time = %q, want forgotten", got)
	}

	// Full of old entries and one live one: the old go, the live stays.
	for i := range maxSeen - 2 {
		s.m[fmt.Sprint("old", i)] = seenDelivery{at: now.Add(-time.Hour)}
	}
	s.add("live", "200")
	now = now.Add(time.Minute)
	s.add("new", "200")
	if len(s.m) != 2 {
		t.Fatalf("after the expired were dropped: %d entries, want 2 (live, new)", len(s.m))
	}
	if _, ok := s.get("live"); !ok {
		t.Error("a live delivery was forgotten with the expired ones")
	}

	// Full of live entries: the memory starts again with the newest.
	for i := range maxSeen {
		s.m[fmt.Sprint("live", i)] = seenDelivery{at: now}
	}
	s.add("newest", "200")
	if len(s.m) != 1 {
		t.Fatalf("a memory full of live entries kept %d, want 1", len(s.m))
	}
	if _, ok := s.get("newest"); !ok {
		t.Error("the newest delivery was not remembered")
	}
}
