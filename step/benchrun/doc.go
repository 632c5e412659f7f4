// Package benchrun runs a Go package's benchmarks at two revisions and
// compares them: the reusable layer under 'patchbot bench', and the bench
// step of 'patchbot run'.
//
// Run writes each revision's tree out of Git into a temporary directory
// (the user's working tree, index and branches are never touched), builds
// each package's test binary once per revision with 'go test -c', and runs
// the binaries several times each, one fresh process per run, alternating
// the revisions so that a machine whose speed drifts slows both alike.
// CompareFiles does the comparison alone, on saved results.
//
// The statistics are golang.org/x/perf's, computed as benchstat computes
// them (benchfmt to read, benchproc to group, benchmath for the medians,
// confidence intervals and Mann-Whitney U tests); this package adds no
// statistics of its own. A Result holds every figure and renders itself in
// the formats of Format: the benchcmp layout Go reviews used for years,
// benchstat's own (byte for byte), Markdown for GitHub, plain text for
// Gerrit, and JSON, which is the Result itself and reads back.
package benchrun
