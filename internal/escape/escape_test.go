package escape

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	xhtml "golang.org/x/net/html"
)

func TestMarkdown(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"WriteInts-2", "WriteInts-2"},
		{"@octocat", "@\u2060octocat"},
		{"@org/team", "@\u2060org/team"},
		{"[x](https://evil.example)", "\\[x\\](https:\u2060//evil.example)"},
		{"![i](u)", "\\!\\[i\\](u)"},
		{"<img src=x>", "&lt;img src=x&gt;"},
		{"#123", "\\#\u2060123"},
		{"GH-123 and www.evil.example", "GH\u2060-123 and www\u2060.evil.example"},
		{"a|b`c`*d*_e_", "a\\|b\\`c\\`\\*d\\*\\_e\\_"},
		{"line\r\nbreak\ttab", "line break tab"},
		{"- - -", "\\- - -"},
		{"1. one", "1\\. one"},
		{"    code", "&#32;   code"},
		{"ok\u202egnp.exe", "okgnp.exe"},
		{"a\u2066b\u2069\u200fc\u061c", "abc"},
	} {
		if got := Markdown(tt.in); got != tt.want {
			t.Errorf("Markdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"./codec", "`./codec`"},
		{"@octocat", "`@octocat`"},
		{"a|b", "a\\|b"},
		{"a`b", "a\\`b"},
		{"", ""},
	} {
		if got := MarkdownCode(tt.in); got != tt.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGerrit(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"WriteInts-2", "WriteInts-2"},
		{"./codec", "./codec"},
		{"@octocat and @admin@example.com", "@\u2060octocat and @\u2060admin@\u2060example.\u2060com"},
		{"https://evil.example/", "https:\u2060//evil.\u2060example/"},
		{"golang.org/x/perf", "golang.\u2060org/x/perf"},
		{"[x](u) ![i](u)", "[x]\u2060(u) ![i]\u2060(u)"},
		{"[x]: u", "[x]\u2060: u"},
		{"a\nb\r\nc\td", "a b c d"},
		{"ok\u202egnp", "okgnp"},
		{"<img src=x>", "<img src=x>"}, // Gerrit escapes HTML itself
	} {
		if got := Gerrit(tt.in); got != tt.want {
			t.Errorf("Gerrit(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// seeds are inputs that act when shown raw: mentions, links, images,
// HTML, references, code and table syntax, line breaks, invisible
// characters.
var seeds = []string{
	"ok\u202egnp.exe\u2066x\u2069",
	"@org/team",
	"@octocat",
	"[x](https://evil.example)",
	"<img src=x>",
	"![i](u)",
	"https://evil.example/",
	"#123",
	"owner/repo#123 GH-7",
	"`code` ``x``",
	"a|b\\|c",
	"line\nbreak\r\n- item\n> quote\n# heading",
	"\u200b@octocat",
	"x\u200b#1",
	"www.evil.example and evil.com/x",
	"me@evil.example",
	"<https://evil.example>",
	"*em* _em_ **strong** ~~del~~ $x$",
	"- - -",
	"1. one",
	"    code",
	"[x]: https://evil.example",
	"&amp; &lt;b&gt;",
	"\\@octocat \\[x\\](y)",
}

// contexts are the places a reply puts escaped Markdown text: within a
// paragraph, at the start of a list item, in a table cell.
var contexts = []struct {
	name, before, after string
	text                string   // the text the context itself shows, %s for the input's
	allowed             []string // the elements the context itself makes
}{
	{"paragraph", "x ", " y", "x %s y", []string{"p"}},
	{"list item", "- ", "", "%s", []string{"ul", "li"}},
	{"table cell", "| a |\n|:--|\n| ", " |", "a %s", []string{"table", "thead", "tbody", "tr", "th", "td"}},
}

// gfm renders like GitHub: CommonMark, GitHub's extensions (tables,
// autolinks, strikethrough, task lists) and raw HTML passed through, so
// that HTML in the output is seen.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

// githubActs matches what GitHub makes act in a text node after rendering:
// a mention, an issue reference.
var githubActs = regexp.MustCompile(`(?i)@[a-z0-9]|#[0-9]|\bgh-[0-9]`)

// FuzzMarkdown checks that Markdown's output, rendered as GitHub renders
// it in each context, holds no element but the context's own (no link,
// image, HTML, emphasis, code, heading, list or quote that the input put
// there), no mention or issue reference, and shows the input's text; that
// MarkdownCode's output makes a code span at most; and that the input
// cannot end a code block fenced with MarkdownFence.
func FuzzMarkdown(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if fence := MarkdownFence(s); strings.Contains(s, fence) {
			t.Fatalf("MarkdownFence(%q) = %q, which is in the text", s, fence)
		}
		code := MarkdownCode(s)
		var out bytes.Buffer
		if err := gfm.Convert([]byte("| a |\n|:--|\n| "+code+" |"), &out); err != nil {
			t.Fatal(err)
		}
		doc, err := xhtml.Parse(&out)
		if err != nil {
			t.Fatal(err)
		}
		for n := range doc.Descendants() {
			if n.Type == xhtml.ElementNode && !contains([]string{"html", "head", "body", "table", "thead", "tbody", "tr", "th", "td", "code"}, n.Data) {
				t.Fatalf("MarkdownCode(%q) = %q renders a <%s> in a table cell: %s", s, code, n.Data, out.String())
			}
		}

		esc := Markdown(s)
		if strings.ContainsAny(esc, directionControls) {
			t.Fatalf("Markdown(%q) = %q changes the text's direction", s, esc)
		}
		for _, c := range contexts {
			var out bytes.Buffer
			if err := gfm.Convert([]byte(c.before+esc+c.after), &out); err != nil {
				t.Fatal(err)
			}
			doc, err := xhtml.Parse(&out)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for n := range doc.Descendants() {
				switch n.Type {
				case xhtml.ElementNode:
					switch n.Data {
					case "html", "head", "body":
					default:
						if !contains(c.allowed, n.Data) {
							t.Fatalf("%s: Markdown(%q) = %q renders a <%s>: %s", c.name, s, esc, n.Data, out.String())
						}
					}
				case xhtml.TextNode:
					if githubActs.MatchString(n.Data) {
						t.Fatalf("%s: Markdown(%q) = %q renders %q, a mention or reference", c.name, s, esc, n.Data)
					}
					text.WriteString(n.Data)
				case xhtml.CommentNode:
					t.Fatalf("%s: Markdown(%q) = %q renders an HTML comment", c.name, s, esc)
				}
			}
			if got, want := normal(text.String()), normal(strings.Replace(c.text, "%s", s, 1)); got != want {
				t.Fatalf("%s: Markdown(%q) = %q shows %q, want %q", c.name, s, esc, got, want)
			}
		}
	})
}

// gerritActs matches what Gerrit's UI makes a link or a mention of, and
// more: any scheme:// (its http(s) links, Markdown's and ba-linkify's
// autolinks), a host name (a '.' then a letter, digit, '_' or '-': its
// schemeless links), '@' then anything but a word joiner (mentions,
// e-mail addresses), a Markdown link, image or link definition, and a
// line break or tab.
var gerritActs = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://|\.[A-Za-z0-9_-]|@[^\x{2060}]|@$|\]\(|\]:|[\r\n\t]`)

// FuzzGerrit checks that Gerrit's output has nothing that Gerrit's UI
// makes a link or a mention of (gerritActs), and shows the input's text.
func FuzzGerrit(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		esc := Gerrit(s)
		if strings.ContainsAny(esc, directionControls) {
			t.Fatalf("Gerrit(%q) = %q changes the text's direction", s, esc)
		}
		if m := gerritActs.FindString(esc); m != "" {
			t.Fatalf("Gerrit(%q) = %q holds %q", s, esc, m)
		}
		if got := strings.ReplaceAll(esc, wj, ""); normal(got) != normal(s) {
			t.Fatalf("Gerrit(%q) = %q shows %q", s, esc, got)
		}
	})
}

// normal returns s as its text is compared: valid UTF-8, without the
// characters a renderer drops or replaces (NUL, U+FFFD) nor word joiners,
// with its runs of white space as single spaces.
// directionControls are the characters NoBidi removes.
const directionControls = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

func normal(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.NewReplacer("\x00", "", "\uFFFD", "", wj, "").Replace(NoBidi(s))
	return strings.Join(strings.Fields(s), " ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
