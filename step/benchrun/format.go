package benchrun

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A Format is a way to print a Result.
type Format string

// The formats. Benchcmp is the default: the layout Go contributors pasted
// into reviews for years, now with medians and a "~" for changes that are
// not significant.
const (
	Benchcmp  Format = "benchcmp"  // old/new/delta blocks per unit, as cmd/benchcmp printed
	Benchstat Format = "benchstat" // exactly what benchstat prints for the raw files
	Markdown  Format = "markdown"  // a GitHub comment
	Gerrit    Format = "gerrit"    // a Gerrit review message (indented lines are preformatted)
	JSON      Format = "json"      // the Result itself
)

// Formats lists the formats, default first.
var Formats = []Format{Benchcmp, Benchstat, Markdown, Gerrit, JSON}

// ParseFormat returns the format called name.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats {
		if string(f) == name {
			return f, nil
		}
	}
	var names []string
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(names, ", "))
}

// Write writes r to w in format f.
func (r *Result) Write(w io.Writer, f Format) error {
	switch f {
	case Benchcmp, "":
		return writeBenchcmp(w, r)
	case Benchstat:
		return writeBenchstat(w, r)
	case Markdown:
		return writeReview(w, r, true)
	case Gerrit:
		return writeReview(w, r, false)
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if r.Schema == "" {
			c := *r
			c.Schema = ResultSchema
			r = &c
		}
		return enc.Encode(r)
	}
	return fmt.Errorf("unknown format %q", f)
}

// String returns r in format f.
func (r *Result) String(f Format) string {
	var b strings.Builder
	r.Write(&b, f)
	return b.String()
}
