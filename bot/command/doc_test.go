package command

import (
	"os"
	"strings"
	"testing"
)

// commandsMarkdown is the command reference of docs/serve.md, made from
// the table.
func commandsMarkdown() string {
	var b strings.Builder
	for _, r := range rules {
		b.WriteString("\n### `" + r.Synopsis + "`\n\n")
		for _, line := range wrap(r.Doc, 76) {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// TestDocsServe checks that docs/serve.md lists the commands of the table,
// as the table says them, between its markers.
func TestDocsServe(t *testing.T) {
	data, err := os.ReadFile("../../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- commands: made from bot/command's table; TestDocsServe checks it -->\n", "\n<!-- end of commands -->"
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/serve.md lacks the markers %q and %q", begin, end)
	}
	if got, want := doc[i+len(begin):j], commandsMarkdown(); got != want {
		t.Errorf("docs/serve.md's commands differ from the table; write this between the markers:\n%s", want)
	}
}
