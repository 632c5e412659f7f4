package command

import (
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Which lines of a message GitHub shows as text of their own: goldmark's
// parse of it (CommonMark 0.31.2 and GitHub Flavored Markdown's
// extensions, the specs GitHub's renderer, cmark-gfm, implements), read
// for the text that begins a line, outside block quotes, code (spans,
// blocks, <code> elements), HTML blocks and table cells. Link titles,
// link reference definitions and HTML comments are no text in its tree,
// so a command in them is none.
//
// Where goldmark and cmark-gfm differ (githubShows in the tests holds
// cmark-gfm's answers), goldmark's reading is the one that runs nothing:
// a line after a table in a block quote is the table's in goldmark and a
// paragraph of its own in cmark-gfm; "<!-- a -- b" opens a comment in
// CommonMark 0.31.2 and is text in cmark-gfm 0.29. A command that did not
// run gets a reviewer's second look; one that runs unseen does not. On
// top of the tree, one rule of patchbot's own (commandLine): a line
// indented by four columns or more, or by a tab, is no command, since
// Gerrit, whose messages Parse reads too, shows it preformatted.

// A line is a line of a message that GitHub shows as text at the start
// of a line of a paragraph (or heading) outside block quotes and that
// starts, after at most three spaces and any U+200B or U+FEFF, with
// Prefix.
type line struct {
	n    int    // 1-based
	rest string // after Prefix
}

// markdown is goldmark's parser with CommonMark's blocks, GFM's tables,
// and of the inlines only those that hide text or move where a line's
// text starts: code spans, links (a title over lines), autolinks and raw
// HTML. Emphasis and GFM's strikethrough, task lists and bare links change
// how text looks, not which lines it is on; and goldmark's emphasis takes
// quadratic time on a hostile message (1.5 s for 64 KiB of "*a_", where
// the rest takes milliseconds: BenchmarkParse).
var markdown = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(
		util.Prioritized(parser.NewCodeSpanParser(), 100),
		util.Prioritized(parser.NewLinkParser(), 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
	),
	parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
		util.Prioritized(extension.NewTableParagraphTransformer(), 200))...),
	parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
)

// commandLines returns the lines of src that are command lines: those
// GitHub shows as text of their own starting with Prefix. Parse decides
// what each says.
func commandLines(src string) []line {
	if !strings.Contains(src, Prefix) || tooIntricate(src) {
		return nil // most comments: no parse
	}
	source := []byte(src)
	doc := markdown.Parse(text.NewReader(source))
	starts := lineStarts(src)
	var found []line
	// walk reads n's text, code telling whether a <code> or <pre>
	// element is open, and returns whether one is at n's end: an element
	// opened in a link's text runs past the link, as browsers rebuild it.
	var walk func(n ast.Node, code bool) bool
	walk = func(n ast.Node, code bool) bool {
		switch n.(type) {
		case *ast.Blockquote, *ast.CodeSpan, *east.TableCell, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.Image:
			// An image's text is its alt attribute, not shown.
			return code
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.RawHTML:
				// Inline HTML is no text; a <code> or <pre> element
				// makes the text after it, up to its end tag, code.
				for i := range c.Segments.Len() {
					seg := c.Segments.At(i)
					tag := strings.ToLower(string(seg.Value(source)))
					switch {
					case isTag(tag, "<code") || isTag(tag, "<pre"):
						code = true
					case isTag(tag, "</code") || isTag(tag, "</pre"):
						code = false
					}
				}
			case *ast.Text:
				if code {
					continue
				}
				start := c.Segment.Start
				i, _ := slices.BinarySearch(starts, start+1)
				ls := starts[i-1] // the start of start's line
				le := len(src)
				if i < len(starts) {
					le = starts[i] - 1
				}
				l := strings.TrimSuffix(src[ls:le], "\r")
				if start-ls != len(l)-len(strings.TrimLeft(l, " \t")) {
					continue // not at the line's start
				}
				if rest, ok := commandLine(l); ok && (len(found) == 0 || found[len(found)-1].n != i) {
					found = append(found, line{n: i, rest: rest})
				}
			default:
				code = walk(c, code)
			}
		}
		return code
	}
	walk(doc, false)
	slices.SortFunc(found, func(a, b line) int { return a.n - b.n })
	return slices.CompactFunc(found, func(a, b line) bool { return a.n == b.n })
}

// Bounds of a message's structure, past which it is taken to hold no
// command: goldmark's time grows with the square of containers opened
// (a quote in a list in a quote…, on one line or by indentation) and of
// unclosed brackets and links ("[a](" again and again), up to seconds at
// MaxMessage bytes; within these bounds a hostile message takes tens of
// milliseconds (BenchmarkParse). No comment a reviewer writes comes near
// them.
const (
	MaxNesting   = 32  // containers a line opens: "> - > " is three
	MaxLineLinks = 256 // "](" on one line
	MaxBrackets  = 512 // "[" in the message: links' and references' openers
	MaxIndent    = 256 // columns of a line's indentation: a list nested by it
)

// tooIntricate reports whether src is past the bounds of its structure.
func tooIntricate(src string) bool {
	if strings.Count(src, "[") > MaxBrackets {
		return true
	}
	for l := range strings.Lines(src) {
		if len(l)-len(strings.TrimLeft(l, " \t")) > MaxIndent {
			return true
		}
		if strings.Count(l, "](") > MaxLineLinks {
			return true
		}
		depth := 0
		for i := 0; i < len(l); i++ {
			switch c := l[i]; {
			case c == ' ' || c == '\t':
				continue
			case c == '>':
				depth++
				continue
			case (c == '-' || c == '*' || c == '+') && spaceAt(l, i+1):
				depth++ // a list item's marker; "----" is a rule
				continue
			case '0' <= c && c <= '9':
				j := i
				for j < len(l) && '0' <= l[j] && l[j] <= '9' {
					j++
				}
				if j < len(l) && (l[j] == '.' || l[j] == ')') && spaceAt(l, j+1) {
					depth++
					i = j
					continue
				}
			}
			break
		}
		if depth > MaxNesting {
			return true
		}
	}
	return false
}

// spaceAt reports whether l has a space or a tab at i.
func spaceAt(l string, i int) bool { return i < len(l) && (l[i] == ' ' || l[i] == '\t') }

// lineStarts returns the offsets at which src's lines begin.
func lineStarts(src string) []int {
	starts := []int{0}
	for i := range len(src) {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// commandLine returns the rest of a source line after Prefix, when it is
// a command line: at most three spaces (four, or a tab, make code in
// Markdown and a preformatted line in Gerrit), any zero-width spaces or
// byte order marks (shown as nothing), then Prefix and a space or the
// line's end ("/patchbots" is not one).
func commandLine(source string) (string, bool) {
	body := strings.TrimLeft(source, " ")
	if len(source)-len(body) > 3 || strings.HasPrefix(body, "\t") {
		return "", false
	}
	body = strings.TrimLeft(body, "\u200b\ufeff")
	rest, ok := strings.CutPrefix(body, Prefix)
	if !ok || (rest != "" && !startsWithSpace(rest)) {
		return "", false
	}
	return rest, true
}

// isTag reports whether tag begins with the tag named by open ("<code",
// "</pre"), not a longer name ("<codex").
func isTag(tag, open string) bool {
	return strings.HasPrefix(tag, open) && (len(tag) == len(open) || !tagNameByte(tag[len(open)]))
}

// tagNameByte reports whether c may be in an HTML tag's name.
func tagNameByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '-'
}
