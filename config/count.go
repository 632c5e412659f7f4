package config

import (
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

// Set implements flag.Value, so that a command takes -count auto or
// -count 20. It does not check the number's range: each command and
// section has its own.
func (c *Count) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "auto" {
		*c = Auto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is neither a number of runs nor auto", s)
	}
	*c = Count{N: n}
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

// MarshalJSON writes "auto", or the number (patchbot config -json).
func (c Count) MarshalJSON() ([]byte, error) {
	if c.Auto {
		return []byte(`"auto"`), nil
	}
	return []byte(strconv.Itoa(c.N)), nil
}
