package benchrun_test

import (
	"fmt"
	"os"

	"github.com/patchbot/patchbot/step/benchrun"
)

// The built-in example's real results: WriteInts is faster with the
// unsigned fast path; every other difference is noise ("~" in the table),
// and undecided: 10 runs a side on a busy machine can tell neither a
// change nor that there was none (the same within ±2%).
func ExampleCompareFiles() {
	r, err := benchrun.CompareFiles("testdata/example-old.txt", "testdata/example-new.txt", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range r.Tables {
		if t.Unit != "B/s" {
			continue
		}
		for _, row := range t.Rows {
			fmt.Printf("%s: %s\n", row.Name, row.Compare.Verdict)
		}
	}
	r.Write(os.Stdout, benchrun.Benchcmp)
	// Output:
	// ReadInts/impl=stdlib-2: undecided
	// ReadInts/impl=codec-2: undecided
	// WriteInts/impl=stdlib-2: undecided
	// WriteInts/impl=codec-2: faster
	// benchmark                            old ns/op     new ns/op     delta
	// BenchmarkReadInts/impl=stdlib-2      174           175           +0.69% ~
	// BenchmarkReadInts/impl=codec-2       172           212           +23.57% ~
	// BenchmarkWriteInts/impl=stdlib-2     146           176           +20.50% ~
	// BenchmarkWriteInts/impl=codec-2      226           91.8          -59.43%
	// spread: old ± 44%, new ± 59% (median of rows); widest: BenchmarkReadInts/impl=stdlib-2 new ± 150%
	//
	// benchmark                            old MB/s     new MB/s     speedup
	// BenchmarkReadInts/impl=stdlib-2      173.01       171.50       0.99x ~
	// BenchmarkReadInts/impl=codec-2       174.56       141.48       0.81x ~
	// BenchmarkWriteInts/impl=stdlib-2     206.01       170.94       0.83x ~
	// BenchmarkWriteInts/impl=codec-2      135.13       330.09       2.44x
	// spread: old ± 31%, new ± 38% (median of rows); widest: BenchmarkReadInts/impl=stdlib-2 new ± 60%
	//
	// benchmark                            old allocs     new allocs     delta
	// BenchmarkReadInts/impl=stdlib-2      8              8              +0.00% ~
	// BenchmarkReadInts/impl=codec-2       8              8              +0.00% ~
	// BenchmarkWriteInts/impl=stdlib-2     8              8              +0.00% ~
	// BenchmarkWriteInts/impl=codec-2      0              0              +0.00% ~
	//
	// benchmark                            old bytes     new bytes     delta
	// BenchmarkReadInts/impl=stdlib-2      32            32            +0.00% ~
	// BenchmarkReadInts/impl=codec-2       32            32            +0.00% ~
	// BenchmarkWriteInts/impl=stdlib-2     32            32            +0.00% ~
	// BenchmarkWriteInts/impl=codec-2      0             0             +0.00% ~
	//
	// ~ not significant: p > 0.05 (Mann-Whitney U test); figures are medians of 10 runs; ± is the 95% confidence interval of a median, as a share of it
}
