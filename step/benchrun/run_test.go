package benchrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// quick are the options that keep the tests short: the statistics need
// several runs per side, not long ones.
func quick(dir string) Options {
	return Options{Dir: dir, Count: 4, Benchtime: "200x"}
}

func TestRun(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo, "README", "hello\n")
	head := r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	statusBefore := r.git("status", "--porcelain")

	out := t.TempDir()
	opts := quick(r.dir)
	opts.OutDir = out
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Commit != base || res.Head.Commit != head {
		t.Errorf("sides = %s, %s; want %s, %s", res.Base.Commit, res.Head.Commit, base, head)
	}
	if got := res.Run.Packages; !slices.Equal(got, []string{"example.com/bench/sum"}) {
		t.Errorf("packages = %q, want the touched package", got)
	}
	if len(res.Failures) > 0 {
		t.Errorf("failures: %+v", res.Failures[0])
	}
	row := findRow(t, res, "sec/op", "Sum")
	if row.Old.N != 4 || row.New.N != 4 {
		t.Errorf("Sum: n = %d+%d, want 4+4", row.Old.N, row.New.N)
	}
	// The verdict is statistical: with 4 runs a side, the U test says
	// better only when every new run is faster than every old one. A
	// loop of 2,000 additions (700 ns/op at the fastest) against a
	// formula (3.6 ns/op median) leaves a gap that only a stall of some
	// 140 µs within a new run's microsecond of timed loop closes: in
	// 2,000 runs of the new side on a loaded 2-core machine the slowest
	// was 155 ns/op, a fifth of the way. No new run in 2,000 crossed it,
	// so a false failure is under 3 in 2,000 new runs (95% bound), under
	// 1 in 160 tests of 4; the comparison is run once more before the
	// test fails, which leaves under 1 in 25,000.
	if row.Compare.Verdict != Faster {
		t.Logf("Sum got %s (delta %.2f, p=%.3f); running again", row.Compare.Verdict, row.Compare.Delta, row.Compare.P)
		again, err := Run(context.Background(), quick(r.dir))
		if err != nil {
			t.Fatal(err)
		}
		if c := findRow(t, again, "sec/op", "Sum").Compare; c.Verdict != Faster {
			t.Errorf("Sum got %s (delta %.2f, p=%.3f) twice, want better", c.Verdict, c.Delta, c.P)
		}
	}
	findRow(t, res, "B/s", "Sum")
	// BenchmarkAlloc calls no function the change touched: it is left
	// out, and the result says so.
	sel := res.Run.Selection
	if sel == nil || len(sel.Packages) != 1 || !slices.Equal(sel.Packages[0].LeftOut, []string{"BenchmarkAlloc"}) {
		t.Errorf("selection = %+v, want BenchmarkAlloc left out of ./sum", sel)
	}
	if s := res.String(Benchcmp); !strings.Contains(s, "left out of ./sum, as no changed function is reachable from them: BenchmarkAlloc") {
		t.Errorf("benchcmp does not say BenchmarkAlloc was left out:\n%s", s)
	}

	// The raw files are benchstat input, each with its revision.
	for side, commit := range map[string]string{"old": base, "new": head} {
		data, err := os.ReadFile(filepath.Join(out, side+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "# revision: "+commit+"\n") {
			t.Errorf("%s.txt does not start with its revision:\n%s", side, data)
		}
		if n := strings.Count(string(data), "\nBenchmarkSum-"); n != 4 {
			t.Errorf("%s.txt has %d BenchmarkSum lines, want 4", side, n)
		}
		if strings.Contains(string(data), "PASS") {
			t.Errorf("%s.txt keeps test output:\n%s", side, data)
		}
	}
	// The user's repository is as it was.
	if got := r.git("status", "--porcelain"); got != statusBefore {
		t.Errorf("git status changed to %q", got)
	}
	if got := r.git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
}

// Plain benchstat on a run's raw files prints the tables the run printed,
// byte for byte, once its columns carry benchstat's labels (the file
// names), and patchbot reading the files back knows their revisions.
func TestRunBenchstat(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	head := r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	out := t.TempDir()
	opts := quick(r.dir)
	opts.OutDir = out
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	old, new := filepath.Join(out, "old.txt"), filepath.Join(out, "new.txt")
	want := benchstat(t, old, new)
	res.Base.Label, res.Head.Label = old, new
	// benchstat's output, and then how the benchmarks ran, which
	// benchstat, running none, cannot say.
	if got := res.String(Benchstat); got != want+"\n"+res.Run.Isolation.String()+"\n" {
		t.Errorf("the run printed\n%s\nbenchstat %s %s prints\n%s", got, old, new, want)
	}
	saved, err := CompareFiles(old, new, nil)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Base.Commit != base || saved.Head.Commit != head {
		t.Errorf("saved files record %q, %q; want %s, %s", saved.Base.Commit, saved.Head.Commit, base, head)
	}
}

// A package the head adds, here one of tests alone, has only added
// benchmarks.
func TestRunNewPackage(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("extra: add", "extra/extra_test.go", "package extra\n\nimport \"testing\"\n\nfunc BenchmarkExtra(b *testing.B) {}\n")
	o := quick(r.dir)
	o.Count = 1
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Run.Packages; !slices.Equal(got, []string{"example.com/bench/extra"}) {
		t.Errorf("packages = %q", got)
	}
	if out := res.String(Benchcmp); !strings.Contains(out, "added (new only): Extra-") {
		t.Errorf("benchcmp output does not list Extra as added:\n%s", out)
	}
}

// A package whose first test file the head adds builds no test binary on
// the old side: its benchmarks are added, not a build failure.
func TestRunFirstBenchmarks(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo)
	r.commit("sum: benchmark", "sum/sum_test.go", sumTestGo)
	o := quick(r.dir)
	o.Count = 1
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Errorf("failures: %+v", res.Failures[0])
	}
	if out := res.String(Benchcmp); !strings.Contains(out, "added (new only): Sum-") || !strings.Contains(out, "Alloc-") {
		t.Errorf("benchcmp output does not list Sum and Alloc as added:\n%s", out)
	}
}

func TestRunNotARepository(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "repo \""+dir+"\": not a Git repository") {
		t.Errorf("err = %v", err)
	}
}

func findRow(t *testing.T, r *Result, unit, prefix string) *Row {
	t.Helper()
	for _, tb := range r.Tables {
		if tb.Unit != unit {
			continue
		}
		for _, row := range tb.Rows {
			if strings.HasPrefix(row.Name, prefix) {
				return row
			}
		}
	}
	t.Fatalf("no %s row for %s in:\n%s", unit, prefix, r.String(Benchstat))
	return nil
}

func TestRunErrors(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo,
		"nobench/nobench.go", "package nobench\n", "nobench/nobench_test.go", "package nobench\n",
		"docs/README", "not Go\n")
	r.commit("nobench: touch", "nobench/nobench.go", "package nobench\n\n// touched\n")
	r.commit("sum: break", "sum/sum.go", "package sum\n\nfunc Sum(n int) int { return undefined }\n")

	tests := []struct {
		name string
		opts func(o *Options)
		want []string // substrings of the error
	}{
		{"bad base", func(o *Options) { o.Base = "nosuch" }, []string{`base revision "nosuch": not found`}},
		{"bad head", func(o *Options) { o.Head = "0123abcd" }, []string{`head revision "0123abcd": not found`}},
		{"no benchmarks named", func(o *Options) { o.Base, o.Head, o.Packages = "HEAD~2", "HEAD~1", []string{"./nobench"} },
			[]string{"no benchmarks in ./nobench at HEAD~1"}},
		{"head does not build", func(o *Options) {},
			[]string{"new side (HEAD, ", "./sum does not build", "undefined: undefined"}},
		{"no match", func(o *Options) {
			o.Base, o.Head, o.Packages, o.Bench = "HEAD~2", "HEAD~1", []string{"./sum"}, "Nosuch"
		},
			[]string{`no benchmark matched {bench.bench} "Nosuch" in example.com/bench/sum`}},
		{"no such package", func(o *Options) { o.Base, o.Head, o.Packages = "HEAD~2", "HEAD~1", []string{"./sum", "./nosuch"} },
			[]string{"package ./nosuch does not exist at HEAD~1: the module has no directory ./nosuch; {bench.packages} must name packages"}},
		{"no such tree", func(o *Options) { o.Base, o.Head, o.Packages = "HEAD~2", "HEAD~1", []string{"./nosuch/sub/..."} },
			[]string{"package ./nosuch/sub/... does not exist at HEAD~1: the module has no directory ./nosuch/sub;"}},
		{"a file", func(o *Options) { o.Base, o.Head, o.Packages = "HEAD~2", "HEAD~1", []string{"./sum/sum.go/..."} },
			[]string{"package ./sum/sum.go/... does not exist at HEAD~1: the module has no directory ./sum/sum.go;"}},
		{"no Go files", func(o *Options) { o.Base, o.Head, o.Packages = "HEAD~2", "HEAD~1", []string{"./docs"} },
			[]string{"package ./docs does not exist at HEAD~1: its directory holds no Go files;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := quick(r.dir)
			o.Count = 1
			tt.opts(&o)
			_, err := Run(context.Background(), o)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			_, isPkg := errors.AsType[*PackageError](err)
			if want := strings.Contains(tt.want[0], "does not exist at"); isPkg != want {
				t.Errorf("error %q: a *PackageError = %v, want %v", err, isPkg, want)
			}
			if errors.Is(err, ErrNoMatch) != (tt.name == "no match") {
				t.Errorf("error %q: errors.Is(err, ErrNoMatch) = %v", err, !(tt.name == "no match"))
			}
			if errors.Is(err, ErrBadRevision) != strings.HasPrefix(tt.name, "bad ") {
				t.Errorf("error %q: errors.Is(err, ErrBadRevision) = %v", err, !strings.HasPrefix(tt.name, "bad "))
			}
		})
	}
}

// A benchmark that fails on one side is reported with its output, and the
// other benchmarks are still compared.
func TestRunFailure(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("sum: fail", "sum/sum_test.go", strings.Replace(sumTestGo, "func BenchmarkAlloc(b *testing.B) {",
		"func BenchmarkAlloc(b *testing.B) {\n\tb.Fatal(\"allocation went wrong\")", 1))
	o := quick(r.dir)
	o.Count = 2
	o.Packages = []string{"./sum"} // Sum too, which the change does not reach
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 {
		t.Fatalf("failures = %+v, want one", res.Failures)
	}
	f := res.Failures[0]
	if f.Side != "new" || f.Package != "example.com/bench/sum" || f.Runs != 2 || !strings.Contains(f.Tail, "allocation went wrong") {
		t.Errorf("failure = %+v", f)
	}
	findRow(t, res, "sec/op", "Sum")
	out := res.String(Benchcmp)
	for _, want := range []string{"removed (old only): Alloc", "FAIL new example.com/bench/sum: ", "allocation went wrong"} {
		if !strings.Contains(out, want) {
			t.Errorf("benchcmp output lacks %q:\n%s", want, out)
		}
	}
}

// A failure's output names the change's files relative to its checkout,
// never by the run's temporary directory: a panic's trace holds absolute
// paths, and a review reply must not publish the server's.
func TestRunFailurePaths(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("sum: panic", "sum/sum_test.go", strings.Replace(sumTestGo, "func BenchmarkAlloc(b *testing.B) {",
		"func BenchmarkAlloc(b *testing.B) {\n\tpanic(\"boom\")", 1))
	o := quick(r.dir)
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 {
		t.Fatalf("failures = %+v, want one", res.Failures)
	}
	f := res.Failures[0]
	if !strings.Contains(f.Tail, "panic: boom") || !strings.Contains(f.Tail, "\texample.com/bench/sum/sum_test.go:") {
		t.Errorf("the failure's output does not name sum/sum_test.go by its import path (-trimpath):\n%s", f.Tail)
	}
	if strings.Contains(f.Tail+f.Error, "patchbot-bench-") || strings.Contains(f.Tail+f.Error, os.TempDir()+string(filepath.Separator)) {
		t.Errorf("the failure names the run's temporary directory:\n%s\n%s", f.Error, f.Tail)
	}
}

// A run that takes longer than the timeout is killed and reported as a
// failure (the testing package's own -test.timeout does not cover
// benchmarks); the benchmarks it ran before are still compared.
func TestRunTimeout(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	r.commit("sum: slow benchmark", "sum/sum_test.go", strings.Replace(sumTestGo, `import "testing"`, `import (
	"testing"
	"time"
)`, 1)+`
func BenchmarkSlow(b *testing.B) {
	time.Sleep(time.Minute)
}
`)
	o := quick(r.dir)
	o.Count = 1
	o.Timeout = 3 * time.Second
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The timeout shows in the failure it causes (a run let be would
	// sleep its minute and succeed), not in the clock.
	t.Logf("the runs took %v; the timeout is 3s", res.Run.BenchTime.Round(time.Millisecond))
	if len(res.Failures) != 1 {
		t.Fatalf("failures = %+v, want the new side's timeout", res.Failures)
	}
	if f := res.Failures[0]; f.Side != "new" || f.Error != "timed out: killed after 3s" {
		t.Errorf("failure = %+v", f)
	}
	findRow(t, res, "sec/op", "Sum")
}

// Cancelling kills the running benchmark and the processes it started, and
// removes the temporary directory.
func TestRunCancel(t *testing.T) {
	r := newTestRepo(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pidFile := filepath.Join(t.TempDir(), "pid")
	slow := `package sum

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func BenchmarkSlow(b *testing.B) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(` + "`" + pidFile + "`" + `, []byte(strconv.Itoa(child.Process.Pid)), 0o666)
	time.Sleep(time.Minute)
}
`
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", slow)
	r.commit("sum: touch", "sum/sum.go", "// touched: the lines below move\n"+sumGo)

	// Cancel once the benchmark has started its child; two minutes
	// without it is a hang (the builds take seconds).
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(pidFile); err == nil {
				time.Sleep(100 * time.Millisecond) // let it write the pid
				break
			}
		}
		cancel()
	}()
	o := quick(r.dir)
	o.Benchtime = "1x"
	o.Packages = []string{"./sum"} // the touch moved lines, which no benchmark can see
	_, err := Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want interrupted", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the slow benchmark never started its child: it hung, or failed, for two minutes: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The child may linger as a zombie until init reaps it; signal 0
	// succeeds on zombies, so look at its state instead.
	if alive(pid) {
		t.Errorf("benchmark's child %d still running after cancel", pid)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "patchbot-bench-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// alive reports whether process pid exists and is not a zombie after
// up to half a minute: a killed process is gone at once, but a loaded
// machine may take a while to schedule its end, and a minute is the least
// a process that was not killed lives in these tests.
func alive(pid int) bool {
	for range 1500 {
		if err := syscall.Kill(pid, 0); err != nil {
			return false
		}
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err == nil && strings.Contains(string(stat), ") Z ") {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// The excerpt of a failed run's output shows why it failed: a panic's
// message rather than the end of its goroutine dump.
func TestExcerpt(t *testing.T) {
	var dump []string
	for i := range 40 {
		dump = append(dump, fmt.Sprintf("\tframe %d", i))
	}
	tests := []struct {
		out, want string
	}{
		{"goos: linux\nBenchmarkX\n    x_test.go:9: boom\n--- FAIL: BenchmarkX\nFAIL\n",
			"BenchmarkX\n    x_test.go:9: boom\n--- FAIL: BenchmarkX\nFAIL"},
		{"a\nb\nc\nd\ne\nf\n", "c\nd\ne\nf"},
		{"BenchmarkX\npanic: test timed out after 1s\n\trunning tests:\n\n" + strings.Join(dump, "\n") + "\n",
			"panic: test timed out after 1s\n\trunning tests:\n\n\tframe 0"},
	}
	for _, tt := range tests {
		if got := excerpt([]byte(tt.out), 4); got != tt.want {
			t.Errorf("excerpt(%q, 4) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// TestRunBinCache checks that a second run with the same BinCache reuses
// each commit's test binary instead of building it again, and that a run
// of another pair builds only the commit it has not seen.
func TestRunBinCache(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	mid := r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	head := r.commit("sum: a comment", "sum/sum.go", sumFastGo+"\n// Done.\n")
	cache := t.TempDir()
	opts := Options{Dir: r.dir, Count: 1, Benchtime: "1x", Base: base, Head: mid, BinCache: cache}
	first, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Run.Build == 0 {
		t.Fatalf("the first run built nothing")
	}
	bins, _ := filepath.Glob(filepath.Join(cache, "*", "*.test"))
	if len(bins) != 2 {
		t.Fatalf("cache holds %q, want a binary for each of the two commits", bins)
	}
	again, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run.Build != 0 {
		t.Errorf("the second run built for %v, want no build", again.Run.Build)
	}
	opts.Base, opts.Head = base, head
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if bins, _ := filepath.Glob(filepath.Join(cache, "*", "*.test")); len(bins) != 3 {
		t.Errorf("cache holds %q, want 3 binaries", bins)
	}
	if tmps, _ := filepath.Glob(filepath.Join(cache, "*", "*.tmp")); len(tmps) > 0 {
		t.Errorf("cache holds half-written binaries %q", tmps)
	}
}

// TestRunSingle runs one commit alone, as track records a history: its
// benchmarks run Count times, the old side never, and every row is the
// commit's own.
func TestRunSingle(t *testing.T) {
	r := newTestRepo(t)
	r.commit("sum: add", "sum/sum.go", sumGo, "sum/sum_test.go", sumTestGo)
	head := r.commit("sum: closed form", "sum/sum.go", sumFastGo)
	res, err := Run(context.Background(), Options{Dir: r.dir, Count: 3, Benchtime: "1x", Head: head, Single: true, Packages: []string{"./sum"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Run.Single || res.Head.Commit != head {
		t.Errorf("run info %+v, head %s: want a single run of %s", res.Run, res.Head.Commit, head)
	}
	rows := 0
	for _, tb := range res.Tables {
		for _, row := range tb.Rows {
			rows++
			if row.Old != nil || row.New == nil || row.New.N != 3 {
				t.Errorf("%s %s: old %+v new %+v, want the new side alone with 3 runs", tb.Unit, row.Name, row.Old, row.New)
			}
		}
	}
	if rows == 0 {
		t.Fatal("no rows")
	}
}
