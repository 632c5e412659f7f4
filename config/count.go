package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Count is how many times each side of a comparison runs: a fixed
// number of runs, or auto, a sequential comparison (package
// step/verdict) that runs each benchmark in rounds until it is decided
// faster, slower, the same or undecided, up to bench.max_count.
type Count struct {
	N    int  // runs per side, when not Auto
	Auto bool // a sequential comparison
}

// Auto is the Count "auto".
var Auto = Count{Auto: true}

// Runs returns the fixed Count of n runs.
func Runs(n int) Count { return Count{N: n} }

// ParseCount parses "auto" or a number of runs. It does not check the
// number's range: each command and section has its own.
func ParseCount(s string) (Count, error) {
	s = strings.TrimSpace(s)
	if s == "auto" {
		return Auto, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return Count{}, fmt.Errorf("%q is neither a number of runs nor auto", s)
	}
	return Count{N: n}, nil
}

// String returns c as written: "auto", or the number; "" for the zero
// Count, which means "the default".
func (c Count) String() string {
	switch {
	case c.Auto:
		return "auto"
	case c.N == 0:
		return ""
	}
	return strconv.Itoa(c.N)
}

// IsZero reports whether c is unset, so that a command or request
// leaving it out takes the configuration's.
func (c Count) IsZero() bool { return c == Count{} }

// Set implements flag.Value, so that a command takes -count auto or
// -count 20.
func (c *Count) Set(s string) error {
	v, err := ParseCount(s)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: auto or a number.
func (c *Count) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("must be a number of runs, or auto")
	}
	return c.Set(n.Value)
}

// MarshalYAML implements yaml.Marshaler: auto, or the number.
func (c Count) MarshalYAML() (any, error) {
	if c.Auto {
		return "auto", nil
	}
	return c.N, nil
}

// MarshalJSON writes "auto", or the number.
func (c Count) MarshalJSON() ([]byte, error) {
	if c.Auto {
		return []byte(`"auto"`), nil
	}
	return []byte(strconv.Itoa(c.N)), nil
}

// UnmarshalJSON reads "auto", or a number.
func (c *Count) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		return c.Set(s)
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("count: must be a number of runs, or \"auto\"")
	}
	*c = Count{N: n}
	return nil
}
