package benchrun

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/patchbot/patchbot/internal/abbrev"
)

// writeReview writes r for a review: a Markdown comment for GitHub when md
// is set, else a Gerrit message, in which lines that start with a space are
// shown preformatted. Both hold the same tables as benchcmp, with each
// median's confidence interval and each comparison's p-value, so that a
// reviewer can judge the noise without rerunning anything.
func writeReview(w io.Writer, r *Result, md bool) error {
	bw := &errWriter{w: w}
	bw.printf("%s\n", intro(r, md))
	groups := groupTables(r.Tables)
	for _, g := range groups {
		// Several groups are several packages, usually: name each.
		if pkg := g.tables[0].Get("pkg"); len(groups) > 1 && pkg != "" {
			if md {
				bw.printf("\n**%s**\n", mdText(pkg))
			} else {
				bw.printf("\n%s:\n", pkg)
			}
		}
		for _, t := range g.tables {
			v := viewOf(t)
			rows := [][]string{{"benchmark", "old " + v.name, "new " + v.name, v.deltaName}}
			for _, row := range t.Rows {
				if row.Compare == nil {
					continue
				}
				d := v.delta(row.Old.Center, row.New.Center)
				if !row.Compare.Significant {
					d = "~"
				}
				name := row.Name
				if md {
					name = mdText(name)
				}
				rows = append(rows, []string{
					name,
					v.format(row.Old.Center) + " ± " + row.Old.summary().PctRangeString(),
					v.format(row.New.Center) + " ± " + row.New.summary().PctRangeString(),
					d + " (" + row.Compare.comparison().String() + ")",
				})
			}
			if g := t.Geomean; g != nil && g.Old != nil && g.New != nil && g.Ratio != nil {
				rows = append(rows, []string{"geomean", v.format(*g.Old), v.format(*g.New), v.delta(1, *g.Ratio)})
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
	notes(bw, r, md)
	return bw.err
}

// intro says what was compared.
func intro(r *Result, md bool) string {
	code := func(s string) string {
		if md {
			return mdCode(s)
		}
		return s
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
	var pkgs []string
	for _, p := range r.Run.Packages {
		pkgs = append(pkgs, code(p))
	}
	order := string(r.Run.Order)
	if r.Run.Order == Shuffled {
		order = fmt.Sprintf("shuffled (seed %d)", r.Run.Seed)
	}
	return fmt.Sprintf("Benchmarks of %s at %s (old) and %s (new), %d runs each, %s.",
		strings.Join(pkgs, ", "), side(r.Base), side(r.Head), r.Run.Count, order)
}

func markdownTable(bw *errWriter, rows [][]string) {
	for i, cells := range rows {
		bw.printf("| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			bw.printf("|:--|--:|--:|:--|\n")
		}
	}
}

// mdEscaper escapes text for Markdown: what the text is comes from the
// benchmarks (names, packages, their output) or from a file, so none of it
// may make HTML, links, images, emphasis, table cells or a mention, nor end
// the line.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"|", "\\|", "#", "\\#", "!", "\\!", "~", "\\~", "$", "\\$",
	"@", "@\u2060", // a word joiner after @: no mention, no notification
	"\r", " ", "\n", " ",
)

// mdText returns s as Markdown text that shows s and does nothing else.
func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCode returns s as a Markdown code span, or as escaped text when s
// holds what a code span cannot (a backtick, a line break, a '|', which
// would split a table cell).
func mdCode(s string) string {
	if s == "" || strings.ContainsAny(s, "`\r\n|") {
		return mdText(s)
	}
	return "`" + s + "`"
}

// MarkdownFence returns the fence of a Markdown code block holding text:
// three backticks, or more than the longest run of backticks in text, so
// that text cannot end the block.
func MarkdownFence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
