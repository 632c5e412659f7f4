package config

import (
	"testing"
	"time"
)

func TestBenchDefault(t *testing.T) {
	b := Default().Bench
	want := Bench{Count: Auto, MaxCount: 30, Equivalence: 2, EquivalenceMax: 5, Benchtime: "50ms", Timeout: 10 * time.Minute, Order: "interleaved", Alpha: 0.05, Threshold: 5, Format: "benchcmp"}
	if b != want {
		t.Errorf("built-in bench section = %+v, want %+v", b, want)
	}
}

func TestBenchOverlay(t *testing.T) {
	c, err := Parse("user.yaml", []byte("bench:\n  count: 20\n  benchtime: 100x\n  threshold: 2.5%\n  order: shuffled\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Bench.Count != Runs(20) || c.Bench.Benchtime != "100x" || c.Bench.Threshold != 2.5 || c.Bench.Order != "shuffled" || c.Bench.Format != "benchcmp" {
		t.Errorf("bench = %+v", c.Bench)
	}
}

func TestBenchErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"bench:\n  count: 0\n", "user.yaml:2: bench.count: must be auto, or a number of runs from 1"},
		{"bench:\n  count: many\n", `user.yaml:2: bench.count: "many" is neither a number of runs nor auto`},
		{"bench:\n  count: [auto]\n", "user.yaml:2: bench.count: must be a number of runs, or auto"},
		{"bench:\n  benchtime: fast\n", `user.yaml:2: bench.benchtime: "fast" is neither a duration (1s) nor a count of iterations (100x)`},
		{"bench:\n  benchtime: 0x\n", `user.yaml:2: bench.benchtime: "0x" is neither a duration (1s) nor a count of iterations (100x)`},
		{"bench:\n  timeout: -1s\n", "user.yaml:2: bench.timeout: must not be negative"},
		{"bench:\n  order: random\n", `user.yaml:2: bench.order: must be one of interleaved, shuffled, sequential, not "random"`},
		{"bench:\n  alpha: 5\n", "user.yaml:2: bench.alpha: must be between 0 and 1, like 0.05"},
		{"bench:\n  threshold: lots\n", `user.yaml:2: bench.threshold: "lots" is not a percentage like 5%`},
		{"bench:\n  threshold: 150%\n", "user.yaml:2: bench.threshold: must be a percentage from 0% to under 100%"},
		{"bench:\n  equivalence_max: 1%\n", "user.yaml:2: bench.equivalence_max: must be a percentage from equivalence (2%) to under 100%, like 5%"},
		{"bench:\n  format: html\n", `user.yaml:2: bench.format: must be one of benchcmp, benchstat, markdown, gerrit, json, not "html"`},
		{"bench:\n  cout: 3\n", "user.yaml:2: bench.cout: unknown key (known keys here: alpha, benchtime, count, equivalence, equivalence_max, format, max_count, order, sandbox, threshold, timeout)"},
	}
	for _, tt := range tests {
		_, err := Parse("user.yaml", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Percent
	}{{"5%", 5}, {"5", 5}, {"0.5%", 0.5}, {" 12% ", 12}} {
		got, err := ParsePercent(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParsePercent("NaN"); err == nil {
		t.Error("ParsePercent(NaN) succeeded")
	}
	if got := Percent(5).Fraction(); got != 0.05 {
		t.Errorf("Fraction = %v", got)
	}
}
