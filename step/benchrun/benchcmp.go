package benchrun

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"

	"github.com/patchbot/patchbot/internal/escape"
)

// writeBenchcmp writes r in the layout of cmd/benchcmp, the tool the Go
// project used before benchstat: one block per unit, with old, new and the
// delta (or the speedup, for MB/s). The figures are medians, and a "~"
// follows a delta that is not significant. benchcmp's columns stay as
// they were; under each table a line names its spread (spreadNote), which
// the review formats show on every row.
func writeBenchcmp(w io.Writer, r *Result) error {
	bw := &errWriter{w: w}
	if nothingRan(r) {
		bw.printf("%s\n", noneAffected(r, func(s string) string { return s }))
	}
	groups := groupTables(r.Tables)
	for gi, g := range groups {
		if len(groups) > 1 {
			if gi > 0 {
				bw.printf("\n")
			}
			for _, c := range g.header {
				bw.printf("%s: %s\n", c.Key, c.Value)
			}
		}
		for ti, t := range g.tables {
			if ti > 0 {
				bw.printf("\n")
			}
			v := viewOf(t)
			tw := tabwriter.NewWriter(bw, 0, 0, 5, ' ', 0)
			fmt.Fprintf(tw, "benchmark\told %s\tnew %s\t%s\n", v.name, v.name, v.deltaName)
			for _, row := range t.Rows {
				if row.Compare == nil {
					continue
				}
				d := v.delta(row.Old.Center, row.New.Center)
				switch {
				case row.Compare.Decision != nil:
					d += " " + row.Compare.Decision.Verdict
				case !row.Compare.Significant:
					d += " ~"
				}
				fmt.Fprintf(tw, "Benchmark%s\t%s\t%s\t%s\n", row.Name, v.format(row.Old.Center), v.format(row.New.Center), d)
			}
			tw.Flush()
			if note := spreadNote(t); note != "" {
				bw.printf("%s\n", note)
			}
		}
	}
	notes(bw, r, Benchcmp)
	return bw.err
}

// notes writes what follows every text table of format f (Benchcmp,
// Markdown or Gerrit): benchmarks on one side only, failures with their
// output indented, what was omitted, warnings and the key to "~". In
// Markdown, which joins lines, each note is a list item and each failure's
// output a code block inside it. What came from the benchmarks is escaped
// for a review (internal/escape): in Gerrit each line of a failure's
// output too, which Gerrit may link even when preformatted.
func notes(bw *errWriter, r *Result, f Format) {
	md := f == Markdown
	// text is what came from the benchmarks, escaped for a review.
	text := func(s string) string { return s }
	switch f {
	case Markdown:
		text = escape.Markdown
	case Gerrit:
		text = escape.Gerrit
	}
	texts := func(list []string) string {
		var out []string
		for _, s := range list {
			out = append(out, text(s))
		}
		return strings.Join(out, ", ")
	}
	var items []string
	added, removed := addedRemoved(r)
	if len(added) > 0 {
		items = append(items, "added (new only): "+texts(added))
	}
	if len(removed) > 0 {
		items = append(items, "removed (old only): "+texts(removed))
	}
	for _, fl := range r.Failures {
		item := fmt.Sprintf("FAIL %s %s: %s (%d of its runs)", text(fl.Side), text(fl.Package), text(fl.Error), fl.Runs)
		indent := "    "
		// A lone CR ends a line in Markdown (and on a terminal it
		// rewrites one): every line break is a LF here.
		tail := strings.ReplaceAll(strings.ReplaceAll(fl.Tail, "\r\n", "\n"), "\r", "\n")
		tail = escape.NoBidi(tail) // shown as it is in a code block
		fence := ""
		if md {
			indent = "  " // inside the list item
			fence = escape.MarkdownFence(tail)
			item += "\n  " + fence
		}
		for l := range strings.SplitSeq(strings.TrimRight(tail, "\n"), "\n") {
			if f == Gerrit {
				l = text(l)
			}
			item += "\n" + indent + l
		}
		if md {
			item += "\n  " + fence
		}
		items = append(items, item)
	}
	for _, o := range r.Omitted {
		items = append(items, "omitted "+text(o.String()))
	}
	for _, warning := range warnings(r) {
		items = append(items, "warning: "+text(warning))
	}
	if r.Run != nil && r.Run.Selection != nil {
		if s := r.Run.Selection.String(); s != "" {
			items = append(items, text(s))
		}
	}
	if r.Run != nil && len(r.Run.Packages) > 0 {
		items = append(items, text(r.Run.Isolation.String()))
	}
	if aa := aaNote(r); aa != "" {
		items = append(items, aa)
	}
	if k := key(r, f); k != "" {
		items = append(items, k)
	}
	if len(items) > 0 {
		bw.printf("\n")
	}
	for _, item := range items {
		if md {
			bw.printf("- ")
		}
		bw.printf("%s\n", item)
	}
}

// aaNote returns the note of an A/A run (RunInfo.AA): how many time rows
// were flagged, each one a false alarm.
func aaNote(r *Result) string {
	if r.Run == nil || !r.Run.AA {
		return ""
	}
	rows, flagged := 0, 0
	for _, t := range r.Tables {
		if t.Unit != "sec/op" {
			continue
		}
		for _, row := range t.Rows {
			if row.Compare != nil {
				rows++
				if row.Compare.Significant {
					flagged++
				}
			}
		}
	}
	if rows == 0 {
		return ""
	}
	noun := "rows"
	if rows == 1 {
		noun = "row"
	}
	return fmt.Sprintf("A/A: one binary on both sides, so every change flagged is a false alarm: %d of %d time %s flagged (%.1f%%)",
		flagged, rows, noun, 100*float64(flagged)/float64(rows))
}

// key explains the "~" and the figures, when there is a comparison, and
// in benchcmp the spread line under each table.
func key(r *Result, f Format) string {
	n := runsPerSide(r)
	if n == "" {
		return ""
	}
	k := fmt.Sprintf("~ not significant: p > %v (Mann-Whitney U test); figures are medians of %s runs", r.Alpha, n)
	if r.Run != nil && len(r.Run.Looks) > 0 {
		// Time and throughput rows say a verdict; the rest keep "~".
		widest := max(r.Run.Margin, r.Run.MarginMax)
		k = fmt.Sprintf("-count auto: each benchmark ran until its time was decided, %d to %d runs a side (figures are medians of %s); "+
			"faster or slower: its %s interval excludes no change; same within ±X: the interval lies within ±X (at most ±%g%%); undecided: too noisy here to bound within ±%g%%. "+
			"Other units: ~ not significant, p > %v (Mann-Whitney U test)",
			r.Run.Looks[0], r.Run.Looks[len(r.Run.Looks)-1], n, levelOf(r), 100*widest, 100*widest, r.Alpha)
	}
	if f == Benchcmp && hasSpreadNote(r) {
		k += "; ± is the 95% confidence interval of a median, as a share of it"
	}
	return k
}

// spreadNote returns the line under a benchcmp table that says how far its
// figures can be trusted, which benchcmp's columns do not: the median over
// the rows of each side's ± (benchstat's: the 95% confidence interval of
// the median, as a share of it), and the widest row's. Without it a
// reviewer reads "+23.57% ~" with no way to tell a noisy machine from a
// close call. The widest row is named when it is wider than both medians.
// It returns "" for a table whose every run gave the same figure
// (allocations, bytes), which has no spread to name.
func spreadNote(t *Table) string {
	var olds, news []float64
	widest, widestName, widestSide := -1.0, "", ""
	for _, row := range t.Rows {
		if row.Compare == nil {
			continue
		}
		for _, side := range []struct {
			s    *Summary
			name string
			list *[]float64
		}{{row.Old, "old", &olds}, {row.New, "new", &news}} {
			p, ok := spread(side.s)
			if !ok {
				continue
			}
			*side.list = append(*side.list, p)
			if p > widest {
				widest, widestName, widestSide = p, row.Name, side.name
			}
		}
	}
	if widest <= 0 || len(olds) == 0 || len(news) == 0 {
		return ""
	}
	mo, mn := medianFinite(olds), medianFinite(news)
	note := fmt.Sprintf("spread: old ± %s, new ± %s (median of rows)", pct(mo), pct(mn))
	if pct(widest) != pct(max(mo, mn)) {
		note += fmt.Sprintf("; widest: Benchmark%s %s ± %s", widestName, widestSide, pct(widest))
	}
	return note
}

// hasSpreadNote reports whether any benchcmp table of r has a spread line.
func hasSpreadNote(r *Result) bool {
	for _, g := range groupTables(r.Tables) {
		for _, t := range g.tables {
			if spreadNote(t) != "" {
				return true
			}
		}
	}
	return false
}

// spread returns s's ± as a fraction of its center, as benchmath's
// PctRangeString computes it, but 0 for runs that all gave one figure:
// +Inf when too few runs bound the median, and
// false when the interval crosses zero, which has no share to give.
func spread(s *Summary) (float64, bool) {
	if len(s.Values) > 0 && slices.Min(s.Values) == slices.Max(s.Values) {
		return 0, true // every run the same: exact, however few
	}
	b := s.summary()
	if math.IsInf(b.Lo, 0) || math.IsInf(b.Hi, 0) {
		return math.Inf(1), true
	}
	if math.Signbit(b.Center) != math.Signbit(b.Lo) || math.Signbit(b.Center) != math.Signbit(b.Hi) {
		return 0, false
	}
	if b.Center == 0 {
		return 0, true
	}
	return math.Max(b.Hi/b.Center-1, 1-b.Lo/b.Center), true
}

// pct formats a spread as benchstat does ("45%", "∞").
func pct(x float64) string {
	if math.IsInf(x, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// medianFinite returns the median of the finite values of xs (a row of too
// few runs has an infinite spread, which says nothing of the others'), or
// +Inf when none is.
func medianFinite(xs []float64) float64 {
	var fin []float64
	for _, x := range xs {
		if !math.IsInf(x, 1) {
			fin = append(fin, x)
		}
	}
	if len(fin) == 0 {
		return math.Inf(1)
	}
	return median(fin)
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// levelOf returns the level of the decisions' intervals in r, as "99.2%".
func levelOf(r *Result) string {
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			if row.Compare != nil && row.Compare.Decision != nil {
				return strconv.FormatFloat(100*row.Compare.Decision.Level, 'f', 1, 64) + "%"
			}
		}
	}
	return "repeated 95%"
}

// runsPerSide returns "10" when every sample has 10 values, "6 to 10" when
// they vary, and "" when nothing was compared.
func runsPerSide(r *Result) string {
	lo, hi := 0, 0
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			if row.Compare == nil {
				continue
			}
			for _, n := range []int{row.Compare.N1, row.Compare.N2} {
				if lo == 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
		}
	}
	switch {
	case hi == 0:
		return ""
	case lo == hi:
		return fmt.Sprintf("%d", lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// warnings returns the distinct warnings of r, in order of appearance,
// less benchstat's "all samples are equal", which the "± 0%" of allocations
// and bytes already says.
func warnings(r *Result) []string {
	var list []string
	seen := map[string]bool{"all samples are equal": true}
	add := func(ws []string) {
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				list = append(list, w)
			}
		}
	}
	add(r.Warnings)
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			for _, s := range []*Summary{row.Old, row.New} {
				if s != nil {
					add(s.Warnings)
				}
			}
			if row.Compare != nil {
				add(row.Compare.Warnings)
			}
		}
	}
	return list
}

// addedRemoved lists the benchmarks that ran on one side only.
func addedRemoved(r *Result) (added, removed []string) {
	for _, t := range r.Tables {
		for _, row := range t.Added() {
			if !slices.Contains(added, row.Name) {
				added = append(added, row.Name)
			}
		}
		for _, row := range t.Removed() {
			if !slices.Contains(removed, row.Name) {
				removed = append(removed, row.Name)
			}
		}
	}
	return added, removed
}

// A tableGroup is the tables of one configuration (one package, usually).
type tableGroup struct {
	header []ConfigValue // the keys that differ from the previous group
	config []ConfigValue
	tables []*Table // in benchcmp's unit order
}

// groupTables groups the tables that compare something (those with both
// sides) by configuration and orders each group's units as benchcmp did:
// time, speed, allocations, bytes, then the rest.
func groupTables(tables []*Table) []*tableGroup {
	var groups []*tableGroup
	for _, t := range tables {
		if !t.HasOld || !t.HasNew {
			continue // nothing to compare: the notes list its rows
		}
		if len(groups) == 0 || !slices.Equal(groups[len(groups)-1].config, t.Config) {
			g := &tableGroup{config: t.Config}
			for i, c := range t.Config {
				if len(groups) == 0 || groups[len(groups)-1].config[i] != c {
					g.header = append(g.header, c)
				}
			}
			groups = append(groups, g)
		}
		g := groups[len(groups)-1]
		g.tables = append(g.tables, t)
	}
	rank := map[string]int{"sec/op": 0, "B/s": 1, "allocs/op": 2, "B/op": 3}
	for _, g := range groups {
		slices.SortStableFunc(g.tables, func(a, b *Table) int {
			ra, ok := rank[a.Unit]
			if !ok {
				ra = len(rank)
			}
			rb, ok := rank[b.Unit]
			if !ok {
				rb = len(rank)
			}
			return ra - rb
		})
	}
	return groups
}

// A view is how benchcmp showed a unit: benchfmt tidies ns/op into sec/op
// and MB/s into B/s, and benchcmp's readers expect them back.
type view struct {
	name      string // "ns/op", "MB/s", "allocs", "bytes"
	deltaName string // "delta", or "speedup" for MB/s
	scale     float64
	class     benchunit.Class
	custom    bool
}

func viewOf(t *Table) view {
	switch t.Unit {
	case "sec/op":
		return view{name: "ns/op", deltaName: "delta", scale: 1e9}
	case "B/s":
		return view{name: "MB/s", deltaName: "speedup", scale: 1e-6}
	case "allocs/op":
		return view{name: "allocs", deltaName: "delta", scale: 1}
	case "B/op":
		return view{name: "bytes", deltaName: "delta", scale: 1}
	}
	return view{name: t.Unit, deltaName: "delta", scale: 1, class: benchunit.ClassOf(t.Unit), custom: true}
}

// format formats a value of the table's unit as benchcmp did: ns/op with
// two decimals below 10 and one below 100, MB/s with two, counts whole.
func (v view) format(x float64) string {
	x *= v.scale
	switch v.name {
	case "ns/op":
		prec := 0
		switch {
		case x < 10:
			prec = 2
		case x < 100:
			prec = 1
		}
		return strconv.FormatFloat(x, 'f', prec, 64)
	case "MB/s":
		return strconv.FormatFloat(x, 'f', 2, 64)
	case "allocs", "bytes":
		// A median of an even count may fall between two integers.
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return benchunit.Scale(x, v.class)
}

// delta formats the change from old to new: a speedup factor for MB/s, a
// percentage otherwise.
func (v view) delta(old, new float64) string {
	if v.deltaName == "speedup" {
		if old == 0 {
			return "?"
		}
		return fmt.Sprintf("%.2fx", new/old)
	}
	if old == 0 {
		if new == 0 {
			return "+0.00%"
		}
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", (new/old-1)*100)
}

// errWriter remembers the first write error, so renderers can print freely
// and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
