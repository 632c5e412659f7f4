package benchrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/verdict"
)

// Options says what Run benchmarks and how. The zero value benchmarks the
// packages touched by the last commit of the repository in the current
// directory, 10 runs per side, interleaved.
type Options struct {
	Dir  string // a directory in the repository, where the Go module is; "" means "."
	Base string // the old revision; "" means "HEAD^", HEAD's first parent
	Head string // the new revision; "" means "HEAD"

	// Packages are 'go list' patterns, relative to the module ("./codec",
	// "./..."). When empty, Run takes the packages with benchmarks that
	// the change from Base to Head affects, and of those the benchmarks
	// it can reach (Selection); with SelectAll, every package of the
	// module with benchmarks, and all of them.
	Packages  []string
	SelectAll bool

	Bench     string        // -test.bench regexp; "" means "."
	Count     int           // runs per side; 0 means 10
	Benchtime string        // -test.benchtime, as go test takes it; "" for its default
	CPU       string        // -test.cpu list; "" for its default
	Timeout   time.Duration // how long one run may take before it is killed; 0 means 10 minutes
	Order     Order         // "" means Interleaved
	Seed      uint64        // seed of the Shuffled order; 0 picks one, which the result records

	// OutDir, when set, keeps each side's raw results there, as old.txt
	// and new.txt in Go benchmark format, for benchstat and the like.
	OutDir string

	// Progress, when set, receives a progress line rewritten in place
	// (with \r): set it only when it is a terminal.
	Progress io.Writer

	// Compare holds the statistical settings; nil means benchstat's.
	Compare *CompareOptions

	// AA runs an A/A comparison: Head on both sides, one test binary per
	// package run as the old side and as the new, so that every change
	// flagged is a false alarm. Base is then ignored.
	AA bool

	// Single runs Head alone, Count times, and compares nothing: every
	// row of the result is Head's (its benchmarks are "added"), its
	// summary in Row.New. It is how a history is recorded, one commit
	// at a time (step/track's first commit). Base and Plan are then ignored.
	Single bool

	// Plan, when set, makes the comparison sequential (-count auto):
	// rounds of runs up to each of Plan.Looks, after each a verdict on
	// every benchmark it can decide (step/verdict), and the next round
	// only for those still undecided. Count is then ignored.
	Plan *verdict.Plan

	// Runner runs every process Run starts ('go list', 'go test -c',
	// each run of a test binary); nil means Direct. A sandbox goes here.
	Runner Runner

	// Split, when set, makes Run stop once it knows what it would run:
	// the packages, each with its -test.bench after the selection
	// (RunInfo.Parts), and the selection itself; nothing is run, and
	// the result has no tables. A server splits a comparison of several
	// packages into one job a package, each Run on its own part
	// (Packages and Bench from the part, Selected from the split).
	Split bool

	// Selected is the selection a Split made, for a Run of one of its
	// parts: the result says it (RunInfo.Selection) as if this Run had
	// selected.
	Selected *Selection

	// BinCache, when set, is a directory that keeps the test binaries
	// Run builds, by commit and package, for the next Run on the same
	// repository with the same settings to reuse: a bisection compares
	// its good commit with every step's. Run does not remove it.
	BinCache string
}

// DefaultCount is the default number of runs per side: enough for
// benchmath's 95% interval (6) and for the U test to see a change at 0.05
// (4), with room for noise.
const DefaultCount = 10

const defaultTimeout = 10 * time.Minute

var sideNames = [2]string{"old", "new"}

// A SideError is one side's failure: its files could not be written, it
// does not build (the message carries the compiler's output), or its
// benchmarks' processes failed. A caller that compares many revisions
// with one (track, against its reference) tells by Side whose it is.
type SideError struct {
	Side int // 0 for the old side (Base), 1 for the new (Head)
	Err  error
}

func (e *SideError) Error() string { return e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

func sideErrorf(side int, format string, args ...any) error {
	return &SideError{side, fmt.Errorf(format, args...)}
}

// Run benchmarks the two revisions and compares them.
//
// Each side is written out of Git into a temporary directory, each
// package's test binary is built once per side with 'go test -c', and
// then the binaries run Count times per side, each run a fresh process
// (-test.count=1), in the order opts.Order gives. Every process, 'go list'
// and 'go test -c' too, runs through opts.Runner, with an environment
// that holds no credential. Run removes its temporary files when it
// returns, also when ctx is cancelled, which kills the running benchmark
// and every process it started.
//
// A side that does not build is a *SideError naming the side and carrying
// the compiler's output. A benchmark that fails on some runs is not: it is
// listed in the result's Failures and the rest is still compared. One that
// skips itself, or prints no result line that can be read, is listed in
// the result's Omitted: every benchmark that ran is in the result.
func Run(ctx context.Context, opts Options) (res *Result, err error) {
	start := time.Now()
	o := opts
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Head == "" {
		o.Head = "HEAD"
	}
	if o.AA || o.Single {
		o.Base = o.Head
	}
	if o.Single {
		o.Plan = nil
	}
	if o.Base == "" {
		o.Base = "HEAD^"
	}
	if o.Bench == "" {
		o.Bench = "."
	}
	if o.Count <= 0 {
		o.Count = DefaultCount
	}
	if o.Plan != nil {
		if err := o.Plan.Validate(); err != nil {
			return nil, err
		}
		o.Count = o.Plan.Looks[len(o.Plan.Looks)-1]
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.Order == "" {
		o.Order = Interleaved
	}
	if _, err := ParseOrder(string(o.Order)); err != nil {
		return nil, err
	}
	if o.Order == Shuffled && o.Seed == 0 {
		// Below 2^53, so that the seed in the JSON survives readers
		// that hold numbers as float64.
		o.Seed = rand.Uint64N(1 << 53)
	}

	if o.OutDir != "" {
		// Now, not after an hour of benchmarks.
		if err := os.MkdirAll(o.OutDir, 0o777); err != nil {
			return nil, fmt.Errorf("keeping the raw results: %v", err)
		}
	}

	r, err := openRepo(o.Dir)
	if err != nil {
		return nil, err
	}
	base, err := r.resolve("base", o.Base)
	if err != nil {
		return nil, err
	}
	head, err := r.resolve("head", o.Head)
	if err != nil {
		return nil, err
	}

	tmp, err := MkdirTemp("run")
	if err != nil {
		return nil, err
	}
	defer func() {
		if rmErr := os.RemoveAll(tmp); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	// relPaths rewrites this run's temporary paths in what it reports
	// (errors, a failure's output, a panic's trace): a side's files
	// relative to its checkout, as the change names them, and the rest
	// under $WORK, as go build -x names its own. The directory is gone
	// when Run returns, and a review reply must not publish the server's
	// paths.
	relPaths := strings.NewReplacer(
		filepath.Join(tmp, sideNames[0])+string(filepath.Separator), "",
		filepath.Join(tmp, sideNames[1])+string(filepath.Separator), "",
		tmp, "$WORK",
	)
	// The temporary directory of the processes Run starts (benchEnv),
	// and the test binaries' directory, apart from the checkouts so that
	// a build writes in neither.
	pr := &procs{runner: o.Runner, tmp: filepath.Join(tmp, "tmp")}
	if pr.runner == nil {
		pr.runner = RunnerFunc(Direct)
	}
	binDir := filepath.Join(tmp, "bin")
	for _, d := range []string{pr.tmp, binDir} {
		if err := os.Mkdir(d, 0o777); err != nil {
			return nil, err
		}
	}
	pr.env = benchEnv(pr.tmp)

	revs := [2]string{o.Base, o.Head}
	commits := [2]string{base.Hash.String(), head.Hash.String()}
	var modDirs [2]string
	for side, c := range []*object.Commit{base, head} {
		dir := filepath.Join(tmp, sideNames[side])
		if err := os.Mkdir(dir, 0o777); err != nil {
			return nil, err
		}
		pr.trees[side] = dir
		if err := writeTree(ctx, c, dir); err != nil {
			if ctx.Err() != nil {
				return nil, interrupted(ctx)
			}
			return nil, &SideError{side, fmt.Errorf("%s side (%s): writing its files: %v", sideNames[side], revs[side], err)}
		}
		modDirs[side] = filepath.Join(dir, filepath.FromSlash(r.modRel))
	}

	// Which packages: those named, else those the change affects
	// (Selection), else, for a run of Head alone or against itself, those
	// Head touched.
	patterns := o.Packages
	explicit := len(patterns) > 0
	selecting := !explicit && !o.AA && !o.Single && !o.SelectAll
	var changed []string
	var outside bool
	switch {
	case !explicit && o.SelectAll && !o.AA && !o.Single:
		patterns = []string{"./..."}
	case selecting:
		patterns = []string{"./..."}
		if changed, outside, err = r.changedFiles(base, head); err != nil {
			return nil, fmt.Errorf("diff %s..%s: %v", o.Base, o.Head, err)
		}
	case !explicit:
		// Both sides are Head: the packages Head itself touched.
		from, err := r.resolve("base", o.Head+"^")
		if err != nil {
			what := "an A/A run"
			if o.Single {
				what = "a run"
			}
			return nil, &NoBenchmarksError{fmt.Sprintf("%s of %s, which has no parent to say which packages it touched: name the packages to benchmark with {bench.packages}", what, o.Head)}
		}
		dirs, err := r.touchedDirs(from, head)
		if err != nil {
			return nil, fmt.Errorf("diff %s^..%s: %v", o.Head, o.Head, err)
		}
		for _, d := range dirs {
			if goFiles(filepath.Join(modDirs[1], filepath.FromSlash(d))) {
				patterns = append(patterns, "./"+d)
			}
		}
		if len(patterns) == 0 {
			return nil, &NoBenchmarksError{fmt.Sprintf("no Go package of the module changed in %s; name the packages to benchmark with {bench.packages}", o.Head)}
		}
	}
	headRev := o.Head
	if headRev == commits[1] {
		headRev = abbrev.Hash(headRev)
	}
	if explicit {
		if err := checkPatterns(modDirs[1], patterns, headRev); err != nil {
			return nil, err
		}
	}
	pkgs, skipped, err := listPackages(ctx, pr, modDirs[1], patterns, !explicit && !o.AA && !o.Single)
	if ctx.Err() != nil {
		return nil, interrupted(ctx)
	}
	if pe, ok := errors.AsType[*PackageError](err); ok {
		pe.Rev = headRev
		return nil, pe
	}
	if err != nil {
		return nil, fmt.Errorf("new side (%s): %s", o.Head, relPaths.Replace(err.Error()))
	}
	info := &RunInfo{
		Bench: o.Bench, Count: o.Count, Benchtime: o.Benchtime, CPU: o.CPU,
		Order: o.Order,
	}
	if o.Plan != nil {
		info.Looks, info.Margin, info.MarginMax = o.Plan.Looks, o.Plan.Margin, max(o.Plan.Margin, o.Plan.MarginMax)
	}
	info.AA, info.Single = o.AA, o.Single
	if iso, ok := o.Runner.(Isolator); ok {
		info.Isolation = iso.Isolation()
	}
	if o.Order == Shuffled {
		info.Seed = o.Seed
	}
	if !selecting {
		for _, p := range skipped {
			info.Skipped = append(info.Skipped, p.importPath)
		}
	}
	if len(pkgs) == 0 {
		if explicit {
			return nil, &NoBenchmarksError{fmt.Sprintf("no benchmarks in %s at %s; {bench.packages} must name packages with Benchmark functions", strings.Join(patterns, " "), o.Head)}
		}
		if !selecting {
			return nil, &NoBenchmarksError{fmt.Sprintf("no package %s touched has benchmarks (touched: %s); name the packages to benchmark with {bench.packages}", o.Head, strings.Join(patterns, " "))}
		}
	}

	if o.Split && !selecting {
		// Named packages, or Head's own: nothing to build to know them.
		for _, p := range pkgs {
			info.Packages = append(info.Packages, p.importPath)
			info.Parts = append(info.Parts, Part{Package: p.importPath, Dir: p.rel, Bench: o.Bench})
		}
		return splitResult(info, start, o, revs, commits), nil
	}

	sides := 2
	if o.Single {
		sides = 1
	}
	prog := newProgress(o.Progress, len(pkgs)*sides*o.Count)
	defer prog.done()

	// Build once per side and package. A package that the old side lacks
	// (the head adds it) or that has no test files there (the head adds
	// its first benchmarks) gets no binary: its benchmarks are all "added".
	var bins [2][]string
	var buildErrs [2][]string // when selecting: each side's build failures, to judge once both are built
	for side := range 2 {
		bins[side] = make([]string, len(pkgs))
		buildErrs[side] = make([]string, len(pkgs))
		if (o.AA || o.Single) && side == 0 {
			continue // the new side's binaries serve both, or it runs alone
		}
		for i, p := range pkgs {
			if !goFiles(filepath.Join(modDirs[side], filepath.FromSlash(p.rel))) {
				continue
			}
			bin := filepath.Join(binDir, fmt.Sprintf("%s-%d.test", sideNames[side], i))
			cached := ""
			if o.BinCache != "" {
				cached = cachedBin(o.BinCache, commits[side], p.importPath)
				if _, err := os.Stat(cached); err == nil {
					bins[side][i] = cached
					continue
				}
			}
			prog.building(sideNames[side], p.rel)
			t0 := time.Now()
			built, err := buildTest(ctx, pr, side, modDirs[side], p, bin)
			info.Build += time.Since(t0)
			if ctx.Err() != nil {
				return nil, interrupted(ctx)
			}
			var failed *buildError
			if errors.As(err, &failed) && selecting {
				// Whether the change broke it is known once both
				// sides are built.
				buildErrs[side][i] = relPaths.Replace(failed.out)
				continue
			}
			if errors.As(err, &failed) {
				return nil, sideErrorf(side, "%s side (%s, %s): %s does not build; fix it or pick another revision:\n%s",
					sideNames[side], revs[side], abbrev.Hash(commits[side]), p.rel, relPaths.Replace(err.Error()))
			}
			if err != nil {
				return nil, sideErrorf(side, "%s side (%s, %s): building %s: %s", sideNames[side], revs[side], abbrev.Hash(commits[side]), p.rel, relPaths.Replace(err.Error()))
			}
			if built {
				bins[side][i] = bin
				if cached != "" {
					if err := keepBin(bin, cached); err != nil {
						return nil, fmt.Errorf("keeping the test binary of %s at %s: %v", p.rel, abbrev.Hash(commits[side]), err)
					}
					bins[side][i] = cached
				}
			}
		}
	}

	if o.AA {
		copy(bins[0], bins[1])
	}
	// Each package's -test.bench: o.Bench, narrowed to the benchmarks a
	// change reaches, then, in a sequential comparison, to those not
	// decided yet; "" when none is left.
	benches := make([]string, len(pkgs))
	for i := range benches {
		benches[i] = o.Bench
	}
	if selecting {
		sel, keep, err := selectAffected(pkgs, bins, buildErrs, changed, modDirs[1])
		if err != nil {
			return nil, err
		}
		if err := buildFailure(pkgs, buildErrs, revs, commits); err != nil {
			return nil, err
		}
		if len(pkgs) > 0 {
			sel.Module = modulePath(pkgs[0])
			if err := narrowByReach(ctx, sel, pkgs, keep, benches, modDirs, changed, outside, modulePath(pkgs[0]), pr.goEnv()); err != nil {
				if ctx.Err() != nil {
					return nil, interrupted(ctx)
				}
				return nil, fmt.Errorf("selecting the benchmarks: %v", err)
			}
			for i := range sel.Packages {
				sel.Packages[i].All = relPaths.Replace(sel.Packages[i].All)
			}
		}
		info.Selection = sel
		pkgs = filterIndex(pkgs, keep)
		benches = filterIndex(benches, keep)
		for side := range 2 {
			bins[side] = filterIndex(bins[side], keep)
		}
	}
	for _, p := range pkgs {
		info.Packages = append(info.Packages, p.importPath)
	}
	if o.Split {
		for i, p := range pkgs {
			info.Parts = append(info.Parts, Part{Package: p.importPath, Dir: p.rel, Bench: benches[i]})
		}
		prog.done()
		return splitResult(info, start, o, revs, commits), nil
	}
	if o.Selected != nil && info.Selection == nil {
		info.Selection = o.Selected
	}
	prog.total = len(pkgs) * sides * o.Count
	if len(pkgs) == 0 {
		// Nothing the change did can show in a benchmark: an answer,
		// with no runs.
		prog.done()
		info.Wall = time.Since(start)
		res := &Result{Run: info, Tables: []*Table{}}
		res.setDefaults(o.Compare)
		for side, s := range []*Side{&res.Base, &res.Head} {
			s.Label, s.Revision, s.Commit = revs[side], revs[side], commits[side]
		}
		return res, nil
	}

	// No -test.timeout: the testing package stops its alarm before it
	// runs benchmarks, so runBinary enforces o.Timeout itself.
	flags := func(bench string) []string {
		args := append(slices.Clone(testFlags), "-test.run=^$", "-test.bench="+bench, "-test.benchmem", "-test.count=1")
		if o.Benchtime != "" {
			args = append(args, "-test.benchtime="+o.Benchtime)
		}
		if o.CPU != "" {
			args = append(args, "-test.cpu="+o.CPU)
		}
		return args
	}

	var raw [2]*rawWriter
	for side := range 2 {
		raw[side] = newRawWriter(commits[side])
	}
	// One Failure a side and package, however many of its runs failed.
	type where struct{ side, pkg int }
	failures := make(map[where]*Failure)
	var failOrder []where
	omitted := newOmissions()
	looks := []int{o.Count}
	if o.Plan != nil {
		looks = o.Plan.Looks
	}
	seq := &sequence{plan: o.Plan, paired: o.Order == Interleaved, decided: map[benchKey]verdict.Decision{}}
	done, ran := 0, 0 // rounds done; runs made, for the progress line
	for look, n := range looks {
		for _, j := range scheduleFrom(o.Order, done, n-done, len(pkgs), o.Seed) {
			bin := bins[j.side][j.pkg]
			if bin == "" || benches[j.pkg] == "" {
				continue
			}
			p := pkgs[j.pkg]
			prog.run(ran, sideNames[j.side], p.rel)
			ran++
			t0 := time.Now()
			out := newRunReader()
			runErr := runBinary(ctx, pr, j.side, p, bin, filepath.Join(modDirs[j.side], filepath.FromSlash(p.rel)), flags(benches[j.pkg]), o.Timeout, out)
			info.BenchTime += time.Since(t0)
			if ctx.Err() != nil {
				// Which benchmark the time ran out in: the one a
				// job's limit stopped is the one to look at.
				where := fmt.Sprintf("%s, %s side, run %d", p.rel, sideNames[j.side], j.round+1)
				if b := out.running(); b != "" {
					where = b + " of " + where
				}
				return nil, fmt.Errorf("interrupted (%v) while running %s; temporary files removed", context.Cause(ctx), where)
			}
			if runErr != nil && !ranAndFailed(runErr) {
				return nil, sideErrorf(j.side, "%s side (%s, %s): running the benchmarks of %s: %s", sideNames[j.side], revs[j.side], abbrev.Hash(commits[j.side]), p.rel, relPaths.Replace(runErr.Error()))
			}
			raw[j.side].add(out.results)
			seq.add(j.side, j.round, p.importPath, out.results)
			if runErr == nil && out.failed {
				runErr = errors.New("a benchmark failed")
			}
			if runErr != nil {
				w := where{j.side, j.pkg}
				f := failures[w]
				if f == nil {
					f = &Failure{Side: sideNames[j.side], Package: p.importPath, Error: relPaths.Replace(runErr.Error()), Tail: relPaths.Replace(out.ex.String())}
					failures[w] = f
					failOrder = append(failOrder, w)
				}
				f.Runs++
			}
			for _, om := range out.omissions(runErr != nil) {
				om.Side, om.Package = sideNames[j.side], p.importPath
				omitted.add(om)
			}
		}
		done = n
		if o.Plan == nil {
			break
		}
		left := 0
		for i, p := range pkgs {
			benches[i] = seq.decide(p.importPath, look, o.Bench)
			if benches[i] != "" {
				left++
			}
		}
		if left == 0 {
			break
		}
		prog.total = ran + left*2*(looks[len(looks)-1]-done)
	}
	prog.done()

	var inputs [2]Input
	for side := range 2 {
		// Name is what a warning cites: the kept file, or the one
		// that would have been kept.
		name := sideNames[side] + ".txt"
		if o.OutDir != "" {
			name = filepath.Join(o.OutDir, name)
			if err := os.WriteFile(name, raw[side].buf.Bytes(), 0o666); err != nil {
				return nil, fmt.Errorf("keeping the raw results: %v", err)
			}
		}
		inputs[side] = Input{Label: revs[side], Name: name, R: bytes.NewReader(raw[side].buf.Bytes())}
	}
	res, err = Compare(inputs[0], inputs[1], o.Compare)
	if err != nil {
		if len(failOrder) > 0 {
			f := failures[failOrder[0]]
			return nil, fmt.Errorf("no benchmark results: %s side, %s: %s:\n%s", f.Side, f.Package, f.Error, f.Tail)
		}
		return nil, fmt.Errorf("%w {bench.bench} %q in %s", ErrNoMatch, o.Bench, strings.Join(info.Packages, " "))
	}
	for side, s := range []*Side{&res.Base, &res.Head} {
		s.Revision, s.Commit = revs[side], commits[side]
		if o.OutDir != "" {
			s.File = inputs[side].Name
		}
	}
	for _, j := range failOrder {
		res.Failures = append(res.Failures, failures[j])
	}
	seq.attach(res)
	// What the runs left out, then what the comparison did.
	res.Omitted = append(omitted.list, res.Omitted...)
	info.Wall = time.Since(start)
	res.Run = info
	return res, nil
}

// cachedBin returns where a BinCache keeps the test binary of the package
// importPath at commit.
func cachedBin(cache, commit, importPath string) string {
	sum := sha256.Sum256([]byte(importPath))
	return filepath.Join(cache, commit, hex.EncodeToString(sum[:8])+".test")
}

// keepBin moves the binary bin into the cache at path, whole or not at
// all: a run interrupted while it does leaves no half binary to reuse. A
// rename does it when both are on one file system (a cache under the
// temporary directory, as a bisection's); else a copy, renamed.
func keepBin(bin, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	if os.Rename(bin, path) == nil {
		return nil
	}
	tmp := path + ".tmp"
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// interrupted is Run's error when ctx is cancelled (by Ctrl-C, in the
// command).
func interrupted(ctx context.Context) error {
	return fmt.Errorf("interrupted (%v); temporary files removed", context.Cause(ctx))
}

// runBinary runs a test binary of package p, on side, in dir, through
// the Runner, with its stdout and stderr, one stream, written to out, and
// timeout as its limit.
func runBinary(ctx context.Context, pr *procs, side int, p pkg, bin, dir string, args []string, timeout time.Duration, out *runReader) error {
	// The same writer for both: the process gets one pipe for the two,
	// so their lines keep their order.
	c := pr.command(BenchCommand, side, p.importPath, dir, out, out, bin, args...)
	c.Writes = append(c.Writes, pr.trees[side])
	c.Reads = []string{bin}
	c.Timeout = timeout
	err := pr.runner.Run(ctx, c)
	out.Close()
	return err
}

// goFiles reports whether dir holds a .go file.
func goFiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(m) > 0
}

// A rawWriter collects one side's results in Go benchmark format: the
// revision on a comment line (see RevisionKey for why not as
// configuration), then the benchmark lines and the
// configuration lines of every run, each configuration line written only
// when its value changes. Test output, logs and failure messages are left
// out (runReader sorts them out); failures are reported apart.
type rawWriter struct {
	buf    bytes.Buffer
	config map[string]string
}

func newRawWriter(commit string) *rawWriter {
	w := &rawWriter{config: make(map[string]string)}
	w.buf.WriteString(revisionComment + commit + "\n")
	return w
}

// rawConfigKeys are the configuration lines a test binary prints.
var rawConfigKeys = map[string]bool{"goos": true, "goarch": true, "pkg": true, "cpu": true}

// add adds the result and configuration lines of one run.
func (w *rawWriter) add(lines []string) {
	for _, line := range lines {
		if key, val, ok := strings.Cut(line, ": "); ok && rawConfigKeys[key] {
			if w.config[key] == val {
				continue
			}
			w.config[key] = val
		}
		w.buf.WriteString(line + "\n")
	}
}

// ErrNoMatch is the error, wrapped, of a run whose benchmarks all ran and
// none gave a result: the -test.bench regexp (Options.Bench) matched none
// of them, or each one it matched skipped itself. Running again gives the
// same answer.
var ErrNoMatch = errors.New("no benchmark matched")

// A NoBenchmarksError reports that the packages to compare have no
// benchmarks: nothing ran. patchbot bench treats it as a failure (it was
// asked to compare something), patchbot run as a step with nothing to do
// (a patch that touches no benchmarked code is still a patch to review).
type NoBenchmarksError struct {
	Msg string
}

func (e *NoBenchmarksError) Error() string { return e.Msg }
