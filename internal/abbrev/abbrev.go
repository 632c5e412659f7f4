// Package abbrev shortens text for messages: a commit hash, the first line
// of an error, a value cut to a length. These were written out in many
// packages; the variants that differ on purpose (one that repairs UTF-8,
// one that cuts to the first non-empty line) stay with their packages,
// under names of their own.
package abbrev

import (
	"strings"
	"unicode/utf8"
)

// Hash returns the first 12 characters of a commit hash, or all of a
// shorter one: the form in which patchbot names commits to people.
func Hash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// FirstLine returns s up to its first newline.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Clip returns s cut to at most n bytes, "..." included, at the start of
// a character, so that a cut never splits one; s itself when it is not
// longer. n must be at least 3.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "..."
	i := n - len(more)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + more
}
