package benchrun

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/step/verdict"
)

// BenchmarkAutoAB compares -count auto with -count 20, side by side in
// one run, on a repository whose one change doubles the work of Changed
// and leaves its ten siblings Same/0..9 alone, each run 50 ms, with the
// default plan (bench.count auto, max_count 30, equivalence 2%,
// equivalence_max 5%). It reports, per design, the wall time of the whole
// comparison (builds included), the runs a side per row on average, and
// Changed's runs and whether it was called slower:
//
//	go test -run '^$' -bench AutoAB -benchtime 1x ./step/benchrun
func BenchmarkAutoAB(b *testing.B) {
	src := func(work int) string {
		return fmt.Sprintf(`package ab

import (
	"strconv"
	"testing"
)

var sink int

func work(n int) {
	for i := range n {
		sink += i * i
	}
}

func BenchmarkChanged(b *testing.B) {
	for range b.N {
		work(%d)
	}
}

func BenchmarkSame(b *testing.B) {
	for i := range 10 {
		b.Run(strconv.Itoa(i), func(b *testing.B) {
			for range b.N {
				work(1000)
			}
		})
	}
}
`, work)
	}
	r := newTestRepo(b)
	r.commit("ab: add", "ab/ab_test.go", src(1000))
	r.commit("ab: twice the work", "ab/ab_test.go", src(2000))
	plan := &verdict.Plan{Looks: verdict.Looks(verdict.Round, 30), Alpha: 0.05, Margin: 0.02, MarginMax: 0.05}
	for _, design := range []struct {
		name string
		o    Options
	}{
		{"auto", Options{Plan: plan}},
		{"count20", Options{Count: 20}},
	} {
		b.Run(design.name, func(b *testing.B) {
			for range b.N {
				o := design.o
				o.Dir, o.Benchtime, o.Packages = r.dir, "50ms", []string{"./ab"}
				start := time.Now()
				res, err := Run(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "wall-s")
				runs, rows := 0, 0
				for _, t := range res.Tables {
					if t.Unit != "sec/op" {
						continue
					}
					for _, row := range t.Rows {
						runs += row.Old.N
						rows++
						if strings.HasPrefix(row.Name, "Changed") {
							b.ReportMetric(float64(row.Old.N), "changed-runs/side")
							slower := 0.0
							if row.Compare.Verdict == Slower {
								slower = 1
							}
							b.ReportMetric(slower, "changed-slower")
						}
					}
				}
				b.ReportMetric(float64(runs)/float64(rows), "runs/side/row")
			}
		})
	}
}
