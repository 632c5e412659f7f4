// Package escape makes outside text safe to show in the replies patchbot
// posts: benchmark names and units, package paths, branch names, commit
// subjects, a reviewer's own words, the output of a build or a benchmark.
// Whoever wrote that text (the author of the change under review, a
// commenter) must not make the bot's reply mention people, link, show
// images or HTML, or change the reply's layout.
//
// There is one function per medium, and every reply goes through the one
// of its medium: Markdown for a GitHub comment, Gerrit for a Gerrit review
// message. Each returns text that shows what it was given, on one line,
// and does nothing else. Text in a code block (MarkdownFence) needs no
// escaping on GitHub; MarkdownCode shows a value as code when it can.
//
// Both break what would act with a WORD JOINER (U+2060): it is invisible
// and keeps the characters around it together, but it is no letter, digit
// or punctuation, so the patterns that find mentions and links no longer
// match. A backslash would do for some of them in Markdown, but GitHub
// finds mentions and issue references in the text after rendering, where
// a backslash is gone; and Gerrit shows a backslash as it is.
package escape

import (
	"regexp"
	"strings"
)

// wj is the WORD JOINER, U+2060.
const wj = "\u2060"

// bidi holds the characters that change the direction text is shown in:
// the marks (U+200E, U+200F, U+061C), embeddings and overrides (U+202A to
// U+202E) and isolates (U+2066 to U+2069). A benchmark's output or name
// holding U+202E shows its text backwards and the rest of the line in its
// order ("Trojan Source", CVE-2021-42574), in a code block as in text.
var bidi = strings.NewReplacer(
	"\u061c", "", "\u200e", "", "\u200f", "",
	"\u202a", "", "\u202b", "", "\u202c", "", "\u202d", "", "\u202e", "",
	"\u2066", "", "\u2067", "", "\u2068", "", "\u2069", "",
)

// NoBidi returns s without the characters that change the direction of
// text (bidi), for outside text that goes into a reply, a page or a log
// unescaped, such as a code block's lines. Markdown and Gerrit remove
// them too. Bytes that are not UTF-8 become U+FFFD first: removed from
// between them, a character could leave two halves that join into one
// (an invalid byte, U+2066, then the rest of U+202E's bytes).
func NoBidi(s string) string { return bidi.Replace(strings.ToValidUTF8(s, "\uFFFD")) }

// markdown escapes text for GitHub Markdown: the characters that start
// HTML, entities, links, images, emphasis, code, table cells, headings
// and math are backslash-escaped or written as entities; a mention
// (@login, @org/team), an issue reference (#123, owner/repo#123) and a URL
// autolink (scheme://) are broken by a word joiner; line breaks and tabs
// become spaces, so that the text stays on its line.
var markdown = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"|", "\\|", "!", "\\!", "~", "\\~", "$", "\\$",
	"#", "\\#"+wj, // no heading, no issue reference
	"@", "@"+wj, // no mention, no notification, no e-mail autolink
	"://", ":"+wj+"//", // no URL autolink
	"\r\n", " ", "\r", " ", "\n", " ", "\t", " ",
)

// markdownWords are the autolinks of GitHub that start with letters:
// www.example.com (GFM's extended www autolink) and GH-123 (an issue
// reference). The word joiner goes before the '.' or the '-'.
var markdownWords = regexp.MustCompile(`(?i)www\.|\bgh-`)

// markdownListStart is the start of a line that would make a list item
// or a thematic break: "-", "+", "1." or "1)".
var markdownListStart = regexp.MustCompile(`^([-+]|[0-9]+[.)])`)

// Markdown returns s as GitHub Markdown text that shows s, on one line,
// and does nothing else: no mention, no issue reference, no link or
// autolink, no image, no HTML, no emphasis, no code, no table cell, no
// heading, list or quote even at the start of a line or of a list item,
// and no change of direction (NoBidi). Leading and trailing spaces may
// not show.
func Markdown(s string) string {
	s = NoBidi(s)
	s = markdownWords.ReplaceAllStringFunc(s, func(m string) string {
		return m[:len(m)-1] + wj + m[len(m)-1:]
	})
	s = markdown.Replace(s)
	if m := markdownListStart.FindString(s); m != "" {
		s = m[:len(m)-1] + "\\" + s[len(m)-1:]
	}
	if strings.HasPrefix(s, " ") {
		// Four spaces at the start of a line would make code: the
		// first one, as an entity, is text.
		s = "&#32;" + s[1:]
	}
	return s
}

// MarkdownCode returns s as a Markdown code span, in which nothing
// renders, links or mentions; or as Markdown text when s holds what a
// code span cannot (a backtick, a line break, a '|', which would split a
// table cell).
func MarkdownCode(s string) string {
	if s == "" || strings.ContainsAny(s, "`\r\n|") {
		return Markdown(s)
	}
	return "`" + s + "`"
}

// MarkdownFence returns the fence of a Markdown code block holding text:
// three backticks, or more than the longest run of backticks in text, so
// that text cannot end the block. Nothing in a code block renders, links
// or mentions.
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

// gerrit escapes text for a Gerrit review message (see Gerrit).
var gerrit = strings.NewReplacer(
	"@", "@"+wj,
	"://", ":"+wj+"//",
	"](", "]"+wj+"(", // no Markdown link or image
	"]:", "]"+wj+":", // no Markdown link definition
	"\r\n", " ", "\r", " ", "\n", " ", "\t", " ",
)

// gerritDot is a '.' that a host name could go on from.
var gerritDot = regexp.MustCompile(`\.([A-Za-z0-9_-])`)

// Gerrit returns s as text of a Gerrit review message that shows s, on one
// line, and does nothing else. Gerrit's web UI (3.x) shows a message as
// plain text or as Markdown, and in both it makes links of what looks like
// a URL, with or without a scheme ("https://evil.example/", "evil.com/x",
// "www.evil.com"), and of e-mail addresses; in Markdown also of
// "[text](url)". It shows "@" followed by an e-mail address as the account,
// and its reply dialog adds the accounts mentioned in a reply (one that
// quotes the bot's message, say) to the change's attention set and CC.
// HTML it escapes, and Markdown images it shows as text.
//
// The Gerrit 3.10 server itself does nothing with a mention in a message
// posted through its REST API (checked on the test server: neither the
// reviewers, the CCs nor the attention set change, and its classes hold
// no mention handling), but its UI does as above, and later servers may
// notify. So Gerrit breaks, with a word joiner: every '@' (no mention, no
// e-mail address), every "://" (no URL), every '.' before a letter, a
// digit, '_' or '-' (no host name, with or without a scheme), and "](" and "]:" (no
// Markdown link, image or link definition). Line breaks and tabs become spaces, so that the text
// stays on its line (and in its column of a table): it cannot start a line
// of its own, preformatted, quoted or looking like a command. Direction
// controls are removed (NoBidi).
func Gerrit(s string) string {
	s = gerrit.Replace(NoBidi(s))
	return gerritDot.ReplaceAllString(s, "."+wj+"$1")
}
