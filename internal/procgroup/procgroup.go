// Package procgroup runs a command in a process group of its own, so that
// stopping it stops what it started too: git's helpers, a benchmark's
// children, the compilers of a 'go test -c'. The one home of that policy
// for the packages that run processes (internal/gitexec, step/benchrun).
package procgroup
