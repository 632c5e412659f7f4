package command

import (
	"slices"
	"strings"
	"testing"
)

// githubShows is what GitHub shows of a comment: the lines it shows as
// text of their own starting with /patchbot (command), and so the only
// lines Parse may take for commands. Each case was rendered with
// cmark-gfm 0.29.0.gfm.6 (cmark-gfm -e table --hardbreaks --unsafe), the
// renderer GitHub's comments use.
var githubShows = []struct {
	name    string
	text    string
	command []int // the lines shown as commands
}{
	{"paragraph", "/patchbot bench", []int{1}},
	{"after text, a line break", "LGTM\n/patchbot bench", []int{2}},

	// Inside an HTML comment: GitHub shows nothing of it.
	{"comment block", "<!--\n/patchbot bench\n-->", nil},
	{"comment block after text", "LGTM\n<!-- hidden\n/patchbot bench -count 50\n-->\n/patchbot freeze", []int{5}},
	{"comment block with blank lines", "<!--\n\n/patchbot bench\n\n-->", nil},
	{"comment block, unclosed", "<!--\n/patchbot bench", nil},
	{"comment block of one line", "<!-- x -->\n/patchbot bench", []int{2}},
	{"inline comment over lines", "LGTM <!-- and\n/patchbot bench\n-->", nil},
	// CommonMark 0.31.2 (and goldmark) takes this for a comment;
	// cmark-gfm 0.29 shows it as text, as the spec before 0.31 had no
	// "--" in a comment. Taken for a comment: the side that runs nothing.
	{"inline comment with --", "LGTM <!-- a -- b\n/patchbot bench\n-->", nil},
	{"inline comment, closed before", "LGTM <!-- x -->\n/patchbot bench", []int{2}},

	// <pre>, <code> and other HTML blocks: raw HTML, not Markdown text.
	{"pre", "<pre>\n/patchbot bench\n</pre>\n/patchbot freeze", []int{4}},
	{"pre with blank lines", "<pre>\n\n/patchbot bench\n\n</pre>", nil},
	{"pre interrupts a paragraph", "LGTM\n<PRE class=x>\n/patchbot bench\n</PRE>", nil},
	{"code block element", "<code>\n/patchbot bench\n</code>", nil},
	{"code block element, then a blank line", "<code>\n/patchbot bench\n\n/patchbot freeze", []int{4}},
	{"code element in a paragraph", "LGTM\n<code>\n/patchbot bench\n</code>", nil},
	{"code element, closed before", "run <code>x</code>\n/patchbot bench", []int{2}},
	{"div block", "<div>\n/patchbot bench\n\n/patchbot freeze\n</div>", []int{4}},
	{"details, then a paragraph", "<details><summary>bench</summary>\n\n/patchbot bench\n\n</details>", []int{3}},
	{"declaration", "<!DOCTYPE x\n/patchbot bench\n>\n/patchbot freeze", []int{4}},
	{"no declaration: lower case", "<!a\n/patchbot bench", []int{2}}, // found by fuzzing the old parser against goldmark
	{"inline span, not a block", "<span>x</span> LGTM\n/patchbot bench", []int{2}},
	{"attribute over lines", "see <span title='\n/patchbot bench\n'>x</span>", nil},

	// Links: a title is shown only on hover, a definition not at all.
	{"link title over lines", "see [docs](/u '\n/patchbot bench\n')", nil},
	{"link reference definition", "[docs]: /u '\n/patchbot bench\n'", nil},
	{"brackets, no link", "see [docs] (x)\n/patchbot bench", []int{2}},

	// Code.
	{"fenced", "```\n/patchbot bench\n```\n/patchbot freeze", []int{4}},
	{"fence in a list item", "- ```\n  /patchbot bench\n  ```", nil},
	{"fence in a quote, closed by the quote's end", "> ```\n> x\n/patchbot bench", []int{3}},
	{"code span over lines", "a `x\n/patchbot bench\n` b", nil},
	{"backticks unmatched", "a `x\n/patchbot bench", []int{2}},
	{"escaped backtick", "a \\`x\n/patchbot bench\n` b", []int{2}},
	{"indented", "    /patchbot bench", nil},

	// Block quotes, and the lazy continuation of their paragraphs.
	{"quoted", "> /patchbot bench", nil},
	{"lazy continuation", "> LGTM\n/patchbot bench", nil},
	{"lazy continuation, nested", "> > LGTM\n/patchbot bench", nil},
	{"lazy continuation in a list in a quote", "> - LGTM\n/patchbot bench", nil},
	{"lazy continuation of a quote in a list", "- > LGTM\n/patchbot bench", nil},
	{"lazy continuation, equals signs", "> LGTM\n===\n/patchbot bench", nil},
	{"quote ended by a blank line", "> LGTM\n\n/patchbot bench", []int{3}},
	{"quote ended by a heading's end", "> # LGTM\n/patchbot bench", []int{2}},
	{"quote ended by a thematic break", "> LGTM\n---\n/patchbot bench", []int{3}},
	{"quoted table ends", "> | a |\n> | - |\n/patchbot bench", []int{3}},

	// Lists: text in a list item is shown as text.
	{"lazy continuation of a list item", "- fix x\n/patchbot bench", []int{2}},
	{"in a list item", "- fix x\n\n  /patchbot bench", []int{3}},

	// Tables: a row is a cell.
	{"table row", "| a |\n| - |\n/patchbot bench\n\n/patchbot freeze", []int{5}},
	{"table header", "/patchbot bench |\n--- |", nil},

	// Headings.
	{"setext heading", "/patchbot bench\n===", []int{1}},
	{"atx heading", "# /patchbot bench", nil},

	// Invisible characters before the command: shown as a command.
	{"zero-width space", "\u200b/patchbot bench", []int{1}},
	{"byte order mark", "\ufeff/patchbot bench", []int{1}},
	{"byte order mark, later", "LGTM\n\ufeff/patchbot bench", []int{2}},
	{"both, indented", "  \u200b\ufeff\u200b/patchbot bench", []int{1}},
	{"zero-width space, then spaces", "\u200b    /patchbot bench", nil}, // shown as text after spaces
}

// hiddenText are messages whose command line GitHub does not show as text
// (checked by hand against GitHub's HTML, not cmark-gfm's cases): an
// image's alt text, and a <code> or <pre> element opened in a link's text
// or mid-paragraph.
var hiddenText = []string{
	"see ![x\n/patchbot bench\n](https://example.com/x.png)",
	"[<code>](u)\n/patchbot bench\n</code>",
	"LGTM <pre>\n/patchbot bench\n</pre>",
	"LGTM <PRE class=x>\n/patchbot bench\n</pre>",
}

func TestHiddenText(t *testing.T) {
	for _, text := range hiddenText {
		if got := parsedCommandLines(text); len(got) != 0 {
			t.Errorf("%q: the parser takes lines %v for commands; GitHub shows none as text", text, got)
		}
	}
	// A longer tag's name is not <pre>: the line after it is text.
	if got := parsedCommandLines("LGTM <prelude>\n/patchbot bench"); len(got) != 1 {
		t.Errorf("after <prelude>: lines %v, want the command", got)
	}
}

// goldmarkDiffers are the cases of githubShows that goldmark, whose tree
// commandLines reads, renders otherwise than cmark-gfm, and why: each on
// the side that runs nothing, a line GitHub shows as a command taken for
// none.
var goldmarkDiffers = map[string]string{
	"quoted table ends": "goldmark continues a table in a quote with a lazy line; cmark-gfm ends the quote",
}

func parsedCommandLines(src string) []int {
	var lines []int
	for _, l := range commandLines(src) {
		lines = append(lines, l.n)
	}
	return lines
}

// TestGitHubShows checks that the parser takes for commands exactly the
// lines GitHub shows as commands, or, where goldmark differs from
// cmark-gfm, fewer.
func TestGitHubShows(t *testing.T) {
	for _, tt := range githubShows {
		t.Run(tt.name, func(t *testing.T) {
			got := parsedCommandLines(tt.text)
			if why, ok := goldmarkDiffers[tt.name]; ok {
				for _, n := range got {
					if !slices.Contains(tt.command, n) {
						t.Errorf("%q: the parser takes line %d, which GitHub does not show as a command", tt.text, n)
					}
				}
				if slices.Equal(got, tt.command) {
					t.Errorf("%q: the parser agrees with GitHub now; drop the difference (%s)", tt.text, why)
				}
				return
			}
			if !slices.Equal(got, tt.command) {
				t.Errorf("%q: the parser takes lines %v, GitHub shows %v as commands", tt.text, got, tt.command)
			}
			c, err := Parse(tt.text)
			if (c != nil || err != nil) != (len(tt.command) > 0) {
				t.Errorf("Parse(%q) = %v, %v", tt.text, c, err)
			}
		})
	}
}

// TestParseZeroWidth checks that a command after invisible characters is
// the command itself.
func TestParseZeroWidth(t *testing.T) {
	for _, text := range []string{"\u200b/patchbot bench -count 5", "\ufeff/patchbot bench -count 5", " \u200b\ufeff/patchbot bench -count 5"} {
		c, err := Parse(text)
		if err != nil || c == nil || c.String() != "/patchbot bench -count 5" {
			t.Errorf("Parse(%q) = %v, %v", text, c, err)
		}
	}
}

// TestParseCut checks that a command line that the message limit cuts is
// an error, not a shorter command: "-count 50" cut to "-count 5" must
// not run with 5.
func TestParseCut(t *testing.T) {
	const want = "line 2: the line is cut at the message limit (65536 bytes) and may have said more: write the command in a shorter message"
	cmd := "/patchbot bench -count 50"
	pad := func(n int) string { return strings.Repeat("x", n) + "\n" }
	for _, tt := range []struct {
		name, text string
		err        string
	}{
		{"cut by Parse", pad(MaxMessage-len("/patchbot bench -count 5")-1) + cmd, want},
		{"cut before", pad(MaxMessage-len(cmd)-1) + cmd, want},
		{"cut before, CRLF", strings.Repeat("x", MaxMessage-len(cmd)-2) + "\r\n" + cmd, want},
		{"cut in the prefix's space", pad(MaxMessage-len("/patchbot")-1) + cmd, want},
		{"line end at the limit", pad(MaxMessage-len(cmd)-1) + cmd + "\n", ""},
		{"CRLF at the limit", pad(MaxMessage-len(cmd)-1) + cmd + "\r\n", ""},
		{"short of the limit", pad(MaxMessage-len(cmd)-2) + cmd, ""},
		{"a line after the command", pad(MaxMessage-len(cmd)-20) + cmd + "\nthanks, and more text", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.text)
			switch {
			case tt.err != "" && (c != nil || err == nil || err.Error() != tt.err):
				t.Errorf("Parse = %v, %v; want error %s", c, err, tt.err)
			case tt.err == "" && (err != nil || c == nil || c.String() != cmd):
				t.Errorf("Parse = %v, %v; want %s", c, err, cmd)
			}
		})
	}
}
