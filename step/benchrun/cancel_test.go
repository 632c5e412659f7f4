package benchrun

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempTestGo has a benchmark that makes a temporary directory of its own
// and is still running when the test cancels it.
const tempTestGo = `package sum

import (
	"os"
	"testing"
	"time"
)

func BenchmarkTemp(b *testing.B) {
	if _, err := os.MkdirTemp("", "leftover-"); err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Minute)
}
`

// Cancelling a run at any early moment (before it starts, while it checks
// out, while 'go list' runs or 'go test -c' builds, while a benchmark runs)
// leaves nothing in TMPDIR: not patchbot's directory, not the go command's
// go-build* work directories, which a killed build cannot remove, not what
// the benchmark made there.
func TestRunCancelLeavesNothing(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", tempTestGo)
	r.commit("sum: touch", "sum/sum.go", "// touched: the lines below move\n"+sumGo)
	t.Setenv("GOTMPDIR", "")

	// found returns a function that reports whether a file whose name
	// matches pattern is anywhere in dir.
	found := func(dir, pattern string) func() bool {
		return func() bool {
			hit := false
			filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if ok, _ := filepath.Match(pattern, d.Name()); ok && path != dir {
					hit = true
					return filepath.SkipAll
				}
				return nil
			})
			return hit
		}
	}
	after := func(d time.Duration) func() bool {
		t0 := time.Now()
		return func() bool { return time.Since(t0) >= d }
	}
	moments := []struct {
		name string
		when func(tmp string) func() bool // cancel once it reports true
	}{
		{"before", func(string) func() bool { return func() bool { return true } }},
		{"at once", func(string) func() bool { return after(time.Millisecond) }},
		{"checking out", func(tmp string) func() bool { return found(tmp, "patchbot-bench-*") }},
		{"listing", func(tmp string) func() bool { return found(tmp, "go-build*") }},
		{"building", func(tmp string) func() bool { return found(tmp, "_testmain.go") }},
		{"benchmark running", func(tmp string) func() bool { return found(tmp, "leftover-*") }},
	}
	for _, m := range moments {
		t.Run(m.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			when := m.when(tmp)
			seen := make(chan bool, 1)
			go func() {
				deadline := time.Now().Add(time.Minute)
				for !when() {
					if time.Now().After(deadline) {
						seen <- false
						cancel()
						return
					}
					time.Sleep(time.Millisecond)
				}
				seen <- true
				cancel()
			}()
			came := false
			if m.name == "before" {
				came = <-seen
			}
			o := quick(r.dir)
			o.Benchtime = "1x"
			o.Packages = []string{"./sum"} // the touch moved lines, which no benchmark can see
			_, err := Run(ctx, o)
			if m.name != "before" {
				came = <-seen
			}
			if !came {
				t.Fatalf("hung: the moment never came within a minute (Run: %v)", err)
			}
			if err == nil || !strings.Contains(err.Error(), "interrupted") {
				t.Errorf("err = %v, want interrupted", err)
			}
			if want := "while running BenchmarkTemp of ./sum, "; m.name == "benchmark running" && !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want it to name the benchmark that ran: %q", err, want)
			}
			var left []string
			filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
				if path != tmp {
					left = append(left, strings.TrimPrefix(path, tmp+string(filepath.Separator)))
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left in TMPDIR: %q", left[:min(len(left), 5)])
			}
		})
	}
}
