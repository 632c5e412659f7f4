package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Bench is the bench section: the defaults of 'patchbot bench', each of
// which a flag of the same name overrides for one run.
type Bench struct {
	// Count is the runs per side: auto, a sequential comparison that
	// runs each benchmark until it is decided, or a fixed number.
	// benchmath needs 4 per side before a U test can say anything at
	// alpha 0.05, and 6 for a 95% interval around a median.
	Count Count `yaml:"count" json:"count"`

	// MaxCount caps the runs per side of a sequential comparison
	// (-count auto), which looks after every 6: a benchmark still
	// undecided at the cap is reported undecided.
	MaxCount int `yaml:"max_count" json:"max_count"`

	// Equivalence is the margin of "same" in a sequential comparison: a
	// benchmark whose change's interval lies within ±Equivalence is the
	// same.
	Equivalence Percent `yaml:"equivalence" json:"equivalence"`

	// EquivalenceMax is the widest "same within ±X" of a sequential
	// comparison, for a benchmark that another round of runs would not
	// bring within ±Equivalence: its interval holds no change and lies within ±X,
	// X at most EquivalenceMax. Past it, the benchmark is undecided.
	EquivalenceMax Percent `yaml:"equivalence_max" json:"equivalence_max"`

	// Benchtime is each run's -test.benchtime: a duration ("1s") or a
	// number of iterations ("100x"); "" keeps the testing package's 1s.
	Benchtime string `yaml:"benchtime" json:"benchtime"`

	// Timeout is how long one benchmark run may take: a run past it is
	// killed and reported as failed, and the comparison goes on without
	// it. (The testing package's -test.timeout does not cover benchmarks.)
	Timeout time.Duration `yaml:"timeout" json:"timeout"`

	// Order is how the runs of the two sides alternate: interleaved,
	// shuffled or sequential.
	Order string `yaml:"order" json:"order"`

	// Alpha is the significance level of the Mann-Whitney U test.
	Alpha float64 `yaml:"alpha" json:"alpha"`

	// Threshold is how much worse, in percent, a significant change
	// must be to count as a regression for -fail-on-regression.
	Threshold Percent `yaml:"threshold" json:"threshold"`

	// Format is the output format: benchcmp, benchstat, markdown,
	// gerrit or json.
	Format string `yaml:"format" json:"format"`

	// Sandbox runs the benchmarks, and the builds of their test
	// binaries, in bubblewrap: no network, no credentials, none of the
	// user's files, and limits (docs/sandbox.md). For patches one did
	// not write. patchbot serve always runs them so, unless started
	// with -unsafe-no-sandbox.
	Sandbox bool `yaml:"sandbox" json:"sandbox"`
}

// The values Order and Format accept; benchrun defines them, and a test in
// cmd/patchbot checks that the two lists agree.
var (
	BenchOrders  = []string{"interleaved", "shuffled", "sequential"}
	BenchFormats = []string{"benchcmp", "benchstat", "markdown", "gerrit", "json"}
)

var benchtimeRE = regexp.MustCompile(`^[1-9][0-9]*x$`)

// ValidBenchtime returns an error, naming s, unless s is a value
// -test.benchtime accepts: a positive duration or a positive count of
// iterations followed by x.
func ValidBenchtime(s string) error {
	if benchtimeRE.MatchString(s) {
		return nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return nil
	}
	return fmt.Errorf("%q is neither a duration (1s) nor a count of iterations (100x)", s)
}

func (b *Bench) validate() error {
	var benchtimeErr error
	if b.Benchtime != "" {
		benchtimeErr = ValidBenchtime(b.Benchtime)
	}
	switch {
	case !b.Count.Auto && b.Count.N < 1:
		return &keyError{"count", errors.New("must be auto, or a number of runs from 1")}
	case b.MaxCount < 6 || b.MaxCount > 1000:
		return &keyError{"max_count", errors.New("must be from 6 (one round of -count auto) to 1000")}
	case !(b.Equivalence > 0 && b.Equivalence < 100):
		return &keyError{"equivalence", errors.New("must be a percentage above 0% and under 100%, like 2%")}
	case !(b.EquivalenceMax >= b.Equivalence && b.EquivalenceMax < 100):
		return &keyError{"equivalence_max", fmt.Errorf("must be a percentage from equivalence (%v) to under 100%%, like 5%%", b.Equivalence)}
	case benchtimeErr != nil:
		return &keyError{"benchtime", benchtimeErr}
	case b.Timeout < 0:
		return &keyError{"timeout", errors.New("must not be negative")}
	case !oneOf(b.Order, BenchOrders):
		return &keyError{"order", fmt.Errorf("must be one of %s, not %q", strings.Join(BenchOrders, ", "), b.Order)}
	case !(b.Alpha > 0 && b.Alpha < 1):
		return &keyError{"alpha", errors.New("must be between 0 and 1, like 0.05")}
	case b.Threshold < 0 || b.Threshold >= 100:
		return &keyError{"threshold", errors.New("must be a percentage from 0% to under 100%")}
	case !oneOf(b.Format, BenchFormats):
		return &keyError{"format", fmt.Errorf("must be one of %s, not %q", strings.Join(BenchFormats, ", "), b.Format)}
	}
	return nil
}

func oneOf(s string, list []string) bool {
	for _, v := range list {
		if s == v {
			return true
		}
	}
	return false
}

// A Percent is a percentage, written "5%" (or 5) in a file and on the
// command line.
type Percent float64

// ParsePercent parses "5%", "5" or "0.5%".
func ParsePercent(s string) (Percent, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a percentage like 5%%", s)
	}
	return Percent(v), nil
}

// String returns p as written: "5%".
func (p Percent) String() string { return strconv.FormatFloat(float64(p), 'f', -1, 64) + "%" }

// Fraction returns p as a fraction: 0.05 for 5%.
func (p Percent) Fraction() float64 { return float64(p) / 100 }

// Set implements flag.Value, so a command can take -threshold 5%.
func (p *Percent) Set(s string) error {
	v, err := ParsePercent(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: "5%" or 5.
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("must be a percentage like 5%%")
	}
	return p.Set(n.Value)
}

// MarshalYAML implements yaml.Marshaler, writing p as "5%".
func (p Percent) MarshalYAML() (any, error) { return p.String(), nil }
