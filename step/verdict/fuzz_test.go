package verdict

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// FuzzDecide feeds Decide runs made of arbitrary bits (the figures come
// from benchmark output, which a patch writes): it must not panic, must
// give one of the verdicts, and must never call a change from figures that
// are not numbers.
func FuzzDecide(f *testing.F) {
	floats := func(xs ...float64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(floats(100, 101, 99, 100, 102), floats(50, 51, 49, 50, 52), uint8(0))
	f.Add(floats(0, 0, 0, 0, 0), floats(1, 1, 1, 1, 1), uint8(5))
	f.Add(floats(math.NaN(), 1, 2, 3, 4), floats(1, 2, 3, 4, 5), uint8(1))
	f.Add(floats(math.Inf(1), -1, 0, 1e308, -1e308), floats(5e-324, 1, 2, 3, 4), uint8(2))
	f.Add([]byte{}, floats(1), uint8(9))
	f.Fuzz(func(t *testing.T, a, b []byte, look uint8) {
		read := func(p []byte) []float64 {
			var xs []float64
			for len(p) >= 8 && len(xs) < 40 {
				xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(p)))
				p = p[8:]
			}
			return xs
		}
		old, new := read(a), read(b)
		p := DefaultPlan()
		for _, d := range []Decision{
			p.Decide(old, new, int(look)%len(p.Looks), look%2 == 0),
			p.DecidePaired(old, new, int(look)%len(p.Looks), look%2 == 0),
		} {
			if !slices.Contains([]Verdict{Continue, Faster, Slower, Same, Undecided}, d.Verdict) {
				t.Fatalf("verdict %q", d.Verdict)
			}
			for _, x := range slices.Concat(old, new) {
				if (math.IsNaN(x) || math.IsInf(x, 0)) && (d.Verdict == Faster || d.Verdict == Slower || d.Verdict == Same) {
					t.Fatalf("verdict %q from runs with %v", d.Verdict, x)
				}
			}
			if d.Verdict == Same && d.Bound > p.MarginMax+0.005 {
				t.Fatalf("same within ±%v, past the second margin %v", d.Bound, p.MarginMax)
			}
			_ = d.Text()
		}
	})
}
