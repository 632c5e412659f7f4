package work

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/step/review"
)

// TestClassify: a review server's answer that will not change (gone,
// forbidden) cancels the job; one that passes (a 5xx, a broken connection,
// a rate limit, even one GitHub answers with a 403) leaves it to the
// queue's retries, so that its reply is posted once the server answers.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		name      string
		err       error
		permanent bool
	}{
		{"gone", &review.Error{Status: http.StatusNotFound}, true},
		{"forbidden", &review.Error{Status: http.StatusForbidden}, true},
		{"rate limited", &review.Error{Status: http.StatusForbidden, Transient: true}, false},
		{"rate limited, wrapped", fmt.Errorf("post: %w", &review.Error{Status: http.StatusForbidden, Transient: true}), false},
		{"too many requests", &review.Error{Status: http.StatusTooManyRequests, Transient: true}, false},
		{"unavailable", &review.Error{Status: http.StatusServiceUnavailable, Transient: true}, false},
		{"no answer", &review.Error{Detail: "EOF", Transient: true}, false},
		{"a binding", &BindingError{Ref: "refs/pull/1/head"}, true},
	} {
		if got := queue.IsPermanent(classify(tt.err)); got != tt.permanent {
			t.Errorf("%s: classify(%v) permanent = %v, want %v", tt.name, tt.err, got, tt.permanent)
		}
	}
}
