package review

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// An Error is a request to a review server that failed for good: a
// permanent answer (401, 403, 404, 409, ...) or a transient one that
// outlasted the retry Policy. Its text is one line naming the server, the
// change or pull request, what was being done, the answer, and what to do.
type Error struct {
	Server   string // "Gerrit http://127.0.0.1:8080" or "GitHub https://api.github.com/"
	Target   string // "change 12", "pull request owner/repo#3"; "" for the server as a whole
	Op       string // what failed: "posting the bench message"
	Status   int    // HTTP status; 0 when there was no answer
	Detail   string // the first line of the server's answer, or the transport error
	Hint     string // what to do about it
	Attempts int    // requests made; more than 1 when retried
	// Transient reports that the last answer was one that passes with
	// time (a 5xx, 408, 429, a rate limit such as GitHub's 403s, a broken
	// connection) and only outlasted the retry Policy: the same request
	// may succeed later.
	Transient bool
	// RetryAfter is how long the server asked to be left alone (a rate
	// limit's reset, Retry-After); 0 when it did not say.
	RetryAfter time.Duration
	Err        error // underlying error, without credentials
}

// RateLimited reports whether the server refused for a rate limit (GitHub's
// 403 with its quota spent, or a 429): the same request succeeds once the
// limit resets, RetryAfter from now when the server said.
func (e *Error) RateLimited() bool {
	return e.Transient && (e.Status == http.StatusForbidden || e.Status == http.StatusTooManyRequests)
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Server)
	if e.Target != "" {
		b.WriteString(": " + e.Target)
	}
	b.WriteString(": " + e.Op + ": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
		if e.Detail != "" && !strings.EqualFold(e.Detail, http.StatusText(e.Status)) {
			b.WriteString(" (" + e.Detail + ")")
		}
	} else {
		b.WriteString(e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, ", after %d attempts", e.Attempts)
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Permanent reports whether retrying the same request later cannot help
// without a change by the user (credentials, permissions, the change named).
// A rate limit is not permanent, though GitHub answers it with a 403.
func (e *Error) Permanent() bool {
	return !e.Transient && e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests && e.Status != http.StatusRequestTimeout
}

// errorLine returns the first non-empty line of s, trimmed and cut to a
// length that fits in one error line. Unlike abbrev.FirstLine it skips
// blank lines and cuts the line; unlike abbrev.Clip it cuts at a byte and
// adds "..." after the 160 bytes it keeps.
func errorLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 160 {
				line = line[:160] + "..."
			}
			return line
		}
	}
	return ""
}

// hint says what to do about a failure with the given status.
func hint(server string, status int) string {
	switch status {
	case http.StatusUnauthorized:
		if server == "GitHub" {
			return "check GITHUB_TOKEN"
		}
		return "check the credentials: PATCHBOT_GERRIT_USER and PATCHBOT_GERRIT_PASSWORD (an HTTP password from Settings > HTTP Credentials), or ~/.gitcookies"
	case http.StatusForbidden:
		if server == "GitHub" {
			return "the token may not do this: check its scopes (pull-requests: write, issues: write)"
		}
		return "the account may not do this: check its permissions on the project"
	case http.StatusNotFound:
		if server == "GitHub" {
			return "check OWNER/REPO#N and that the token can see the repository"
		}
		return "check the change number and the server URL, and that the account can see the change"
	case http.StatusConflict:
		return "the change does not accept this now (closed, or a conflicting update); look at it on the server"
	case http.StatusTooManyRequests, http.StatusRequestTimeout:
		return "the server is rate limiting or overloaded; try again later"
	case 0:
		return "check that the server URL is right and reachable, then try again"
	}
	if status >= 500 {
		return "the server is failing; try again later"
	}
	return ""
}
