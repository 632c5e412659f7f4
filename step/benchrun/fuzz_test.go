package benchrun

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzCompare feeds both readers of outside input: old as a saved results
// file, and new as the output of a test binary run with testFlags, which
// runReader sorts into a side's raw results, as Run does. Whatever the
// bytes (NaN and infinities, lines too long, binary, invalid UTF-8,
// framing out of place), Compare must not panic or hang, and its result
// must render in every format and encode as valid JSON.
func FuzzCompare(f *testing.F) {
	f.Add([]byte("BenchmarkX-2 1 NaN ns/op\n"), []byte("\x16=== RUN   BenchmarkX\nhelloBenchmarkX-2 1 +Inf ns/op\n"))
	f.Add([]byte("BenchmarkX 1 "+strings.Repeat("9", maxLine)+" ns/op\nBenchmarkX 1 1 ns/op\n"),
		[]byte("\x16=== RUN   BenchmarkX\n"+strings.Repeat("x", 3*maxLine)+"BenchmarkX 1 2 ns/op"))
	f.Fuzz(func(t *testing.T, old, new []byte) {
		rr := newRunReader()
		rr.Write(new)
		rr.Close()
		raw := newRawWriter("0123456789abcdef")
		raw.add(rr.results)
		for _, om := range rr.omissions(false) {
			if om.Reason == "" || !strings.Contains(om.String(), ": "+om.Reason) {
				t.Errorf("omission without a reason: %+v", om)
			}
		}
		r, err := Compare(Input{Label: "old", R: bytes.NewReader(old)}, Input{Label: "new", R: bytes.NewReader(raw.buf.Bytes())}, nil)
		if err != nil {
			if err.Error() != "no benchmark results on either side" {
				t.Fatalf("Compare: %v", err)
			}
			return
		}
		data, err := json.Marshal(r)
		if err != nil || !json.Valid(data) {
			t.Fatalf("JSON: %v", err)
		}
		for _, f := range Formats {
			if err := r.Write(io.Discard, f); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	})
}
