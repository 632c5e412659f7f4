package benchrun

import (
	"context"
	"io"
	"testing"
	"time"
)

// BenchmarkOverhead measures what patchbot itself adds to a comparison:
// the wall time of a whole run (checkouts, go list, builds, benchmark
// processes, statistics, rendering) less the time the builds and the
// benchmark processes took, as a share of the wall time. It reports it as
// overhead-%, which docs/design/bench.md quotes and which should stay under 10.
//
//	go test -run '^$' -bench Overhead -benchtime 3x ./benchrun
func BenchmarkOverhead(b *testing.B) {
	r := newTestRepo(b)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	b.ResetTimer()
	var wall, work time.Duration
	for range b.N {
		t0 := time.Now()
		res, err := Run(context.Background(), Options{Dir: r.dir, Count: 4, Benchtime: "50ms"})
		if err != nil {
			b.Fatal(err)
		}
		if err := res.Write(io.Discard, Benchcmp); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		work += res.Run.Build + res.Run.BenchTime
	}
	b.ReportMetric(100*float64(wall-work)/float64(wall), "overhead-%")
}
