package command

import (
	"strings"
	"testing"
)

// hostileMessages are messages of MaxMessage bytes built to make a
// Markdown parser slow: deep nesting, unclosed delimiters and brackets,
// many link reference definitions, HTML that never ends, and a command
// line after each.
var hostileMessages = map[string]string{
	"quotes":      strings.Repeat(">", MaxMessage/2) + "\n/patchbot bench",
	"lists":       strings.Repeat("- ", MaxMessage/3) + "\n/patchbot bench",
	"brackets":    strings.Repeat("[", MaxMessage-20) + "\n/patchbot bench",
	"links":       strings.Repeat("[a](", MaxMessage/5) + "\n/patchbot bench",
	"emphasis":    strings.Repeat("*a_", MaxMessage/4) + "\n/patchbot bench",
	"backticks":   strings.Repeat("`a``", MaxMessage/5) + "\n/patchbot bench",
	"comments":    strings.Repeat("<!-- ", MaxMessage/6) + "\n/patchbot bench",
	"definitions": strings.Repeat("[x]: /u 'a\n", MaxMessage/12) + "/patchbot bench",
	"table":       "| a |\n| - |\n" + strings.Repeat("| x |\n", MaxMessage/7) + "\n/patchbot bench",
	"lines":       strings.Repeat("LGTM\n", MaxMessage/6) + "/patchbot bench",
	// Found by review: brackets closed on later lines, and lists nested
	// by indentation, each within the per-line bounds.
	"bracket lines": strings.Repeat("[", MaxBrackets) + strings.Repeat("]\n", MaxBrackets) + strings.Repeat("x\n", (MaxMessage-4*MaxBrackets)/2-20) + "/patchbot bench",
	"link lines":    strings.Repeat("[a](\n", MaxBrackets) + "\n/patchbot bench",
	"indented lists": func() string {
		var b strings.Builder
		for k := 0; b.Len() < MaxMessage-MaxIndent-200; k++ {
			b.WriteString(strings.Repeat(" ", min(2*k, MaxIndent)) + strings.Repeat("- ", MaxNesting/2) + "x\n")
		}
		return b.String() + "\n/patchbot bench"
	}(),
}

// BenchmarkParse is Parse on each hostile message: the bot parses every
// comment it is sent, before it knows who wrote it.
func BenchmarkParse(b *testing.B) {
	for name, msg := range hostileMessages {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				Parse(msg)
			}
		})
	}
}

// TestIntricate: a message within the bounds of its structure is read,
// one past them holds no command, and the rules and separators reviewers
// write are within them.
func TestIntricate(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("> - ", n/2) + "\n\n/patchbot bench" }
	links := func(n int) string { return strings.Repeat("[a](", n) + "\n\n/patchbot bench" }
	for _, tt := range []struct {
		name string
		text string
		want bool
	}{
		{"nesting at the bound", nest(MaxNesting), true},
		{"nesting past it", nest(MaxNesting + 2), false},
		{"links at the bound", links(MaxLineLinks), true},
		{"links past it", links(MaxLineLinks + 1), false},
		{"a rule of dashes", "LGTM\n\n" + strings.Repeat("-", 200) + "\n/patchbot bench", true},
		{"a rule of stars", strings.Repeat("*", 200) + "\n/patchbot bench", true},
		{"a spaced rule", strings.Repeat("- ", 20) + "\n/patchbot bench", true},
		{"a numbered line", "2026. a year\n\n/patchbot bench", true},
		{"brackets at the bound", strings.Repeat("[x] ", MaxBrackets) + "\n\n/patchbot bench", true},
		{"brackets past it", strings.Repeat("[x] ", MaxBrackets+1) + "\n\n/patchbot bench", false},
		{"indented past the bound", strings.Repeat(" ", MaxIndent+1) + "- x\n\n/patchbot bench", false},
	} {
		c, err := Parse(tt.text)
		if got := c != nil && err == nil; got != tt.want {
			t.Errorf("%s: Parse = %v, %v; want a command: %v", tt.name, c, err, tt.want)
		}
	}
}

// TestHostileMessages: each hostile message parses, and its command is
// found where GitHub shows one (after text that ends its blocks) or not.
func TestHostileMessages(t *testing.T) {
	for name, msg := range hostileMessages {
		c, err := Parse(msg)
		t.Logf("%s: %v, %v", name, c, err)
	}
	for _, name := range []string{"lines", "table"} {
		if c, err := Parse(hostileMessages[name]); c == nil || err != nil {
			t.Errorf("%s: Parse = %v, %v; want the command after them", name, c, err)
		}
	}
}
