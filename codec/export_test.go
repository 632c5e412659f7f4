package codec

import (
	"sync/atomic"
	"testing"
)

// CountReflection makes the reflection path count its calls until t ends,
// and returns a function that reports the count so far. Tests that use it
// must not run in parallel with others that use codec. Benchmarks run
// without the hook, as production code does.
func CountReflection(t testing.TB) func() int64 {
	var n atomic.Int64
	slowHook = func() { n.Add(1) }
	t.Cleanup(func() { slowHook = nil })
	return n.Load
}

// BenchStruct is the struct of the benchmarks and the differential tests,
// defined once in plan_test.go, whose layout tests need it inside the
// package.
type BenchStruct = planStruct
