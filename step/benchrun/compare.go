package benchrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"

	"github.com/patchbot/patchbot/step/verdict"
)

// RevisionKey names the record of which revision a side's results come
// from. Run's raw files (Options.OutDir) hold it on their first line as a
// comment, "# revision: HASH", so that plain "benchstat old.txt new.txt"
// prints the tables patchbot printed for the run.
//
// It is a comment, not a configuration line "revision: HASH", because
// benchstat's default projection is "-table .config -col .file": every
// file configuration key is part of the table key, so a key whose value
// differs between the two files splits each table in two, one column
// each, with nothing compared. The Go benchmark format reads only
// configuration lines (a key that begins with a lower-case letter and
// holds no space nor upper-case letter, then a colon), result lines
// ("Benchmark…") and unit lines ("Unit …"), and skips every other line,
// as it skips "PASS" and "ok"; x/perf's own benchstat test data annotates
// its files with "#" lines the same way. A name key in the results
// ("BenchmarkX/revision=HASH") would not do either: rows are by full name.
//
// Compare reads the comment back into the Side's Commit. Files written
// before carry "revision: HASH" as configuration: Compare reads that too,
// and leaves it out of the table key, as it always did (benchstat needs
// "-ignore revision" for those).
const RevisionKey = "revision"

// revisionComment begins the line that records a side's revision.
const revisionComment = "# " + RevisionKey + ": "

// revisionRE matches what Compare takes for a recorded revision: a commit
// hash, as Run writes it (SHA-1 or SHA-256, or a prefix). Anything else
// is not recorded, since it would end up in review messages.
var revisionRE = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

// recordedRevision returns the revision that line records, if it is the
// revision comment.
func recordedRevision(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte(revisionComment))
	if !ok {
		return ""
	}
	if rev := string(bytes.TrimSpace(rest)); revisionRE.MatchString(rev) {
		return rev
	}
	return ""
}

// An Input is one side's results in Go benchmark format.
type Input struct {
	Label string    // heads the side's column; the file name for a file
	Name  string    // for error messages; defaults to Label
	R     io.Reader // the results
}

// CompareOptions are the statistical settings of a comparison.
// The zero value means benchstat's defaults.
type CompareOptions struct {
	Alpha      float64 // significance level of the U test; 0 means 0.05
	Confidence float64 // level of the intervals; 0 means 0.95
	// Margin is the equivalence margin of a "same" verdict (0.02: the
	// change's interval within ±2%); 0 means 0.02.
	Margin float64
}

// thresholds returns benchmath's thresholds and the confidence level; a
// level outside (0, 1), NaN included, means the default, since it ends up
// in the JSON.
func (o *CompareOptions) thresholds() (*benchmath.Thresholds, float64) {
	t := benchmath.DefaultThresholds
	conf := 0.95
	if o != nil && o.Alpha > 0 && o.Alpha < 1 {
		t.CompareAlpha = o.Alpha
	}
	if o != nil && o.Confidence > 0 && o.Confidence < 1 {
		conf = o.Confidence
	}
	return &t, conf
}

// margin returns the equivalence margin, the default for one outside
// (0, 1).
func (o *CompareOptions) margin() float64 {
	if o != nil && o.Margin > 0 && o.Margin < 1 {
		return o.Margin
	}
	return verdict.DefaultPlan().Margin
}

// CompareFiles compares the results in the files oldPath and newPath, each
// labelled with its path as benchstat labels them.
func CompareFiles(oldPath, newPath string, opts *CompareOptions) (*Result, error) {
	of, err := os.Open(oldPath)
	if err != nil {
		return nil, fmt.Errorf("old results: %w", err)
	}
	defer of.Close()
	nf, err := os.Open(newPath)
	if err != nil {
		return nil, fmt.Errorf("new results: %w", err)
	}
	defer nf.Close()
	r, err := Compare(Input{Label: oldPath, R: of}, Input{Label: newPath, R: nf}, opts)
	if err != nil {
		return nil, err
	}
	r.Base.File, r.Head.File = oldPath, newPath
	return r, nil
}

// setDefaults sets r's schema and levels as Compare would for opts: for a
// Result that compares nothing.
func (r *Result) setDefaults(opts *CompareOptions) {
	thresholds, confidence := opts.thresholds()
	r.Schema, r.Alpha, r.Confidence = ResultSchema, thresholds.CompareAlpha, confidence
}

// Compare summarises the results of old and new and compares them
// benchmark by benchmark, exactly as benchstat does with its default
// projection (tables by configuration and unit, rows by full name,
// columns by side), with the medians, intervals and U tests of
// golang.org/x/perf/benchmath.
//
// Malformed benchmark lines do not stop the comparison; they are listed
// in the result's warnings. Lines too long for benchfmt's Reader (which
// would stop there) are skipped and listed: as omitted when they begin
// with a benchmark's name, as warnings otherwise. Compare fails only on I/O errors and when
// neither side holds any result.
func Compare(old, new Input, opts *CompareOptions) (*Result, error) {
	thresholds, confidence := opts.thresholds()
	if old.Label == new.Label {
		// The column key is the label: equal labels would merge the
		// sides. An A/A comparison of one revision gets here.
		old.Label += " (old)"
		new.Label += " (new)"
	}

	filter, err := benchproc.NewFilter("*")
	if err != nil {
		return nil, err
	}
	var parser benchproc.ProjectionParser
	tableBy, unitField, err := parser.ParseWithUnit(".config", filter)
	if err != nil {
		return nil, err
	}
	rowBy, err := parser.Parse(".fullname", filter)
	if err != nil {
		return nil, err
	}
	// The columns are the two sides, which Compare knows without
	// projecting; parsing .file (and the revision) still keeps them out
	// of the residue, as in benchstat.
	if _, err := parser.Parse(".file", filter); err != nil {
		return nil, err
	}
	if _, err := parser.Parse(RevisionKey, filter); err != nil {
		return nil, err
	}
	residue := parser.Residue()

	b := &builder{tables: make(map[benchproc.Key]*builderTable)}
	res := &Result{
		Schema:     ResultSchema,
		Base:       Side{Label: old.Label},
		Head:       Side{Label: new.Label},
		Alpha:      thresholds.CompareAlpha,
		Confidence: confidence,
	}
	reader := benchfmt.NewReader(nil, "")
	om := newOmissions()
	n := 0
	for side, in := range []Input{old, new} {
		name := in.Name
		if name == "" {
			name = in.Label
		}
		long := func(line int, n int64, head []byte) {
			where := fmt.Sprintf("%s:%d", name, line)
			if b := benchName(head); b != "" {
				om.add(Omission{Side: sideNames[side], Benchmark: b, Reason: tooLong(n), Where: where})
				return
			}
			res.Warnings = append(res.Warnings, where+": "+tooLong(n))
		}
		// The first revision recorded: the comment, or the
		// configuration key of older files.
		rev := ""
		lim := newLineLimiter(in.R, long)
		lim.see = func(line []byte) {
			if rev == "" {
				rev = recordedRevision(line)
			}
		}
		reader.Reset(lim, name, ".file", in.Label)
		for reader.Scan() {
			switch rec := reader.Result().(type) {
			case *benchfmt.SyntaxError:
				res.Warnings = append(res.Warnings, rec.Error())
			case *benchfmt.Result:
				if v := rec.GetConfig(RevisionKey); rev == "" && revisionRE.MatchString(v) {
					rev = v
				}
				if ok, _ := filter.Apply(rec); !ok {
					continue
				}
				omitNonFinite(om, sideNames[side], rec)
				b.add(side, tableBy.ProjectValues(rec), rowBy.Project(rec), residue.Project(rec), rec)
				n++
			}
		}
		if err := reader.Err(); err != nil {
			return nil, err
		}
		if side == 0 {
			res.Base.Commit = rev
		} else {
			res.Head.Commit = rev
		}
	}
	if n == 0 {
		return nil, errors.New("no benchmark results on either side")
	}
	res.Omitted = om.list
	units := reader.Units()

	var keys []benchproc.Key
	for k := range b.tables {
		keys = append(keys, k)
	}
	benchproc.SortKeys(keys)
	for _, k := range keys {
		unit := k.Get(unitField)
		t := &Table{Unit: unit, Better: units.GetBetter(unit)}
		for _, f := range k.Projection().FlattenedFields() {
			if f.Name != ".unit" {
				t.Config = append(t.Config, ConfigValue{f.Name, k.Get(f)})
			}
		}
		b.tables[k].fill(t, units.GetAssumption(unit), thresholds, confidence, opts.margin())
		res.Tables = append(res.Tables, t)
	}
	return res, nil
}

// builder collects values into cells as benchstat's table builder does.
type builder struct {
	tables map[benchproc.Key]*builderTable
}

type builderTable struct {
	cells map[benchproc.Key]*[2]*builderCell // by row, then side
}

type builderCell struct {
	values  []float64
	residue map[benchproc.Key]struct{}
}

// add adds the values of rec, from side 0 (old) or 1 (new), to the cells
// of its row in each of its tables (one per unit), less those that are not
// finite: a NaN sends benchmath's U test into a loop that allocates until
// the process is killed, and an infinity has no median, no ratio and no
// JSON.
func (b *builder) add(side int, tableKeys []benchproc.Key, row, residue benchproc.Key, rec *benchfmt.Result) {
	for i, tk := range tableKeys {
		if !isFinite(rec.Values[i].Value) {
			continue // omitted: see omitNonFinite
		}
		t := b.tables[tk]
		if t == nil {
			t = &builderTable{cells: make(map[benchproc.Key]*[2]*builderCell)}
			b.tables[tk] = t
		}
		cells := t.cells[row]
		if cells == nil {
			cells = new([2]*builderCell)
			t.cells[row] = cells
		}
		c := cells[side]
		if c == nil {
			c = &builderCell{residue: make(map[benchproc.Key]struct{})}
			cells[side] = c
		}
		c.values = append(c.values, rec.Values[i].Value)
		c.residue[residue] = struct{}{}
	}
}

// fill computes t's rows and geomean from the collected cells.
func (bt *builderTable) fill(t *Table, assume benchmath.Assumption, th *benchmath.Thresholds, confidence, margin float64) {
	for _, rk := range sortedKeys(bt.cells) {
		cells := bt.cells[rk]
		row := &Row{Name: rk.StringValues()}
		var samples [2]*benchmath.Sample
		for side, c := range cells {
			if c == nil {
				continue
			}
			runs := slices.Clone(c.values) // NewSample sorts its values
			s := benchmath.NewSample(c.values, th)
			samples[side] = s
			sum := assume.Summary(s, confidence)
			out := &Summary{Center: sum.Center, Confidence: sum.Confidence, N: len(s.Values), Values: s.Values, Runs: runs}
			if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
				out.Lo, out.Hi = &sum.Lo, &sum.Hi
			}
			// benchstat lists the sample's warnings, then the
			// summary's; the residue warning is the sample's.
			if nsk := benchproc.NonSingularFields(sortedKeys(c.residue)); len(nsk) > 0 {
				var names []string
				for _, f := range nsk {
					names = append(names, f.Name)
				}
				out.Warnings = append(out.Warnings, "benchmarks vary in "+strings.Join(names, ", "))
			}
			out.Warnings = append(out.Warnings, errorStrings(sum.Warnings)...)
			if side == 0 {
				row.Old = out
				t.HasOld = true
			} else {
				row.New = out
				t.HasNew = true
			}
		}
		if samples[0] != nil && samples[1] != nil {
			c := assume.Compare(samples[0], samples[1])
			row.Compare = &Comparison{
				P: c.P, N1: c.N1, N2: c.N2, Alpha: c.Alpha,
				Significant: !(c.P > c.Alpha), // benchmath's FormatDelta prints "~" when P > Alpha
				Warnings:    errorStrings(c.Warnings),
			}
			row.Compare.Delta, row.Compare.Verdict = deltaVerdict(row.Old.Center, row.New.Center, row.Compare.Significant, t.Better)
			// The change's interval, at the U test's level (the
			// test's dual); not significant, the row is the same if
			// the interval lies within the margin.
			p := verdict.Plan{Looks: []int{max(c.N1, c.N2, 2)}, Alpha: th.CompareAlpha, Margin: margin}
			d := p.Decide(samples[0].Values, samples[1].Values, 0, t.Better > 0)
			if d.Lo > 0 && !math.IsInf(d.Hi, 1) {
				lo, hi := d.Lo-1, d.Hi-1
				row.Compare.Lo, row.Compare.Hi = &lo, &hi
			}
			if row.Compare.Verdict == Undecided && d.Verdict == verdict.Same {
				row.Compare.Verdict = Same
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) > 1 {
		t.Geomean = geomean(t)
	}
}

// deltaVerdict returns the relative change of the medians from old to new
// and what a significant one means for a unit whose better direction is
// better: faster, slower, or changed; undecided for one that is not
// significant (or whose medians are equal), which the caller may find the
// same.
func deltaVerdict(old, new float64, significant bool, better int) (delta float64, v string) {
	if old != 0 {
		delta = new/old - 1
	}
	if !isFinite(delta) {
		delta = 0 // new/old overflows; JSON has no infinity
	}
	switch {
	case !significant || old == new:
		return delta, Undecided
	case better == 0:
		return delta, Changed
	case (new > old) == (better > 0):
		return delta, Faster
	}
	return delta, Slower
}

// geomean computes the summary row as benchstat's summarizeCol does: the
// geomean of each column's medians, and the geomean of the per-row ratios
// (not the ratio of the geomeans, which would compare different sets of
// benchmarks when one was added or removed).
func geomean(t *Table) *Geomean {
	g := new(Geomean)
	baseOld := t.HasOld // the first column present is the baseline
	nBase := 0
	for _, r := range t.Rows {
		if (baseOld && r.Old != nil) || (!baseOld && r.New != nil) {
			nBase++
		}
	}
	col := func(side int, isBase bool) (sum, ratio *float64, warnings []string) {
		var summaries, ratios []float64
		badRatio := false
		for _, r := range t.Rows {
			s := r.Old
			if side == 1 {
				s = r.New
			}
			if s == nil {
				continue
			}
			summaries = append(summaries, s.Center)
			if !isBase && r.Old != nil {
				a, b := s.Center, r.Old.Center
				switch {
				case a == b:
					ratios = append(ratios, 1)
				case b == 0:
					badRatio = true
					ratios = append(ratios, 0)
				case !isFinite(a / b):
					badRatio = true // overflows
					ratios = append(ratios, 0)
				default:
					ratios = append(ratios, a/b)
				}
			}
		}
		if !isBase && nBase != len(ratios) {
			warnings = append(warnings, "benchmark set differs from baseline; geomeans may not be comparable")
		}
		if gm := stats.GeoMean(summaries); !isFinite(gm) {
			warnings = append(warnings, "summaries must be >0 to compute geomean")
		} else {
			sum = &gm
		}
		if !isBase && !badRatio {
			if gm := stats.GeoMean(ratios); !isFinite(gm) {
				warnings = append(warnings, "ratios must be >0 to compute geomean")
			} else {
				ratio = &gm
			}
		}
		return sum, ratio, warnings
	}
	if t.HasOld {
		g.Old, _, g.OldWarnings = col(0, true)
	}
	if t.HasNew {
		g.New, g.Ratio, g.NewWarnings = col(1, !t.HasOld)
	}
	return g
}

func sortedKeys[V any](m map[benchproc.Key]V) []benchproc.Key {
	keys := make([]benchproc.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	benchproc.SortKeys(keys)
	return keys
}

func errorStrings(errs []error) []string {
	var s []string
	for _, err := range errs {
		s = append(s, err.Error())
	}
	return s
}

// isFinite reports whether x is neither NaN nor an infinity.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// omissions collects Omissions, one per side, benchmark and reason, in the
// order they are first met, counting the others.
type omissions struct {
	list  []*Omission
	index map[Omission]*Omission // by the Omission less Where and Count
}

func newOmissions() *omissions { return &omissions{index: make(map[Omission]*Omission)} }

// add records that o happened (once more, when it did before).
func (om *omissions) add(o Omission) {
	key := o
	key.Where, key.Count = "", 0
	if prev := om.index[key]; prev != nil {
		prev.Count++
		return
	}
	o.Count = 1
	p := &o
	om.index[key] = p
	om.list = append(om.list, p)
}

// omitNonFinite records each value of rec that is not finite, as written
// in the input: "NaN ns/op", or "1e+303 MB/s", which is finite but
// overflows when benchfmt tidies it into B/s.
func omitNonFinite(om *omissions, side string, rec *benchfmt.Result) {
	for _, v := range rec.Values {
		if isFinite(v.Value) {
			continue
		}
		val, unit := v.Value, v.Unit
		if v.OrigUnit != "" {
			val, unit = v.OrigValue, v.OrigUnit
		}
		reason := fmt.Sprintf("%s %s is not a finite number", formatValue(val), unit)
		if isFinite(val) {
			reason = fmt.Sprintf("%s %s is out of range in %s", formatValue(val), unit, v.Unit)
		}
		file, line := rec.Pos()
		om.add(Omission{
			Side: side, Package: rec.GetConfig("pkg"),
			Benchmark: string(rec.Name.Full()), Reason: reason,
			Where: fmt.Sprintf("%s:%d", file, line),
		})
	}
}

// formatValue formats x as a results line would hold it, with a sign on
// infinities ("+Inf"), which Go's %v leaves off.
func formatValue(x float64) string {
	if math.IsInf(x, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
