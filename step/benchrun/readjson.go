package benchrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// ResultSchema is the Schema of the JSON results this version writes and
// reads. A change to Result that an older reader would misread changes it.
const ResultSchema = "patchbot/bench-result/v2"

// MaxJSON is the largest JSON result ReadJSON reads: far more than the
// results of a thousand benchmarks with a thousand runs a side, and far
// less than what could hurt the reader.
const MaxJSON = 16 << 20

// ReadJSON reads a JSON result, as 'patchbot bench -json' writes it, from
// rd, strictly: it may come from a run nobody trusts (a pull request's
// artifact), so anything but a result of this schema is an error: a larger
// input than MaxJSON, a field Result does not have, a second value after
// the first, another schema, a result without tables, or figures no run
// could give (see Result.Check). The result is data: its text fields are
// escaped by the renderers that need it (Markdown).
func ReadJSON(rd io.Reader) (*Result, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxJSON {
		return nil, fmt.Errorf("larger than %d MiB: no bench result is", MaxJSON>>20)
	}
	return DecodeJSON(data)
}

// DecodeJSON decodes data, a JSON result, as strictly as ReadJSON.
func DecodeJSON(data []byte) (*Result, error) {
	if len(data) > MaxJSON {
		return nil, fmt.Errorf("larger than %d MiB: no bench result is", MaxJSON>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	r := new(Result)
	if err := dec.Decode(r); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}

// Check reports whether r is a result this version could have written:
// the schema, at least one table, and in each table a unit, a direction,
// and rows with names, samples and comparisons that fit together.
func (r *Result) Check() error {
	switch {
	case r.Schema == "":
		return fmt.Errorf("no schema: want %q", ResultSchema)
	case r.Schema == "patchbot/bench-result/v1":
		// Its "same" meant "not significant", and its "better" and
		// "worse" are faster and slower now: not to be read as ours.
		return fmt.Errorf("schema %q: want %q (a result of an earlier patchbot, whose verdicts meant other things: run the benchmarks again with this one)", r.Schema, ResultSchema)
	case r.Schema != ResultSchema:
		return fmt.Errorf("schema %q: want %q", r.Schema, ResultSchema)
	case len(r.Tables) == 0:
		return errors.New("it has no tables")
	case !(r.Alpha > 0 && r.Alpha < 1):
		return fmt.Errorf("alpha %v is not between 0 and 1", r.Alpha)
	}
	for i, t := range r.Tables {
		where := func(format string, args ...any) error {
			return fmt.Errorf("table %d (%s): %s", i+1, t.Unit, fmt.Sprintf(format, args...))
		}
		switch {
		case t == nil:
			return fmt.Errorf("table %d is null", i+1)
		case t.Unit == "":
			return where("no unit")
		case t.Better < -1 || t.Better > 1:
			return where("better is %d, not -1, 0 or 1", t.Better)
		case len(t.Rows) == 0:
			return where("no rows")
		}
		for j, row := range t.Rows {
			switch {
			case row == nil:
				return where("row %d is null", j+1)
			case row.Name == "" && row.Old == nil && row.New == nil:
				return where("row %d is empty", j+1)
			case row.Old == nil && row.New == nil:
				return where("row %q has neither side", row.Name)
			case row.Compare != nil && (row.Old == nil || row.New == nil):
				return where("row %q compares a side it does not have", row.Name)
			}
			for _, s := range []*Summary{row.Old, row.New} {
				if s != nil && (s.N < 1 || s.N != len(s.Values) || math.IsNaN(s.Center)) {
					return where("row %q: a side of %d runs with %d values", row.Name, s.N, len(s.Values))
				}
			}
			if c := row.Compare; c != nil {
				if !(c.P >= 0 && c.P <= 1) || !slices.Contains([]string{Faster, Slower, Same, Undecided, Changed}, c.Verdict) {
					return where("row %q: p=%v, verdict %q", row.Name, c.P, c.Verdict)
				}
				if d := c.Decision; d != nil {
					finite := isFinite(d.Ratio) && isFinite(d.Lo) && (d.Hi == nil || isFinite(*d.Hi)) && (d.Detectable == nil || isFinite(*d.Detectable))
					if !slices.Contains([]string{Faster, Slower, Same, Undecided}, d.Verdict) || !finite ||
						!(d.Level > 0 && d.Level < 1) || !(d.Margin > 0 && d.Margin < 1) || d.Look < 1 {
						return where("row %q: a decision %q of ratio %v at level %v, margin %v, look %d", row.Name, d.Verdict, d.Ratio, d.Level, d.Margin, d.Look)
					}
				}
			}
		}
	}
	for _, f := range r.Failures {
		if f == nil || (f.Side != "old" && f.Side != "new") {
			return errors.New("a failure of neither side, old or new")
		}
	}
	for _, o := range r.Omitted {
		if o == nil || (o.Side != "old" && o.Side != "new") {
			return errors.New("an omission of neither side, old or new")
		}
	}
	return nil
}
