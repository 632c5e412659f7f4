// Package remedy lets the errors of patchbot's libraries say what to do
// without naming a flag of the CLI. An option to change is named in the
// error's text by its field in a job request (job), in braces:
// "allow context differences with {port.fuzz}". Each caller words the
// references its own way before showing the text: the CLI as its flags
// ("-fuzz N"), a review message for a reviewer, who passes no flags, in
// words. The references are data that survives wrapping: whatever wraps
// the error, the text still holds them, and JSON results carry them as
// they are.
package remedy

import (
	"regexp"
	"strings"
)

var fieldRE = regexp.MustCompile(`\{([a-z][a-z_.]*)\}`)

// Word returns s with each {field} reference replaced by name(field); a
// nil name, or one that returns "", gives the field's name without the
// braces.
func Word(s string, name func(field string) string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return fieldRE.ReplaceAllStringFunc(s, func(m string) string {
		f := m[1 : len(m)-1]
		if name != nil {
			if w := name(f); w != "" {
				return w
			}
		}
		return f
	})
}

// Fields returns the fields s refers to, in order.
func Fields(s string) []string {
	var fs []string
	for _, m := range fieldRE.FindAllStringSubmatch(s, -1) {
		fs = append(fs, m[1])
	}
	return fs
}
