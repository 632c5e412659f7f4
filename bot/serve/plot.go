package serve

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
	"unicode"

	"golang.org/x/perf/benchunit"

	"github.com/patchbot/patchbot/step/benchrun"
)

// The plot's geometry, in SVG user units (pixels at 100%).
const (
	plotWidth  = 760
	plotLabel  = 280 // the benchmarks' names, left of the axes
	plotRight  = 20
	plotTop    = 40 // the title and the legend
	plotRowH   = 36
	plotMaxLen = 40 // bytes of a benchmark's name shown: about the label column at 12px
	// plotMaxRows is how many benchmarks one plot shows; the table
	// below lists them all.
	plotMaxRows = 100
	colorOld    = "#1f77b4"
	colorNew    = "#d62728"
)

// plotTable returns an SVG plot of t: for each benchmark that ran on both
// sides (the first plotMaxRows of them), one axis from the least to the greatest value of its runs, with
// each old run a dot above it and each new run a dot below. The spread of
// the dots is the noise the statistics weigh; a shift between the rows of
// dots is the change.
//
// Every text in it (a benchmark's name, the package, the unit) comes from
// a benchmark's output, which the patch under test writes: each one is
// escaped here, so that the SVG is safe to put into the page as it is.
func plotTable(t *benchrun.Table) template.HTML {
	var rows []*benchrun.Row
	for _, r := range t.Rows {
		if r.Old != nil && r.New != nil && (len(r.Old.Values) > 0 || len(r.New.Values) > 0) {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	more := 0
	if len(rows) > plotMaxRows {
		rows, more = rows[:plotMaxRows], len(rows)-plotMaxRows
	}
	height := plotTop + plotRowH*len(rows) + 8
	if more > 0 {
		height += plotRowH / 2
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="sans-serif" font-size="12">`,
		plotWidth, height, plotWidth, height)
	title := t.Unit
	if pkg := t.Get("pkg"); pkg != "" {
		title = pkg + ": " + title
	}
	fmt.Fprintf(&b, `<title>%s</title>`, esc(title, 200))
	fmt.Fprintf(&b, `<text x="0" y="14" font-weight="bold">%s</text>`, esc(title, 100))
	fmt.Fprintf(&b, `<circle cx="%d" cy="28" r="4" fill="%s"/><text x="%d" y="32">old (base)</text>`, plotLabel, colorOld, plotLabel+8)
	fmt.Fprintf(&b, `<circle cx="%d" cy="28" r="4" fill="%s"/><text x="%d" y="32">new (head)</text>`, plotLabel+100, colorNew, plotLabel+108)

	x0, x1 := float64(plotLabel), float64(plotWidth-plotRight)
	cls := benchunit.ClassOf(t.Unit)
	for i, r := range rows {
		y := plotTop + plotRowH*i + plotRowH/2
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range append(append([]float64(nil), r.Old.Values...), r.New.Values...) {
			if isFinite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if lo > hi {
			continue // no finite value at all
		}
		x := func(v float64) float64 {
			if hi == lo {
				return (x0 + x1) / 2
			}
			return x0 + (v-lo)/(hi-lo)*(x1-x0)
		}
		fmt.Fprintf(&b, `<text x="0" y="%d">%s</text>`, y+4, esc(r.Name, plotMaxLen))
		fmt.Fprintf(&b, `<line x1="%g" y1="%d" x2="%g" y2="%d" stroke="#999"/>`, x0, y, x1, y)
		for _, v := range r.Old.Values {
			if isFinite(v) {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="3" fill="%s" fill-opacity="0.6"/>`, x(v), y-6, colorOld)
			}
		}
		for _, v := range r.New.Values {
			if isFinite(v) {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="3" fill="%s" fill-opacity="0.6"/>`, x(v), y+6, colorNew)
			}
		}
		fmt.Fprintf(&b, `<text x="%g" y="%d" font-size="10" fill="#555">%s</text>`, x0, y+18, esc(benchunit.Scale(lo, cls), 20))
		fmt.Fprintf(&b, `<text x="%g" y="%d" font-size="10" fill="#555" text-anchor="end">%s</text>`, x1, y+18, esc(benchunit.Scale(hi, cls), 20))
	}
	if more > 0 {
		fmt.Fprintf(&b, `<text x="0" y="%d">and %d more, in the table</text>`, plotTop+plotRowH*len(rows)+12, more)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text above went through esc
}

// esc makes s safe as the text of an SVG element or an attribute's value:
// at most n bytes of it, valid UTF-8, control characters dropped, and
// < > & ' " escaped.
func esc(s string, n int) string {
	s = clipValid(s, n)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return html.EscapeString(s)
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
