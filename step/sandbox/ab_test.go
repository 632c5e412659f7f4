package sandbox_test

import (
	"context"
	"flag"
	"testing"

	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/sandbox"
)

var ab = flag.Bool("ab", false, "run TestSandboxAB: codec's benchmarks unsandboxed (old) against sandboxed (new)")

// sideRunner runs the old side's processes directly and the new side's in
// the sandbox: the same revision on both sides makes an A/B of the
// sandbox itself, in one interleaved run.
type sideRunner struct{ sb *sandbox.Sandbox }

// Isolation says how each side ran, for the result's note.
func (r sideRunner) Isolation() benchrun.Isolation {
	iso := r.sb.Isolation()
	iso.Sandbox = "the new side only (the old side ran directly): " + iso.Sandbox
	return iso
}

func (r sideRunner) Run(ctx context.Context, c *benchrun.Command) error {
	if c.Side == "old" {
		return benchrun.Direct(ctx, c)
	}
	return r.sb.Run(ctx, c)
}

// TestSandboxAB measures what the sandbox costs the benchmarks: codec's,
// at this repository's HEAD on both sides, 20 runs a side interleaved,
// the old side unsandboxed and the new one sandboxed. It is a measurement
// (docs/design/sandbox.md quotes it), not a check: run it with
//
//	go test ./sandbox -run TestSandboxAB -v -args -ab
func TestSandboxAB(t *testing.T) {
	if !*ab {
		t.Skip("a measurement: run with -ab")
	}
	sb := newSandbox(t, sandbox.Limits{})
	res, err := benchrun.Run(t.Context(), benchrun.Options{
		Dir: "..", Base: "HEAD", Head: "HEAD", Packages: []string{"./codec"},
		Bench: "ReadInts|WriteInts", Count: 20, Runner: sideRunner{sb},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("old: unsandboxed, new: sandboxed\n%s", res.String(benchrun.Benchcmp))
	for _, tb := range res.Tables {
		for _, r := range tb.Rows {
			if r.Compare != nil && r.Compare.Significant {
				t.Logf("%s %s: significant (p=%.3f, %+.2f%%)", r.Name, tb.Unit, r.Compare.P, 100*r.Compare.Delta)
			}
		}
	}
}
