package benchrun

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// testFlags are the flags every run of a test binary gets before Run's
// own. -test.v=test2json is what 'go test -json' gives the binary: the
// testing package then introduces each of its own framing lines ("===
// RUN   BenchmarkX/n=10", "--- FAIL: BenchmarkX", "--- SKIP: ...", "PASS")
// with a ^V byte, and prints a benchmark's name in front of its result
// only once the benchmark has run. So a run's output tells which
// benchmarks ran, whatever they printed themselves: a benchmark that
// writes to stdout without a newline ends up in front of its own result
// line ("helloBenchmarkX-2  1000  123 ns/op") rather than between its
// name and its figures, which without -test.v made the line unreadable and
// the benchmark vanish from the report. cmd/test2json reads the same
// framing; runReader reads it as that program does (a ^V ends a line even
// in its middle), without a process of its own.
var testFlags = []string{"-test.v=test2json"}

// marker introduces the testing package's framing lines with
// -test.v=test2json.
const marker = 0x16 // ^V

// excerptLines is how many lines of a failed run's output a Failure keeps.
const excerptLines = 15

// A runReader reads the output (stdout and stderr, one stream) of one run
// of a test binary started with testFlags, as the binary writes it, in
// bounded memory: it keeps the result lines and configuration lines, which
// a side's raw results need, an excerpt of the rest for a failure, and
// which benchmarks ran without a result.
type runReader struct {
	// The line being read: at most 2*maxLine bytes of it, of which the
	// last maxLine are kept once it is longer (a result that a
	// benchmark's own output pushed to the end of a huge line is still
	// there), and its first headLen bytes in head.
	line []byte
	head []byte
	n    int64 // the line's length so far

	results []string // result, configuration and Unit lines, in order
	failed  bool     // a "--- FAIL" framing line was read
	ex      excerptor

	benches map[string]*benchRun // by full name, "BenchmarkX/n=10"
	order   []string             // the names of benches, in order of start
	last    *benchRun            // the benchmark that started last
	lastRun string               // its name
}

// A benchRun is what one run's output says of one benchmark.
type benchRun struct {
	result, sub, failed, skipped bool
	log                          string // its last log line, for a skip's reason
}

func newRunReader() *runReader {
	return &runReader{benches: make(map[string]*benchRun), ex: excerptor{n: excerptLines}}
}

// Write reads p, the next bytes of the output. It never fails.
func (r *runReader) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\n\x16")
		switch {
		case i < 0:
			r.addToLine(p)
			return n, nil
		case p[i] == '\n':
			r.addToLine(p[:i])
			r.endLine()
			p = p[i+1:]
		case r.n == 0 && i == 0:
			// A marker that begins a line is part of it.
			r.addToLine(p[:1])
			p = p[1:]
		default:
			// A marker anywhere else begins a new line.
			r.addToLine(p[:i])
			r.endLine()
			p = p[i:]
		}
	}
	return n, nil
}

// Close reads the output's last line when it has no newline.
func (r *runReader) Close() error {
	if r.n > 0 {
		r.endLine()
	}
	return nil
}

func (r *runReader) addToLine(p []byte) {
	if len(r.head) < headLen {
		r.head = append(r.head, p[:min(len(p), headLen-len(r.head))]...)
	}
	r.n += int64(len(p))
	for len(p) > 0 {
		room := 2*maxLine - len(r.line)
		if room == 0 {
			// Keep the last maxLine bytes.
			copy(r.line, r.line[maxLine:])
			r.line = r.line[:maxLine]
			room = maxLine
		}
		k := min(room, len(p))
		r.line = append(r.line, p[:k]...)
		p = p[k:]
	}
}

func (r *runReader) endLine() {
	line, cut := r.line, r.n > int64(len(r.line))
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	r.readLine(line, cut)
	r.line, r.head, r.n = r.line[:0], r.head[:0], 0
}

// readLine reads one line of the output; cut reports that it is the end of
// a longer line, whose head is r.head.
func (r *runReader) readLine(line []byte, cut bool) {
	if len(line) > 0 && line[0] == marker {
		r.readFraming(string(line[1:]))
		return
	}
	shown := string(line) // in an excerpt
	if cut {
		shown = string(r.head) + "…"
	}
	if !cut {
		if key, _, ok := strings.Cut(shown, ": "); ok && rawConfigKeys[key] {
			r.results = append(r.results, shown)
			return
		}
		if strings.HasPrefix(shown, "Unit ") {
			r.results = append(r.results, shown)
			return
		}
	}
	if b := r.resultIn(line); b != "" {
		r.results = append(r.results, b)
		return
	}
	r.ex.add(shown)
	if r.last != nil && strings.HasPrefix(shown, "    ") {
		r.last.log = truncate(strings.TrimSpace(shown), 200)
	}
}

// running returns the name of the benchmark that started last and gave
// no result, failure or skip: the one running when the process was
// stopped; "" when there is none.
func (r *runReader) running() string {
	if b := r.last; b != nil && !b.result && !b.failed && !b.skipped && !b.sub {
		return r.lastRun
	}
	return ""
}

// resultIn returns the result line at the end of line, of a benchmark
// that ran: the whole line, or what a benchmark's own output left after
// itself. It returns "" when there is none.
func (r *runReader) resultIn(line []byte) string {
	for i := 0; ; {
		j := bytes.Index(line[i:], []byte("Benchmark"))
		if j < 0 {
			return ""
		}
		i += j
		if b := r.lookup(resultName(line[i:])); b != nil {
			b.result = true
			return string(line[i:])
		}
		i += len("Benchmark")
	}
}

// resultName returns the full name of the benchmark whose result line is
// line, "BenchmarkX-2", or "" when it is not a result line.
func resultName(line []byte) string {
	rd := benchfmt.NewReader(bytes.NewReader(line), "")
	if !rd.Scan() {
		return ""
	}
	res, ok := rd.Result().(*benchfmt.Result)
	if !ok {
		return ""
	}
	return "Benchmark" + string(res.Name.Full())
}

// procsSuffix is what the testing package adds to a benchmark's name in its
// result line when GOMAXPROCS is not 1.
var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// lookup returns the benchmark that ran under name, as a framing or result
// line gives it, or nil.
func (r *runReader) lookup(name string) *benchRun {
	if name == "" {
		return nil
	}
	if b := r.benches[name]; b != nil {
		return b
	}
	return r.benches[procsSuffix.ReplaceAllString(name, "")]
}

// readFraming reads one of the testing package's framing lines (its marker
// removed).
func (r *runReader) readFraming(line string) {
	if name, ok := strings.CutPrefix(line, "=== RUN   "); ok && strings.HasPrefix(name, "Benchmark") {
		b := r.benches[name]
		if b == nil {
			b = new(benchRun)
			r.benches[name] = b
			r.order = append(r.order, name)
		}
		r.last, r.lastRun = b, name
		// Its parents have sub-benchmarks: they are not measured.
		for p := name; strings.Contains(p, "/"); {
			p = p[:strings.LastIndex(p, "/")]
			if pb := r.benches[p]; pb != nil {
				pb.sub = true
			}
		}
		return
	}
	if strings.HasPrefix(line, "=== ") {
		return // NAME, CONT, PAUSE: nothing for an excerpt
	}
	r.ex.add(line)
	if name, ok := strings.CutPrefix(line, "--- FAIL: "); ok {
		r.failed = true
		if b := r.lookup(name); b != nil {
			b.failed = true
		}
	}
	if name, ok := strings.CutPrefix(line, "--- SKIP: "); ok {
		if b := r.lookup(name); b != nil {
			b.skipped = true
		}
	}
}

// omissions returns the benchmarks that ran and left no result: those that
// skipped themselves, and, when the process did not fail (a failure is
// reported as a whole), those that printed no result line it could read.
func (r *runReader) omissions(processFailed bool) []Omission {
	var list []Omission
	for _, name := range r.order {
		b := r.benches[name]
		if b.result || b.sub || b.failed {
			continue
		}
		o := Omission{Benchmark: strings.TrimPrefix(name, "Benchmark")}
		switch {
		case b.skipped:
			o.Reason = "skipped"
			if b.log != "" {
				o.Reason += ": " + b.log
			}
		case processFailed:
			continue
		default:
			o.Reason = "ran, but printed no result line"
		}
		list = append(list, o)
	}
	return list
}

// excerpt returns what excerptor keeps of out.
func excerpt(out []byte, n int) string {
	ex := excerptor{n: n}
	for l := range strings.SplitSeq(string(out), "\n") {
		ex.add(l)
	}
	return ex.String()
}

// An excerptor keeps, of the lines it is given, at most n that say why a
// run failed: from the first "panic: " line on when there is one (its
// goroutine dump would fill the tail), else the last n, less blank lines
// at the end. It holds at most 2n lines, each cut to 1000 bytes.
type excerptor struct {
	n      int
	panic  []string // the first n lines from the first "panic: " line on
	after  bool     // a line that is not blank came after them
	last   []string // the last n lines, oldest first
	blanks int      // blank lines at the end, not yet in last
}

func (e *excerptor) add(line string) {
	line = truncate(line, 1000)
	switch {
	case e.panic == nil && strings.HasPrefix(line, "panic: "), len(e.panic) > 0 && len(e.panic) < e.n:
		e.panic = append(e.panic, line)
	case len(e.panic) > 0 && line != "":
		e.after = true
	}
	if line == "" {
		e.blanks++
		return
	}
	for ; e.blanks > 0; e.blanks-- {
		e.last = append(e.last, "")
	}
	e.last = append(e.last, line)
	if len(e.last) > e.n {
		e.last = append(e.last[:0], e.last[len(e.last)-e.n:]...)
	}
}

func (e *excerptor) String() string {
	if len(e.panic) > 0 {
		p := e.panic
		for !e.after && len(p) > 0 && p[len(p)-1] == "" {
			p = p[:len(p)-1]
		}
		return strings.Join(p, "\n")
	}
	return strings.Join(e.last, "\n")
}

// truncate cuts s to at most n bytes, ending it with "…" when it cuts.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
