package main

import (
	"flag"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/job"
)

// countAutoUsage is -count's usage where it may be auto.
const countAutoUsage = "`N` runs per side, at most 1000, or auto: run each benchmark until it is decided (default: bench.count, auto)"

// benchFlags are the flags bench, bisect and track share: the repository,
// which benchmarks, how many runs of how long, and the sandbox.
type benchFlags struct {
	repo      *string
	pkgs      stringsFlag
	bench     *string
	count     config.Count
	maxCount  *int
	benchtime *string
	sandbox   *bool
}

// addBenchFlags defines the shared flags on fs. pkgDefault says what
// -pkg's absence means; countUsage is -count's usage, which differs (a
// track's commits run a fixed count, bench's and bisect's can be auto).
func addBenchFlags(fs *flag.FlagSet, pkgDefault, countUsage string) *benchFlags {
	b := &benchFlags{}
	b.repo = fs.String("repo", ".", "the Git repository (and Go module) `DIR`")
	fs.Var(&b.pkgs, "pkg", "benchmark the packages `PATTERN` names (repeatable; default: "+pkgDefault+")")
	b.bench = fs.String("bench", ".", "run only the benchmarks matching `REGEXP`, as go test -bench takes it")
	fs.Var(&b.count, "count", countUsage)
	b.maxCount = fs.Int("max-count", 0, "with -count auto, the most runs per side, `N` (default: bench.max_count, 30)")
	b.benchtime = fs.String("benchtime", "", "each run's -test.benchtime `D`: a duration or Nx (default: bench.benchtime)")
	b.sandbox = fs.Bool("sandbox", false, "build and run the benchmarks in a bubblewrap sandbox: no network, no credentials, none of your files (default: bench.sandbox)")
	return b
}

// settings returns the bench settings the flags give, -count and
// -max-count checked against def, the count in force without -count.
func (b *benchFlags) settings(set map[string]bool, def config.Count) (job.BenchSettings, error) {
	if err := checkCount(set, b.count, *b.maxCount, def); err != nil {
		return job.BenchSettings{}, err
	}
	return job.BenchSettings{Packages: b.pkgs, Bench: *b.bench, Count: b.count.N, Auto: b.count.Auto, MaxCount: *b.maxCount,
		Benchtime: *b.benchtime, Sandbox: *b.sandbox}, nil
}
