package verdict

import (
	"math"
	"sync"
)

// The exact null distribution of the Wilcoxon signed-rank statistic T+
// (the sum of the ranks, by absolute value, of the positive differences)
// for n paired differences without ties or zeros: each of the 2^n signs
// is equally likely, so P(T+ = t) is the number of subsets of {1, …, n}
// that sum to t, over 2^n. Adding rank i to the subsets of {1, …, i−1}:
//
//	p_i(t) = (p_{i−1}(t) + p_{i−1}(t − i)) / 2
//
// with p_0(0) = 1: halves and sums only, exact to rounding.

var (
	srMu    sync.Mutex
	srCache = map[int][]float64{}
)

// exactSignedRank is the largest n whose distribution is computed
// exactly (n(n+1)/2 + 1 values, n passes); above it, the normal
// approximation, whose error in the tail there is far below the
// differences between neighbouring ranks.
const exactSignedRank = 200

// signedRankCDF returns P(T+ ≤ t) for t = 0..n(n+1)/2.
func signedRankCDF(n int) []float64 {
	srMu.Lock()
	defer srMu.Unlock()
	if c, ok := srCache[n]; ok {
		return c
	}
	total := n * (n + 1) / 2
	p := make([]float64, total+1)
	p[0] = 1
	top := 0 // the largest t with p[t] > 0 so far
	for i := 1; i <= n; i++ {
		top += i
		for t := top; t >= 0; t-- {
			q := p[t]
			if t >= i {
				q += p[t-i]
			}
			p[t] = q / 2
		}
	}
	for t := 1; t <= total; t++ {
		p[t] += p[t-1]
	}
	srCache[n] = p
	return p
}

// signedRankLower returns the largest k with P(T+ < k) ≤ q for n pairs:
// the rank, from each end, of the sorted Walsh averages that bound a
// distribution-free interval at level 1−2q; 0 when even the extreme
// averages do not reach that level (too few pairs).
func signedRankLower(n int, q float64) int {
	total := n * (n + 1) / 2
	if n > exactSignedRank {
		mean := float64(total) / 2
		sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
		return approxRank(mean, sd, q, total/2)
	}
	c := signedRankCDF(n)
	k := 0
	for k < len(c) && c[k] <= q {
		k++
	}
	return min(k, total/2)
}

// approxRank returns the largest k, at most limit, with P(S < k) ≤ q for
// a statistic S on the integers that is about normal with mean and sd:
// P(S ≤ k−1) ≈ Φ((k − 1/2 − mean)/sd), with the continuity correction.
func approxRank(mean, sd, q float64, limit int) int {
	k := int(math.Floor(mean + sd*normalQuantile(q) + 0.5))
	for k > 0 && normalCDF((float64(k)-0.5-mean)/sd) > q {
		k--
	}
	for k < limit && normalCDF((float64(k)+0.5-mean)/sd) <= q {
		k++
	}
	return max(0, min(k, limit))
}

// normalCDF is the standard normal distribution function.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
