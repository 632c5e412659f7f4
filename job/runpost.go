package job

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/review"
	"github.com/patchbot/patchbot/step/verdict"
)

// post is the last step: the message composed in full, then the push, the
// freeze hashtag and the posts, each of which reads before it writes and
// writes only what is missing, so running the job again doubles nothing.
func (r *runner) post(ctx context.Context) error {
	if r.opts.Note != nil {
		note, err := r.opts.Note(ctx)
		if err != nil {
			return err
		}
		r.res.Note = note
	}
	r.res.Asked = r.opts.Asked
	kind := r.opts.Kind
	if kind == "" {
		kind = MessageKind
	}
	p := &PostRecord{
		Message: Compose(r.res, benchrun.Gerrit),
		Posts:   []*review.PostResult{},
	}
	if r.opts.PullRequest != nil {
		p.MarkdownMessage = Compose(r.res, benchrun.Markdown)
	}
	r.res.Post = p
	change, revision := r.opts.Change, r.opts.Revision
	maybe := false // a dry run's guess at the change a push would make
	if r.opts.Push != nil {
		if r.res.Port == nil {
			return errors.New("a push needs the port step, whose last commit it pushes")
		}
		head := r.res.Port.Head
		o := *r.opts.Push
		o.Dir, o.Commit = r.repo, head
		res, err := r.opts.Gerrit.Push(ctx, o)
		if err != nil {
			return fmt.Errorf("push failed: %v. The port itself succeeded: branch %s (at %s) is kept; to retry, run the same command again", err, r.res.Port.Branch, abbrev.Hash(head))
		}
		p.Push = res
		change = ChangeTriplet(o.Project, o.Branch, lastCommit(r.res.Port).ChangeID)
		if res.DryRun {
			// Nothing was pushed: the change may not exist yet, and
			// the commit is not a patch set of it yet. Say what would
			// happen on its current patch set, if it exists.
			maybe = true
		} else {
			revision = head
		}
	}
	if change != "" {
		ht, err := r.applyFreeze(ctx, change)
		var res *review.PostResult
		if err == nil {
			res, err = r.opts.Gerrit.Post(ctx, review.GerritPost{
				Change:   change,
				Revision: revision,
				Labels:   r.opts.Labels,
				Message:  review.Message{Kind: kind, Text: p.Message},
				Once:     true,
			})
		}
		switch {
		case maybe && isNotFound(err):
			// No such change yet: the message is only shown.
		case err != nil:
			p.Change, p.Hashtags = change, ht
			return err
		default:
			p.Change, p.Hashtags = change, ht
			p.Posts = append(p.Posts, res)
		}
	}
	if r.opts.PullRequest != nil {
		res, err := r.opts.GitHub.Post(ctx, *r.opts.PullRequest, review.Message{Kind: kind, Text: p.MarkdownMessage})
		if err != nil {
			return err
		}
		p.Posts = append(p.Posts, res)
	}
	p.Printed = len(p.Posts) == 0
	return nil
}

// isNotFound reports whether err is Gerrit's 404 for a change.
func isNotFound(err error) bool {
	e, ok := errors.AsType[*review.Error](err)
	return ok && e.Status == http.StatusNotFound
}

// ChangeTriplet names a change by project, branch and Change-Id, as
// Gerrit's REST API takes it: the same Change-Id may be on several
// branches, and a bare one would then be ambiguous.
func ChangeTriplet(project, branch, changeID string) string {
	if branch == "" {
		branch = "master"
	}
	branch = strings.TrimPrefix(branch, "refs/heads/")
	return url.PathEscape(project) + "~" + url.PathEscape(branch) + "~" + changeID
}

// Compose returns the review message of a run in format f (benchrun.Gerrit
// or benchrun.Markdown): the freeze status, the significant changes called
// out in words, the tables with their intervals and p-values, and where the
// raw results are. What came from outside (the commit's subject, the
// branch in the freeze status, why nothing ran, benchmark names and units,
// file names) is escaped for the medium
// (internal/escape); the note is the caller's own text.
func Compose(res *Result, f benchrun.Format) string {
	text := escape.Gerrit
	if f == benchrun.Markdown {
		text = escape.Markdown
	}
	var b strings.Builder
	if a := res.Asked; a != nil {
		fmt.Fprintf(&b, "Answering %s", text(a.Command))
		if a.Who != "" {
			fmt.Fprintf(&b, ", asked by %s", text(a.Who))
		}
		b.WriteString(".\n\n")
	}
	if res.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", res.Note)
	}
	if c := lastCommit(res.Port); c != nil {
		fmt.Fprintf(&b, "patchbot run: %s\n\n", text(c.Subject))
	}
	if res.Freeze != nil {
		fmt.Fprintf(&b, "Freeze: %s\n\n", res.Freeze.LineEscaped(text))
	}
	if res.NoBench != "" {
		fmt.Fprintf(&b, "Benchmarks: none run: %s.\n", text(remedy.Word(res.NoBench, reviewerWords)))
	}
	if res.Bench == nil {
		return b.String()
	}
	co := callouts(res.Bench, text)
	// Gerrit and GitHub both show lines starting "- " as a list.
	item := "- "
	for _, c := range []struct {
		head string
		rows []string
	}{
		{"Significantly better:", co[benchrun.Faster]},
		{"Significantly worse:", co[benchrun.Slower]},
		{"Significantly changed:", co[benchrun.Changed]},
		{"No significant change:", co[notSignificant]},
		{"The same, within the bound each states:", co[same]},
		{"Too noisy here to tell (undecided):", co[undecided]},
		{"Only in the new code (no comparison):", co[added]},
		{"Only in the old code (no comparison):", co[removed]},
	} {
		if len(c.rows) == 0 {
			continue
		}
		b.WriteString(c.head + "\n")
		for _, r := range c.rows {
			fmt.Fprintf(&b, "%s%s\n", item, r)
		}
		b.WriteString("\n")
	}
	b.WriteString(res.Bench.String(f))
	if res.Bench.Base.File != "" {
		fmt.Fprintf(&b, "\nRaw results: %s and %s\n", text(res.Bench.Base.File), text(res.Bench.Head.File))
	}
	return b.String()
}

// marginOf returns the margin of "same" of r's sequential comparison
// (RunInfo.Margin), as a percentage ("2%"), as the tables' key says it.
// calloutFigure words a significant change of a row's medians from old
// to new, in unit (escaped with text), as the tables show it: throughput as a speedup
// ("B/s 1.51x"), the rest as a change in percent ("sec/op -33.66%"). From
// zero, or by a ratio too large to hold, there is no ratio to give: the two
// figures are ("B/op 0 → 112"), to four digits.
func calloutFigure(unit string, text func(string) string, old, new float64, better int) string {
	ratio := new / old
	if old == 0 || math.IsInf(ratio, 0) || math.IsNaN(ratio) {
		return fmt.Sprintf("%s %.4g → %.4g", text(unit), old, new)
	}
	if better > 0 {
		return fmt.Sprintf("%s %.2fx", text(unit), ratio)
	}
	return fmt.Sprintf("%s %+.2f%%", text(unit), (ratio-1)*100)
}

// reviewerWords words the options a library's remedy names for the reader
// of a review message, who passes no flags (internal/remedy).
func reviewerWords(field string) string {
	switch field {
	case "bench.packages":
		return "a list of packages"
	}
	return ""
}

// Callout keys of the benchmarks that ran on one side only, of those with
// no significant change in the fixed design, and of those that a
// sequential comparison (-count auto) found the same within its margin,
// or could not decide.
const (
	added          = "added"
	removed        = "removed"
	notSignificant = "not significant"
	same           = benchrun.Same + " within the margin"
	undecided      = benchrun.Undecided
)

// callouts sorts the benchmarks by verdict: for benchrun.Faster, Slower
// and Changed, each benchmark with a significant change of that verdict and
// its figures, throughput as a speedup and the rest in percent
// ("WriteInts-2 (sec/op -33.66%, B/s 1.51x)"); for
// notSignificant, the benchmarks with no significant change at all, unless
// a sequential comparison decided them: same, the same within the bound it
// states ("ReadInts-2 (±1.5%)"), or undecided, too noisy to bound within
// the widest one, with the bound it reached; for
// added and removed, those that ran in the new code only or the old only. A
// benchmark better in one unit and worse in another is under both. Names
// and units, which come from the benchmarks, are escaped with text.
func callouts(r *benchrun.Result, text func(string) string) map[string][]string {
	var order []string
	figs := map[string]map[string][]string{}   // benchmark, verdict, figures
	decided := map[string]*benchrun.Decision{} // benchmark, a sequential verdict
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			c := row.Compare
			if c == nil {
				continue
			}
			if figs[row.Name] == nil {
				figs[row.Name] = map[string][]string{}
				order = append(order, row.Name)
			}
			if d := c.Decision; d != nil && decided[row.Name] == nil {
				decided[row.Name] = d
			}
			if c.Significant && (c.Verdict == benchrun.Faster || c.Verdict == benchrun.Slower || c.Verdict == benchrun.Changed) {
				fig := calloutFigure(t.Unit, text, row.Old.Center, row.New.Center, t.Better)
				figs[row.Name][c.Verdict] = append(figs[row.Name][c.Verdict], fig)
			}
		}
	}
	out := map[string][]string{}
	for _, t := range r.Tables {
		for _, side := range []struct {
			key  string
			rows []*benchrun.Row
		}{{added, t.Added()}, {removed, t.Removed()}} {
			for _, row := range side.rows {
				if name := text(row.Name); !slices.Contains(out[side.key], name) {
					out[side.key] = append(out[side.key], name)
				}
			}
		}
	}
	for _, name := range order {
		if len(figs[name]) == 0 {
			key, item := notSignificant, text(name)
			if d := decided[name]; d != nil {
				switch d.Verdict {
				case benchrun.Same:
					key = same
				case benchrun.Undecided:
					key = undecided
				}
				if d.Bound > 0 && (key == same || key == undecided) {
					item += " (±" + verdict.Percent(d.Bound) + ")"
				}
			}
			out[key] = append(out[key], item)
		}
		for _, v := range []string{benchrun.Faster, benchrun.Slower, benchrun.Changed} {
			if f := figs[name][v]; len(f) > 0 {
				out[v] = append(out[v], fmt.Sprintf("%s (%s)", text(name), strings.Join(f, ", ")))
			}
		}
	}
	return out
}
