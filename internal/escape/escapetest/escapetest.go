// Package escapetest checks a whole reply as GitHub and Gerrit would show
// it, for the tests of the packages that compose replies: what in it acts
// (a link, an image, HTML, a mention, an issue reference). Only tests
// import it, and with it the Markdown renderer.
package escapetest

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	xhtml "golang.org/x/net/html"
)

// gfm renders like GitHub: CommonMark with GitHub's extensions (tables,
// autolinks, strikethrough, task lists), raw HTML passed through so that
// HTML in the output is seen.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

// layout are the elements patchbot's own Markdown makes: paragraphs,
// lists, tables, bold package names, code spans and blocks.
var layout = []string{"html", "head", "body", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "strong", "code", "pre"}

// githubActs is what GitHub makes act in text after rendering: a mention
// (@login, @org/team) and an issue reference (#123, GH-123).
var githubActs = regexp.MustCompile(`(?i)@[a-z0-9]|#[0-9]|\bgh-[0-9]`)

// MarkdownActs renders md as GitHub does and returns what in it acts: each
// element that is not layout (a link, an image, HTML, a heading, a quote),
// each comment, and each mention or issue reference in text outside code.
// The first line of a comment, patchbot's hidden marker, is patchbot's
// own HTML comment and is left out.
func MarkdownActs(md string) []string {
	if strings.HasPrefix(md, "<!-- patchbot:") {
		_, md, _ = strings.Cut(md, "\n")
	}
	var out bytes.Buffer
	if err := gfm.Convert([]byte(md), &out); err != nil {
		return []string{"render: " + err.Error()}
	}
	doc, err := xhtml.Parse(&out)
	if err != nil {
		return []string{"parse: " + err.Error()}
	}
	var acts []string
	for n := range doc.Descendants() {
		switch n.Type {
		case xhtml.ElementNode:
			if !slices.Contains(layout, n.Data) {
				acts = append(acts, fmt.Sprintf("<%s> %v", n.Data, n.Attr))
			}
		case xhtml.CommentNode:
			acts = append(acts, "<!--"+n.Data+"-->")
		case xhtml.TextNode:
			if inCode(n) {
				continue
			}
			for _, m := range githubActs.FindAllString(n.Data, -1) {
				acts = append(acts, fmt.Sprintf("%q in %q", m, n.Data))
			}
		}
	}
	return acts
}

func inCode(n *xhtml.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == xhtml.ElementNode && (p.Data == "code" || p.Data == "pre") {
			return true
		}
	}
	return false
}

// gerritActs is what Gerrit's UI makes a link or a mention of in any
// text, patchbot's own included: '@' then anything but a word joiner, a
// scheme's "://", a Markdown link or image.
var gerritActs = regexp.MustCompile(`@[^\x{2060}]|[A-Za-z][A-Za-z0-9+.-]*://|\]\(`)

// GerritActs returns what in a Gerrit review message acts (gerritActs).
// Host names without a scheme are not looked for: patchbot's own figures
// ("p > 0.05") look like them to Gerrit too.
func GerritActs(text string) []string {
	return gerritActs.FindAllString(text, -1)
}
