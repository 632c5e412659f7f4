package verdict

import (
	"math"
	"sync"
)

// exactMW is the largest m·n whose distribution is computed exactly:
// the recurrence takes m·n·(m·n+1) steps, a fraction of a second at 100
// runs a side and hours at 1,000; above it, the normal approximation
// (with the continuity correction), which is close there.
const exactMW = 100 * 100

// The exact null distribution of the Mann-Whitney statistic U (the number
// of pairs (x, y) with y > x) for m and n runs without ties: each of the
// C(m+n, m) orders of the runs is equally likely. With p(i, j, u) the
// chance that i x's and j y's give U = u, the largest of the i+j is a y
// with chance j/(i+j), and then it beats all i x's:
//
//	p(i, j, u) = j/(i+j)·p(i, j−1, u−i) + i/(i+j)·p(i−1, j, u)
//
// with p(0, j, 0) = p(i, 0, 0) = 1. Only sums of positive terms: the
// probabilities stay exact to rounding at the sizes a plan uses (30 runs a
// side is 900 values of u).

var (
	cdfMu    sync.Mutex
	cdfCache = map[[2]int][]float64{}
)

// cdf returns P(U ≤ u) for u = 0..m·n.
func cdf(m, n int) []float64 {
	cdfMu.Lock()
	defer cdfMu.Unlock()
	if c, ok := cdfCache[[2]int{m, n}]; ok {
		return c
	}
	// prev[j] is p(i−1, j, ·), cur[j] is p(i, j, ·).
	prev := make([][]float64, n+1)
	for j := range prev {
		prev[j] = []float64{1}
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1}
		for j := 1; j <= n; j++ {
			p := make([]float64, i*j+1)
			a, b := float64(j)/float64(i+j), float64(i)/float64(i+j)
			for u, q := range cur[j-1] { // largest is a y: U grows by i
				p[u+i] += a * q
			}
			for u, q := range prev[j] {
				p[u] += b * q
			}
			cur[j] = p
		}
		prev = cur
	}
	c := prev[n]
	for u := 1; u < len(c); u++ {
		c[u] += c[u-1]
	}
	cdfCache[[2]int{m, n}] = c
	return c
}

// lowerRank returns the largest k with P(U < k) ≤ q for m and n runs: the
// rank, from each end, of the sorted differences that bound a
// distribution-free interval at level 1−2q. It returns 0 when even the
// extreme differences do not reach that level (too few runs).
func lowerRank(m, n int, q float64) int {
	if m*n > exactMW {
		mean := float64(m*n) / 2
		sd := math.Sqrt(float64(m) * float64(n) * float64(m+n+1) / 12)
		return approxRank(mean, sd, q, (m*n)/2)
	}
	c := cdf(m, n)
	k := 0
	for k < len(c) && c[k] <= q {
		k++
	}
	// c[k-1] = P(U ≤ k−1) = P(U < k) ≤ q; and an interval needs
	// k ≤ mn/2 or it is empty.
	return min(k, (m*n)/2)
}
