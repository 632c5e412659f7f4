package benchrun

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func jsonOf(t *testing.T, r *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b, JSON); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadJSON checks that a result reads back as it was written, and
// that a result somebody changed is refused.
func TestReadJSON(t *testing.T) {
	r := compareTestdata(t, "codec")
	good := jsonOf(t, r)
	if !bytes.Contains(good, []byte(`"schema": "`+ResultSchema+`"`)) {
		t.Fatalf("the JSON result has no schema:\n%.300s", good)
	}
	back, err := ReadJSON(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("ReadJSON of a result: %v", err)
	}
	if !bytes.Equal(jsonOf(t, back), good) {
		t.Errorf("the result read back writes different JSON")
	}

	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	firstRow := func(m map[string]any) map[string]any {
		return m["tables"].([]any)[0].(map[string]any)["rows"].([]any)[0].(map[string]any)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"no schema", edit(func(m map[string]any) { delete(m, "schema") }), "no schema"},
		{"other schema", edit(func(m map[string]any) { m["schema"] = "patchbot/bench-result/v3" }), `schema "patchbot/bench-result/v3"`},
		{"an earlier patchbot's", edit(func(m map[string]any) { m["schema"] = "patchbot/bench-result/v1" }), "a result of an earlier patchbot, whose verdicts meant other things: run the benchmarks again"},
		{"extra field", edit(func(m map[string]any) { m["comment"] = "<b>hi</b>" }), `unknown field "comment"`},
		{"extra field in a row", edit(func(m map[string]any) { firstRow(m)["html"] = "x" }), `unknown field "html"`},
		{"no tables", edit(func(m map[string]any) { m["tables"] = []any{} }), "no tables"},
		{"null table", edit(func(m map[string]any) { m["tables"] = []any{nil} }), "table 1 is null"},
		{"a string for a number", edit(func(m map[string]any) { m["alpha"] = "0.05" }), "cannot unmarshal string"},
		{"bad alpha", edit(func(m map[string]any) { m["alpha"] = 7 }), "alpha 7"},
		{"bad verdict", edit(func(m map[string]any) { firstRow(m)["compare"].(map[string]any)["verdict"] = "<script>" }), `verdict "<script>"`},
		{"values that do not fit n", edit(func(m map[string]any) { firstRow(m)["old"].(map[string]any)["n"] = 99 }), "a side of 99 runs"},
		{"two values", append(append([]byte{}, good...), good...), "more than one JSON value"},
		{"an array", []byte(`[1]`), "cannot unmarshal array"},
		{"50 MB", append(append([]byte{}, good[:len(good)-2]...), append([]byte(`,"warnings":["`+strings.Repeat("a", 50<<20)), `"]}`...)...), "larger than 16 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSON(bytes.NewReader(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadJSON = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestMarkdownEscapes checks that what comes from the benchmarks (names,
// packages, failures' output, omissions) shows in a Markdown comment as
// text and does nothing else: no HTML, no link, no image, no mention, no
// extra table cell, no end of the code block.
func TestMarkdownEscapes(t *testing.T) {
	r := compareTestdata(t, "codec")
	evil := []string{
		`<img src=x onerror=alert(1)>`,
		`[click](https://evil.example)`,
		`![pic](https://evil.example/a.png)`,
		`a|b|c`,
		"`code` **bold** _em_ ~~strike~~",
		`@octocat`,
		`<!-- patchbot:bench -->`,
		"two\nlines\r# heading",
	}
	for i, row := range r.Tables[0].Rows {
		row.Name = evil[i%len(evil)] + "-2"
	}
	r.Tables[0].Rows = append(r.Tables[0].Rows, &Row{Name: evil[3], Old: r.Tables[0].Rows[0].Old, New: r.Tables[0].Rows[0].New, Compare: r.Tables[0].Rows[0].Compare})
	r.Tables[0].Config = append(r.Tables[0].Config, ConfigValue{Key: "pkg", Value: "<b>pkg</b>"})
	r.Tables = append(r.Tables, &Table{Config: []ConfigValue{{Key: "pkg", Value: "other|<i>"}}, Unit: "sec/op", Better: -1,
		Rows: []*Row{{Name: "Added<script>", New: r.Tables[0].Rows[0].New}}})
	r.Base.Label = "old`` <u>x</u>"
	r.Failures = []*Failure{{Side: "new", Package: "example.com/<b>", Runs: 1, Error: "exit status 1 [x](y)",
		Tail: "::set-output name=x::1\n```\n</details><script>alert(1)</script>\r- not a list\n````\nok\u202e)1(trela"}}
	r.Omitted = []*Omission{{Side: "new", Benchmark: "<svg onload=x>", Reason: "skipped: @octocat [a](b)", Count: 1}}
	data := jsonOf(t, r)
	back, err := DecodeJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	md := back.String(Markdown)
	if strings.Contains(md, "\u202e") || strings.Contains(back.String(Gerrit), "\u202e") {
		t.Errorf("a direction override of the failure's output is in the message")
	}

	// Outside the failure's code block, no '<' at all, and no link.
	const fence = "\n  `````\n" // the tail has a run of four backticks
	first := strings.Index(md, fence)
	last := strings.LastIndex(md, fence)
	if first < 0 || last == first || strings.Count(md, fence) != 2 {
		t.Fatalf("want one code block fenced with five backticks:\n%s", md)
	}
	block, outside := md[first+1:last+len(fence)-1], md[:first+1]+md[last+len(fence):]
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<`), regexp.MustCompile(`[^\\]\]\(`), regexp.MustCompile(`@octocat`),
		regexp.MustCompile(`[^\\]\*\*bold`), regexp.MustCompile(`\n# heading`), regexp.MustCompile(`\n- not a list`),
	} {
		if loc := bad.FindStringIndex(outside); loc != nil {
			t.Errorf("Markdown has %q outside the code block, at %q", bad, outside[max(0, loc[0]-20):min(len(outside), loc[1]+20)])
		}
	}
	if !strings.Contains(outside, "&lt;img src=x onerror=alert(1)&gt;") || !strings.Contains(outside, "@\u2060octocat") {
		t.Errorf("the names are not shown escaped:\n%s", outside)
	}
	// Every table line has its four cells: five unescaped '|'.
	unescaped := regexp.MustCompile(`(^|[^\\])\|`)
	for line := range strings.SplitSeq(outside, "\n") {
		if strings.HasPrefix(line, "|") {
			if n := len(unescaped.FindAllString(line, -1)); n != 5 {
				t.Errorf("table line with %d cell borders, want 5: %q", n, line)
			}
		}
	}
	// Inside the block every line is indented into the list item.
	for line := range strings.SplitSeq(block, "\n") {
		if !strings.HasPrefix(line, "  ") {
			t.Errorf("a line of the code block leaves the list item: %q", line)
		}
	}
}
