package config

import (
	"errors"
)

// Run is the run section: the defaults of 'patchbot run' that differ from
// 'patchbot bench'. The main job runs the benchmarks as one step of four,
// and its built-in example must finish in about two minutes on a small
// machine, so it takes more, shorter runs than bench does; everything else
// about the benchmarks (timeout, order, alpha) comes from the bench section.
type Run struct {
	// Count is the benchmark runs per side: auto (a sequential
	// comparison, bench.max_count at most) or a fixed number. The
	// statistics need 6 for a confidence interval around a median.
	Count Count `yaml:"count" json:"count"`

	// Benchtime is each benchmark run's -test.benchtime: a duration or
	// a number of iterations (100x); "" keeps the testing package's 1s.
	Benchtime string `yaml:"benchtime" json:"benchtime"`
	// Freeze says whether the job checks the release freeze (its freeze
	// step): false for a project that has none, which the message then
	// does not mention (run -no-freeze for one run).
	Freeze bool `yaml:"freeze" json:"freeze"`
}

func (r *Run) validate() error {
	switch {
	case !r.Count.Auto && r.Count.N < 1:
		return &keyError{"count", errors.New("must be auto, or a number of runs from 1")}
	case r.Benchtime != "" && ValidBenchtime(r.Benchtime) != nil:
		return &keyError{"benchtime", ValidBenchtime(r.Benchtime)}
	}
	return nil
}
