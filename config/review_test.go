package config

import (
	"testing"
	"time"
)

func TestReviewDefault(t *testing.T) {
	r := Default().Review
	if r.Gerrit != "" || len(r.Labels) != 0 || r.Attempts != 5 || r.Backoff != time.Second || r.MaxWait != 2*time.Minute || r.Timeout != 30*time.Second {
		t.Errorf("built-in review section = %+v", r)
	}
}

func TestReviewOverlay(t *testing.T) {
	c, err := Parse("user.yaml", []byte("review:\n  gerrit: https://go-review.googlesource.com\n  labels:\n    Run-TryBot: 1\n  attempts: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Review
	if r.Gerrit != "https://go-review.googlesource.com" || r.Labels["Run-TryBot"] != 1 || r.Attempts != 3 || r.Timeout != 30*time.Second {
		t.Errorf("review = %+v", r)
	}
}

func TestReviewErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"review:\n  gerrit: go-review.googlesource.com\n", `user.yaml:2: review.gerrit: "go-review.googlesource.com" is not an http:// or https:// URL`},
		{"review:\n  gerrit: https://me:pw@example.com\n", "user.yaml:2: review.gerrit: must not hold credentials; see 'patchbot doc review' for where they go"},
		{"review:\n  labels:\n    Code Review: 1\n", "user.yaml:2: review.labels: Code Review: 1 is not a vote like Code-Review: 1"},
		{"review:\n  labels:\n    Code-Review: 10\n", "user.yaml:2: review.labels: Code-Review: 10 is not a vote like Code-Review: 1"},
		{"review:\n  attempts: 0\n", "user.yaml:2: review.attempts: must be from 1 to 20"},
		{"review:\n  backoff: 0s\n", "user.yaml:2: review.backoff: must be a positive duration like 1s"},
		{"review:\n  max_wait: -1s\n", "user.yaml:2: review.max_wait: must not be negative"},
		{"review:\n  timeout: 0s\n", "user.yaml:2: review.timeout: must be a positive duration like 30s"},
		{"review:\n  token: x\n", "user.yaml:2: review.token: unknown key (known keys here: attempts, backoff, gerrit, labels, max_wait, timeout)"},
	}
	for _, tt := range tests {
		_, err := Parse("user.yaml", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}
