package benchrun

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/aclements/go-moremath/stats"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/escape"
)

// writeReview writes r for a review: a Markdown comment for GitHub when md
// is set, else a Gerrit message, in which lines that start with a space are
// shown preformatted. Both hold the same tables as benchcmp, with each
// median's confidence interval and each comparison's p-value, so that a
// reviewer can judge the noise without rerunning anything. What came from
// the benchmarks or the request (names, units, packages, revisions,
// output) is escaped for the medium (internal/escape).
func writeReview(w io.Writer, r *Result, md bool) error {
	bw := &errWriter{w: w}
	text := escape.Gerrit
	if md {
		text = escape.Markdown
	}
	bw.printf("%s\n", intro(r, md))
	groups := groupTables(r.Tables)
	footnote := false // a geomean left out benchmarks that ran on one side only
	for _, g := range groups {
		// Several groups are several packages, usually: name each.
		if pkg := g.tables[0].Get("pkg"); len(groups) > 1 && pkg != "" {
			if md {
				bw.printf("\n**%s**\n", text(pkg))
			} else {
				bw.printf("\n%s:\n", text(pkg))
			}
		}
		for _, t := range g.tables {
			v := viewOf(t)
			unit := text(v.name)
			rows := [][]string{{"benchmark", "old " + unit, "new " + unit, v.deltaName}}
			for _, row := range t.Rows {
				if row.Compare == nil {
					continue
				}
				d := v.delta(row.Old.Center, row.New.Center)
				if !row.Compare.Significant {
					d = "~"
				}
				d += " (" + row.Compare.comparison().String() + ")"
				if dec := row.Compare.Decision; dec != nil {
					d = dec.text(row.Compare.N1, row.Compare.N2)
				}
				rows = append(rows, []string{
					text(row.Name),
					v.format(row.Old.Center) + " ± " + row.Old.summary().PctRangeString(),
					v.format(row.New.Center) + " ± " + row.New.summary().PctRangeString(),
					d,
				})
			}
			g, onlyOne := commonGeomean(t)
			if g != nil {
				name := "geomean"
				if onlyOne > 0 {
					name = "geomean¹"
					footnote = true
				}
				rows = append(rows, []string{name, v.format(*g.Old), v.format(*g.New), v.delta(1, *g.Ratio)})
			}
			bw.printf("\n")
			if md {
				markdownTable(bw, rows)
			} else {
				tw := tabwriter.NewWriter(bw, 0, 0, 3, ' ', 0)
				for _, cells := range rows {
					fmt.Fprintf(tw, "  %s\n", strings.Join(cells, "\t"))
				}
				tw.Flush()
			}
		}
	}
	if footnote {
		bw.printf("\n¹ geomean of the benchmarks both sides ran, so that old and new are the same set; those that ran on one side only are listed below.\n")
	}
	f := Gerrit
	if md {
		f = Markdown
	}
	notes(bw, r, f)
	return bw.err
}

// commonGeomean returns the summary row of t for a review: the geometric
// means of the medians of the benchmarks both sides ran, old and new, and
// of their ratios. benchstat's row (t.Geomean, which -format benchstat
// keeps) takes each column's own benchmarks, so that one added or removed
// makes old and new means of different sets. It returns nil with fewer than
// two such benchmarks, or a median that is not positive (no geometric
// mean), and how many benchmarks of t ran on one side only.
func commonGeomean(t *Table) (g *Geomean, onlyOne int) {
	var olds, news, ratios []float64
	for _, row := range t.Rows {
		if row.Old == nil || row.New == nil {
			onlyOne++
			continue
		}
		o, n := row.Old.Center, row.New.Center
		if !(o > 0) || !(n > 0) || !isFinite(n/o) {
			return nil, onlyOne
		}
		olds, news, ratios = append(olds, o), append(news, n), append(ratios, n/o)
	}
	if len(ratios) < 2 {
		return nil, onlyOne
	}
	old, new, ratio := stats.GeoMean(olds), stats.GeoMean(news), stats.GeoMean(ratios)
	if !isFinite(old) || !isFinite(new) || !isFinite(ratio) {
		return nil, onlyOne
	}
	return &Geomean{Old: &old, New: &new, Ratio: &ratio}, onlyOne
}

// intro says what was compared.
// nothingRan reports whether r is a run that compared no package, the
// change affecting none (Selection).
func nothingRan(r *Result) bool {
	return r.Run != nil && r.Run.Selection != nil && len(r.Run.Packages) == 0
}

// noneAffected says that no benchmark ran, and why, its revisions quoted
// with code.
func noneAffected(r *Result, code func(string) string) string {
	side := func(s Side) string {
		if s.Commit == "" || strings.HasPrefix(s.Commit, s.Revision) {
			return code(abbrev.Hash(cmp.Or(s.Commit, s.Revision)))
		}
		return code(s.Revision) + " (" + code(abbrev.Hash(s.Commit)) + ")"
	}
	return fmt.Sprintf("Benchmarks: none run: the change from %s to %s affects no package with benchmarks.", side(r.Base), side(r.Head))
}

func intro(r *Result, md bool) string {
	code := escape.Gerrit
	if md {
		code = escape.MarkdownCode
	}
	// A side is named as the user named it (the revision for a run,
	// the file for saved results), then by its commit, unless the name
	// is the commit already.
	side := func(s Side) string {
		name := s.Revision
		if name == "" {
			name = s.Label
		}
		switch {
		case s.Commit != "" && name != "" && !strings.HasPrefix(s.Commit, name):
			return code(name) + " (" + code(abbrev.Hash(s.Commit)) + ")"
		case s.Commit != "":
			return code(abbrev.Hash(s.Commit))
		}
		return code(name)
	}
	if r.Run == nil {
		return fmt.Sprintf("Benchmarks: %s (old) vs %s (new).", side(r.Base), side(r.Head))
	}
	if nothingRan(r) {
		return noneAffected(r, code)
	}
	var pkgs []string
	for _, p := range r.Run.Packages {
		pkgs = append(pkgs, code(p))
	}
	order := string(r.Run.Order)
	if r.Run.Order == Shuffled {
		order = fmt.Sprintf("shuffled (seed %d)", r.Run.Seed)
	}
	runs := fmt.Sprintf("%d runs each", r.Run.Count)
	if len(r.Run.Looks) > 0 {
		runs = fmt.Sprintf("each benchmark run until decided, up to %d runs each", r.Run.Count)
	}
	if r.Run.AA {
		return fmt.Sprintf("Benchmarks of %s at %s against itself (A/A: one test binary on both sides), %s, %s.",
			strings.Join(pkgs, ", "), side(r.Head), runs, order)
	}
	return fmt.Sprintf("Benchmarks of %s at %s (old) and %s (new), %s, %s.",
		strings.Join(pkgs, ", "), side(r.Base), side(r.Head), runs, order)
}

func markdownTable(bw *errWriter, rows [][]string) {
	for i, cells := range rows {
		bw.printf("| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			bw.printf("|:--|--:|--:|:--|\n")
		}
	}
}
