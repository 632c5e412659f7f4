package benchrun

import (
	"fmt"
	"time"
)

// A Part is one package of a comparison split over several runs
// (Options.Split): what a Run on it alone runs, and no more.
type Part struct {
	Package string `json:"package"` // its import path
	Dir     string `json:"dir"`     // its directory relative to the module, "./codec": Options.Packages of its Run
	Bench   string `json:"bench"`   // its -test.bench after the selection: Options.Bench of its Run
}

// splitResult is the result of a Split run: what it would run, and how.
func splitResult(info *RunInfo, start time.Time, o Options, revs [2]string, commits [2]string) *Result {
	info.Wall = time.Since(start)
	res := &Result{Run: info, Tables: []*Table{}}
	res.setDefaults(o.Compare)
	for side, s := range []*Side{&res.Base, &res.Head} {
		s.Label, s.Revision, s.Commit = revs[side], revs[side], commits[side]
	}
	return res
}

// Merge returns the comparison of a split run whose parts' results are
// parts, in the order of their packages: their tables, failures, omissions
// and warnings one after the other, as one Run of them all would have
// given them (benchstat's tables are by package already), and the run's
// packages and times added up. The parts must compare the same two
// commits with the same settings; nil parts (a package whose run failed
// for good, reported apart) are left out. The result is new; the parts
// are not changed.
func Merge(parts []*Result) (*Result, error) {
	var out *Result
	for i, p := range parts {
		if p == nil {
			continue
		}
		if out == nil {
			c := *p
			c.Tables, c.Failures, c.Omitted, c.Warnings = nil, nil, nil, nil
			if p.Run != nil {
				run := *p.Run
				run.Packages, run.Skipped, run.Parts = nil, nil, nil
				run.Wall, run.Build, run.BenchTime = 0, 0, 0
				c.Run = &run
			}
			out = &c
		}
		if p.Base.Commit != out.Base.Commit || p.Head.Commit != out.Head.Commit {
			return nil, fmt.Errorf("part %d compares %s with %s, not %s with %s as the others", i, p.Base.Commit, p.Head.Commit, out.Base.Commit, out.Head.Commit)
		}
		out.Tables = append(out.Tables, p.Tables...)
		out.Failures = append(out.Failures, p.Failures...)
		out.Omitted = append(out.Omitted, p.Omitted...)
		out.Warnings = append(out.Warnings, p.Warnings...)
		if p.Run != nil && out.Run != nil {
			out.Run.Packages = append(out.Run.Packages, p.Run.Packages...)
			out.Run.Skipped = append(out.Run.Skipped, p.Run.Skipped...)
			out.Run.Wall += p.Run.Wall
			out.Run.Build += p.Run.Build
			out.Run.BenchTime += p.Run.BenchTime
		}
	}
	if out == nil {
		return nil, fmt.Errorf("no part has a result")
	}
	if out.Tables == nil {
		out.Tables = []*Table{}
	}
	return out, nil
}
