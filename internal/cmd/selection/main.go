// Selection measures what bench's selection saves on a real history: for
// each of a repository's last first-parent commits, against its parent,
// which benchmarks 'patchbot bench' runs when no package is named (the
// packages whose test binaries differ, and in them the benchmarks that
// reach a changed function), against every benchmark of the module
// (-select all). Each side runs once (-benchtime 1x), which is enough to
// know which rows a run has; at any settings a row costs the same runs,
// so the share of rows left out is the share of benchmark time saved.
//
// Usage:
//
//	selection [-n N] DIR
//
// It is how docs/bench.md's figures on codec's and third-party histories
// were made. It runs the benchmarks of the history's code, unsandboxed:
// point it at code you trust.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/patchbot/patchbot/step/benchrun"
)

func main() {
	n := flag.Int("n", 20, "the last `N` first-parent commits")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: selection [-n N] DIR")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	out, err := exec.Command("git", "-C", dir, "log", "--first-parent", "--format=%H %s", fmt.Sprintf("-%d", *n)).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "git log:", err)
		os.Exit(1)
	}
	var sel, all, commits, none int
	var selectWall time.Duration
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		hash, subject, _ := strings.Cut(line, " ")
		o := benchrun.Options{Dir: dir, Base: hash + "^", Head: hash, Count: 1, Benchtime: "1x"}
		res, err := benchrun.Run(context.Background(), o)
		if err != nil {
			fmt.Printf("%.12s %-50.50s skipped: %s\n", hash, subject, firstLine(err.Error()))
			continue
		}
		o.SelectAll = true
		full, err := benchrun.Run(context.Background(), o)
		if err != nil {
			fmt.Printf("%.12s %-50.50s skipped (-select all): %s\n", hash, subject, firstLine(err.Error()))
			continue
		}
		s, a := rows(res), rows(full)
		commits++
		sel += s
		all += a
		selectWall += res.Run.Wall - res.Run.BenchTime
		if s == 0 {
			none++
		}
		fmt.Printf("%.12s %-50.50s %3d of %3d rows  %s\n", hash, subject, s, a, res.Run.Selection)
	}
	if all == 0 {
		fmt.Println("no rows")
		return
	}
	fmt.Printf("\n%d commits: %d of %d rows run (%.0f%% of benchmark time saved); %d commits ran nothing; selection (checkouts, builds, call graph) %v a commit on average\n",
		commits, sel, all, 100*float64(all-sel)/float64(all), none, (selectWall / time.Duration(max(commits, 1))).Round(100*time.Millisecond))
}

// rows returns the number of time rows a result compared or ran.
func rows(r *benchrun.Result) int {
	n := 0
	for _, t := range r.Tables {
		if t.Unit == "sec/op" {
			n += len(t.Rows)
		}
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
