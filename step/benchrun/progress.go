package benchrun

import (
	"fmt"
	"io"
	"time"
)

// A progress shows one line, rewritten in place, while Run works: which
// run of how many, on which side and package, the time so far and the time
// left. It writes nothing when its writer is nil, which is what callers
// pass when their output is not a terminal.
type progress struct {
	w     io.Writer
	total int
	start time.Time // of the first run, for the estimate
	shown bool
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total}
}

func (p *progress) show(format string, args ...any) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K"+format, args...)
	p.shown = true
}

func (p *progress) building(side, pkg string) {
	p.show("bench: building %s %s", side, pkg)
}

// run shows that run i (from 0) is starting.
func (p *progress) run(i int, side, pkg string) {
	if p.w == nil {
		return
	}
	if i == 0 {
		p.start = time.Now()
	}
	elapsed := time.Since(p.start)
	eta := "?"
	if i > 0 {
		eta = round(elapsed * time.Duration(p.total-i) / time.Duration(i)).String()
	}
	p.show("bench: run %d of %d  %s  %s  elapsed %s  ETA %s", i+1, p.total, side, pkg, round(elapsed), eta)
}

// done clears the line.
func (p *progress) done() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }
