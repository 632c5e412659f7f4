package command

import (
	"strings"
)

// Which lines of a message GitHub shows as text: a reading of the block
// structure of CommonMark (spec 0.31.2) and GitHub Flavored Markdown, as
// far as it decides whether a line is a line of its own in a paragraph
// that no block quote holds. It reads containers (block quotes, list
// items, and the lazy continuation of a paragraph into them), fenced and
// indented code, the seven kinds of HTML block, headings, thematic
// breaks and tables, and in a paragraph the code spans and raw HTML
// (comments above all) that run over a line end. It renders nothing.
//
// Where it simplifies, it errs on the side of "not a command": a command
// that did not run gets a reviewer's second look, one that runs unseen
// does not.

// A line is a line of a message that GitHub shows as text at the start
// of a line of a paragraph (or heading) outside block quotes and that
// starts, after at most three spaces and any U+200B or U+FEFF, with
// Prefix.
type line struct {
	n    int    // 1-based
	rest string // after Prefix
}

// commandLines returns the lines of text that are command lines: those
// GitHub shows as text of their own starting with Prefix. Parse decides
// what each says.
func commandLines(text string) []line {
	var s mdScanner
	for i, l := range strings.Split(text, "\n") {
		s.line(i+1, strings.TrimSuffix(l, "\r"))
	}
	s.closeLeaf()
	return s.found
}

// A container is an open block quote, or list item whose content is
// indented indent columns.
type container struct {
	quote  bool
	indent int
}

type leafKind int

const (
	noLeaf    leafKind = iota
	paragraph          // lines of text
	table              // a GFM table: every line a row
	fenced             // fenced code, closed by fence
	indented           // indented code
	htmlBlock          // raw HTML, closed by htmlEnd or a blank line
)

// A paraLine is one line of the open paragraph: its content (without
// containers and leading space) and the source line, which Parse reads.
type paraLine struct {
	n       int
	content string
	source  string
}

type mdScanner struct {
	open    []container
	leaf    leafKind
	fence   string // fenced: the opening fence, ``` or ~~~ or longer
	htmlEnd string // htmlBlock: what ends it ("" for a blank line)
	para    []paraLine
	quoted  bool // the paragraph is in a block quote
	found   []line
}

func (s *mdScanner) line(n int, source string) {
	l := expandTabs(source)
	// The open containers that the line continues.
	pos, matched := 0, 0
	for matched < len(s.open) {
		c := s.open[matched]
		rest := l[pos:]
		if c.quote {
			i := indentOf(rest)
			if i > 3 || i == len(rest) || rest[i] != '>' {
				break
			}
			pos += i + 1
			if pos < len(l) && l[pos] == ' ' {
				pos++
			}
		} else {
			if isBlank(rest) {
				matched++
				continue
			}
			if indentOf(rest) < c.indent {
				break
			}
			pos += c.indent
		}
		matched++
	}
	rest := l[pos:]

	if matched < len(s.open) {
		// A lazy continuation line: text that continues a paragraph
		// of the containers it does not continue.
		if s.leaf == paragraph && !isBlank(rest) && !startsBlock(rest) {
			s.para = append(s.para, paraLine{n, strings.TrimLeft(rest, " "), source})
			return
		}
		s.closeLeaf()
		s.open = s.open[:matched]
	}

	// The leaf blocks that a line continues as it is.
	switch s.leaf {
	case fenced:
		if closesFence(rest, s.fence) {
			s.leaf = noLeaf
		}
		return
	case htmlBlock:
		if s.htmlEnd == "" && isBlank(rest) {
			s.leaf = noLeaf
		} else if s.htmlEnd != "" && strings.Contains(strings.ToLower(rest), s.htmlEnd) {
			s.leaf = noLeaf
		}
		return
	case indented:
		if isBlank(rest) || indentOf(rest) >= 4 {
			return
		}
		s.closeLeaf()
	case paragraph:
		i := indentOf(rest)
		if i <= 3 && isSetextUnderline(rest[i:]) {
			s.closeLeaf() // a heading: its lines were text all the same
			return
		}
		if i <= 3 && len(s.para) > 0 && isDelimiterRow(rest[i:], cells(s.para[len(s.para)-1].content)) {
			// A table: its header row is the paragraph's last line.
			s.para = s.para[:len(s.para)-1]
			s.closeLeaf()
			s.leaf = table
			return
		}
	case table:
		if !isBlank(rest) && !startsBlock(rest) {
			return // a row
		}
		s.closeLeaf()
	}

	// New containers.
	for {
		i := indentOf(rest)
		if i > 3 || i == len(rest) {
			break
		}
		r := rest[i:]
		if r[0] == '>' {
			s.closeLeaf()
			s.open = append(s.open, container{quote: true})
			rest = r[1:]
			if rest != "" && rest[0] == ' ' {
				rest = rest[1:]
			}
			continue
		}
		w, ok := listMarker(r, s.leaf == paragraph)
		if !ok {
			break
		}
		s.closeLeaf()
		s.open = append(s.open, container{indent: i + w})
		rest = r[min(w, len(r)):]
	}

	// The leaf the line is or begins.
	if isBlank(rest) {
		if s.leaf == paragraph {
			s.closeLeaf()
		}
		return
	}
	i := indentOf(rest)
	if i >= 4 {
		if s.leaf == paragraph {
			s.para = append(s.para, paraLine{n, strings.TrimLeft(rest, " "), source})
		} else {
			s.leaf = indented
		}
		return
	}
	r := rest[i:]
	switch {
	case fenceOf(r) != "":
		s.closeLeaf()
		s.leaf, s.fence = fenced, fenceOf(r)
		return
	case isATXHeading(r), isThematicBreak(r):
		s.closeLeaf()
		return
	}
	if end, ok := htmlStart(r, s.leaf == paragraph); ok {
		s.closeLeaf()
		s.leaf, s.htmlEnd = htmlBlock, end
		if end != "" && strings.Contains(strings.ToLower(r[1:]), end) {
			s.leaf = noLeaf // ends on the line it starts
		}
		return
	}
	if s.leaf != paragraph {
		s.closeLeaf()
		s.leaf = paragraph
		s.quoted = false
		for _, c := range s.open {
			s.quoted = s.quoted || c.quote
		}
	}
	s.para = append(s.para, paraLine{n, r, source})
}

// closeLeaf closes the open leaf block; a paragraph's command lines are
// found once it is whole, as its inline code and HTML may run on over
// its lines.
func (s *mdScanner) closeLeaf() {
	if s.leaf == paragraph && !s.quoted {
		hidden := hiddenLines(s.para)
		for i, p := range s.para {
			if hidden[i] {
				continue
			}
			if rest, ok := commandLine(p.source); ok {
				s.found = append(s.found, line{p.n, rest})
			}
		}
	}
	s.leaf, s.para, s.quoted = noLeaf, nil, false
}

// commandLine returns the rest of a source line after Prefix, when it is
// a command line: at most three spaces (four, or a tab, make code in
// Markdown and a preformatted line in Gerrit), any zero-width spaces or
// byte order marks (shown as nothing), then Prefix and a space or the
// line's end ("/patchbots" is not one).
func commandLine(source string) (string, bool) {
	body := strings.TrimLeft(source, " ")
	if len(source)-len(body) > 3 {
		return "", false
	}
	body = strings.TrimLeft(body, "\u200b\ufeff")
	rest, ok := strings.CutPrefix(body, Prefix)
	if !ok || (rest != "" && !startsWithSpace(rest)) {
		return "", false
	}
	return rest, true
}

// expandTabs replaces each tab with the spaces to the next multiple of
// four columns, as CommonMark reads them for the structure of blocks.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func isBlank(s string) bool { return strings.Trim(s, " ") == "" }

// startsBlock reports whether a line (after the containers it continues)
// starts a block that ends a paragraph: it is then no lazy continuation.
func startsBlock(rest string) bool {
	i := indentOf(rest)
	if i > 3 {
		return false
	}
	r := rest[i:]
	if r[0] == '>' || fenceOf(r) != "" || isATXHeading(r) || isThematicBreak(r) {
		return true
	}
	if _, ok := listMarker(r, true); ok {
		return true
	}
	_, ok := htmlStart(r, true)
	return ok
}

// fenceOf returns the fence a line opens (``` or ~~~, or longer), or "".
// A backtick fence's info string holds no backtick.
func fenceOf(body string) string {
	for _, c := range []string{"`", "~"} {
		after := strings.TrimLeft(body, c)
		n := len(body) - len(after)
		if n >= 3 && (c == "~" || !strings.Contains(after, "`")) {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// closesFence reports whether a line closes the fence.
func closesFence(rest, fence string) bool {
	i := indentOf(rest)
	if i > 3 {
		return false
	}
	r := rest[i:]
	return strings.HasPrefix(r, fence) && isBlank(strings.TrimLeft(r, fence[:1]))
}

func isATXHeading(r string) bool {
	after := strings.TrimLeft(r, "#")
	n := len(r) - len(after)
	return n >= 1 && n <= 6 && (after == "" || after[0] == ' ')
}

// isThematicBreak reports whether r is three or more of one of - _ *,
// with spaces between.
func isThematicBreak(r string) bool {
	if r == "" || !strings.ContainsRune("-_*", rune(r[0])) {
		return false
	}
	t := strings.ReplaceAll(r, " ", "")
	return len(t) >= 3 && strings.Trim(t, r[:1]) == ""
}

func isSetextUnderline(r string) bool {
	t := strings.TrimRight(r, " ")
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// listMarker returns the width of the list item marker that r starts
// with, and the spaces after it up to the item's content; in a paragraph
// only a marker with content after it, and for an ordered list only 1,
// start one.
func listMarker(r string, inParagraph bool) (int, bool) {
	if isThematicBreak(r) {
		return 0, false
	}
	var w int
	switch {
	case r[0] == '-' || r[0] == '+' || r[0] == '*':
		w = 1
	default:
		d := len(r) - len(strings.TrimLeft(r, "0123456789"))
		if d < 1 || d > 9 || d == len(r) || (r[d] != '.' && r[d] != ')') {
			return 0, false
		}
		if inParagraph && r[:d] != "1" {
			return 0, false
		}
		w = d + 1
	}
	after := r[w:]
	if isBlank(after) {
		return w + 1, !inParagraph
	}
	sp := indentOf(after)
	switch {
	case sp == 0:
		return 0, false
	case sp > 4:
		sp = 1 // indented code in the item
	}
	return w + sp, true
}

// cells returns the number of cells of a table row.
func cells(row string) int {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	n := 1
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// isDelimiterRow reports whether r is the delimiter row of a table of n
// columns: cells of dashes, each with an optional colon at either end.
func isDelimiterRow(r string, n int) bool {
	t := strings.TrimSpace(r)
	if !strings.Contains(t, "-") || strings.Trim(t, "|:- ") != "" {
		return false
	}
	if !strings.Contains(t, "|") && n != 1 {
		return false
	}
	t = strings.TrimPrefix(t, "|")
	t = strings.TrimSuffix(t, "|")
	parts := strings.Split(t, "|")
	for _, p := range parts {
		p = strings.Trim(strings.TrimSpace(p), ":")
		if p == "" || strings.Trim(p, "-") != "" {
			return false
		}
	}
	return len(parts) == n
}

// htmlBlockTags are the tags of an HTML block of kind 6.
var htmlBlockTags = strings.Fields(`address article aside base basefont blockquote body
	caption center col colgroup dd details dialog dir div dl dt fieldset figcaption
	figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe
	legend li link main menu menuitem nav noframes ol optgroup option p param search
	section summary table tbody td tfoot th thead title tr track ul`)

// htmlStart reports whether r starts an HTML block, and returns what
// ends it: a string the block's last line holds, or "" for a blank line.
// Kind 7 (any other tag alone on its line) does not interrupt a
// paragraph.
func htmlStart(r string, inParagraph bool) (string, bool) {
	if r == "" || r[0] != '<' {
		return "", false
	}
	lower := strings.ToLower(r)
	for _, t := range []string{"pre", "script", "style", "textarea"} { // kind 1
		if after, ok := strings.CutPrefix(lower, "<"+t); ok && (after == "" || strings.ContainsRune(" \t>", rune(after[0]))) {
			return "</" + t + ">", true
		}
	}
	switch {
	case strings.HasPrefix(r, "<!--"):
		return "-->", true
	case strings.HasPrefix(r, "<?"):
		return "?>", true
	case strings.HasPrefix(r, "<![CDATA["):
		return "]]>", true
	case len(r) > 2 && r[1] == '!' && 'A' <= r[2] && r[2] <= 'Z':
		// CommonMark 0.31 takes any letter; cmark-gfm (GitHub) and
		// goldmark take upper case only.
		return ">", true
	}
	name := strings.TrimPrefix(lower[1:], "/")
	for _, t := range htmlBlockTags { // kind 6
		if after, ok := strings.CutPrefix(name, t); ok && (after == "" || strings.ContainsRune(" \t>", rune(after[0])) || strings.HasPrefix(after, "/>")) {
			return "", true
		}
	}
	if inParagraph { // kind 7
		return "", false
	}
	n := tagLen(r, false)
	if n == 0 || !isBlank(r[n:]) {
		return "", false
	}
	return "", true
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// tagLen returns the length of the open or closing HTML tag that s
// starts with, or 0. With lineEnds, the spaces in it may hold a line end.
func tagLen(s string, lineEnds bool) int {
	i := 1
	space := func() int {
		j := i
		nl := false
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' && lineEnds && !nl) {
			nl = nl || s[j] == '\n'
			j++
		}
		n := j - i
		i = j
		return n
	}
	name := func(first func(byte) bool, more func(byte) bool) bool {
		if i == len(s) || !first(s[i]) {
			return false
		}
		for i++; i < len(s) && more(s[i]); i++ {
		}
		return true
	}
	tagName := func(c byte) bool { return isASCIILetter(c) || '0' <= c && c <= '9' || c == '-' }
	if strings.HasPrefix(s, "</") {
		i = 2
		if !name(isASCIILetter, tagName) {
			return 0
		}
		space()
		if i < len(s) && s[i] == '>' {
			return i + 1
		}
		return 0
	}
	if !name(isASCIILetter, tagName) {
		return 0
	}
	for {
		if space() == 0 {
			break
		}
		attrFirst := func(c byte) bool { return isASCIILetter(c) || c == '_' || c == ':' }
		attrMore := func(c byte) bool { return attrFirst(c) || '0' <= c && c <= '9' || c == '.' || c == '-' }
		if !name(attrFirst, attrMore) {
			break
		}
		save := i
		space()
		if i == len(s) || s[i] != '=' {
			i = save
			continue
		}
		i++
		space()
		if i == len(s) {
			return 0
		}
		switch q := s[i]; q {
		case '"', '\'':
			j := strings.IndexByte(s[i+1:], q)
			if j < 0 {
				return 0
			}
			i += j + 2
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\"'=<>`", rune(s[j])) {
				j++
			}
			if j == i {
				return 0
			}
			i = j
		}
	}
	if strings.HasPrefix(s[i:], "/>") {
		return i + 2
	}
	if i < len(s) && s[i] == '>' {
		return i + 1
	}
	return 0
}

// hiddenLines reports which lines of a paragraph GitHub shows as no line
// of their own: the lines of the link reference definitions it starts
// with (shown as nothing), and those that start inside inline code or raw
// HTML that began on a line before (a code span, a comment, a tag's
// attributes, a <code> element, a link's destination and title).
func hiddenLines(para []paraLine) []bool {
	var b strings.Builder
	starts := make([]int, len(para))
	for i, p := range para {
		if i > 0 {
			b.WriteByte('\n')
		}
		starts[i] = b.Len()
		b.WriteString(p.content)
	}
	text := b.String()
	hidden := make([]bool, len(para))
	hide := func(from, to int) {
		for i, st := range starts {
			if from < st && st < to {
				hidden[i] = true
			}
		}
	}
	defs := linkRefDefs(text)
	hide(-1, defs)
	codeFrom := -1 // where an open <code> element starts
	brackets := 0  // [ that a ]( may close as a link
	for i := defs; i < len(text); {
		switch c := text[i]; {
		case c == '\\' && i+1 < len(text) && isASCIIPunct(text[i+1]):
			i += 2
		case c == '[':
			brackets++
			i++
		case c == ']' && brackets > 0:
			brackets--
			if n := linkTail(text[i+1:]); n > 0 {
				hide(i, i+1+n) // a link's destination and title
				i += 1 + n
			} else {
				i++
			}
		case c == '`':
			n := len(text[i:]) - len(strings.TrimLeft(text[i:], "`"))
			if end := closingRun(text, i+n, n); end > 0 {
				hide(i, end)
				i = end
			} else {
				i += n
			}
		case c == '<':
			n := rawHTMLLen(text[i:])
			if n == 0 {
				i++
				continue
			}
			hide(i, i+n)
			tag := strings.ToLower(text[i : i+n])
			switch {
			case strings.HasPrefix(tag, "<code") && codeFrom < 0 && (len(tag) == 5 || !tagNameByte(tag[5])):
				codeFrom = i
			case strings.HasPrefix(tag, "</code") && codeFrom >= 0:
				hide(codeFrom, i)
				codeFrom = -1
			}
			i += n
		default:
			i++
		}
	}
	if codeFrom >= 0 {
		hide(codeFrom, len(text)+1) // an unclosed <code> runs on to the paragraph's end
	}
	return hidden
}

func tagNameByte(c byte) bool { return isASCIILetter(c) || '0' <= c && c <= '9' || c == '-' }

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// closingRun returns the end of the first run of exactly n backticks in
// text from i, or 0.
func closingRun(text string, i, n int) int {
	for i < len(text) {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			return 0
		}
		i += j
		m := len(text[i:]) - len(strings.TrimLeft(text[i:], "`"))
		if m == n {
			return i + m
		}
		i += m
	}
	return 0
}

// rawHTMLLen returns the length of the inline raw HTML that s starts
// with: a comment, a processing instruction, a declaration, CDATA, or an
// open or closing tag; 0 if none. A comment is taken as CommonMark 0.31
// has it (anything up to -->), which holds more than the older rule does.
func rawHTMLLen(s string) int {
	upTo := func(start int, end string) int {
		if j := strings.Index(s[start:], end); j >= 0 {
			return start + j + len(end)
		}
		return 0
	}
	switch {
	case strings.HasPrefix(s, "<!-->"):
		return 5
	case strings.HasPrefix(s, "<!--->"):
		return 6
	case strings.HasPrefix(s, "<!--"):
		return upTo(4, "-->")
	case strings.HasPrefix(s, "<?"):
		return upTo(2, "?>")
	case strings.HasPrefix(s, "<![CDATA["):
		return upTo(9, "]]>")
	case len(s) > 2 && s[1] == '!' && isASCIILetter(s[2]):
		return upTo(2, ">")
	}
	return tagLen(s, true)
}

// linkRefDefs returns the length of the link reference definitions that
// a paragraph's text starts with, each through its line end: GitHub
// shows none of them.
func linkRefDefs(text string) int {
	end := 0
	for {
		n := linkRefDef(text[end:])
		if n == 0 {
			return end
		}
		end += n
	}
}

// linkRefDef returns the length of the link reference definition that s
// starts with, [label]: destination 'title', through its line end, or 0.
func linkRefDef(s string) int {
	if !strings.HasPrefix(s, "[") {
		return 0
	}
	i, blank := 1, true
	for ; i < len(s) && s[i] != ']'; i++ {
		switch c := s[i]; {
		case c == '[':
			return 0
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i++
			blank = false
		case c != ' ' && c != '\t' && c != '\n':
			blank = false
		}
	}
	if i+1 >= len(s) || blank || i > 1000 || s[i+1] != ':' {
		return 0
	}
	d := spaceAndLineEnd(s, i+2)
	i, ok := linkDest(s, d)
	if !ok || i == d {
		return 0
	}
	if j := spaceAndLineEnd(s, i); j > i {
		if k, ok := linkTitle(s, j); ok {
			if e := lineEndAfter(s, k); e > 0 {
				return e
			}
		}
	}
	return max(lineEndAfter(s, i), 0)
}

// linkDest returns the end of the link destination at s[i:], <...> or
// text without spaces whose parentheses balance; it may be empty.
func linkDest(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '<' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '>':
				return j + 1, true
			case '\n', '<':
				return 0, false
			case '\\':
				j++
			}
		}
		return 0, false
	}
	j, depth := i, 0
	for ; j < len(s) && s[j] > ' ' && s[j] != 0x7f; j++ {
		if s[j] == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]) {
			j++
			continue
		}
		if s[j] == '(' {
			depth++
		} else if s[j] == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	return j, depth == 0 && j > i || j == i
}

// linkTitle returns the end of the link title at s[j:], "...", '...' or
// (...), which may run over lines.
func linkTitle(s string, j int) (int, bool) {
	if j >= len(s) || strings.IndexByte(`"'(`, s[j]) < 0 {
		return 0, false
	}
	closer := s[j]
	if closer == '(' {
		closer = ')'
	}
	for k := j + 1; k < len(s); k++ {
		switch {
		case s[k] == closer:
			return k + 1, true
		case s[k] == '\\':
			k++
		case closer == ')' && s[k] == '(':
			return 0, false
		}
	}
	return 0, false
}

// linkTail returns the length of an inline link's (destination 'title')
// at the start of s, or 0.
func linkTail(s string) int {
	if !strings.HasPrefix(s, "(") {
		return 0
	}
	i := spaceAndLineEnd(s, 1)
	i, ok := linkDest(s, i)
	if !ok {
		return 0
	}
	if j := spaceAndLineEnd(s, i); j > i {
		if k, ok := linkTitle(s, j); ok {
			i = k
		}
	}
	i = spaceAndLineEnd(s, i)
	if i < len(s) && s[i] == ')' {
		return i + 1
	}
	return 0
}

// spaceAndLineEnd returns i past spaces, tabs and at most one line end.
func spaceAndLineEnd(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '\n' {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// lineEndAfter returns where the next line starts if only spaces and tabs
// are left on the line from i, or -1.
func lineEndAfter(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	switch {
	case i == len(s):
		return i
	case s[i] == '\n':
		return i + 1
	}
	return -1
}
