package remedy

import "fmt"

// A FieldError is a value refused because of how the job was asked for,
// found before anything was done: the caller's mistake, not the work's.
// It is the one shape every library gives to "this option is wrong", from
// a request's validation (job) to a branch name git refuses (port), so
// that each caller words it once: the CLI names the flag that sets Field
// and exits 2, the bot tells a reviewer, and a queue cancels the job
// rather than retrying it.
type FieldError struct {
	// Field names what was wrong: a field of a job request in its JSON
	// name ("bench.count", "onto", "steps[2]") or, for a setting of the
	// configuration, its key ("port.branch_prefix").
	Field string
	// Value is the value refused, as given; "" when the field is missing.
	Value string
	// Reason is what is wrong and, where it helps, what to give. It may
	// refer to other fields in braces ("{port.fuzz}"), worded by Word.
	Reason string
}

func (e *FieldError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Reason
	}
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Reason)
}

// Fieldf returns a *FieldError for field and value, its reason formatted
// as fmt.Sprintf does.
func Fieldf(field, value, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}
