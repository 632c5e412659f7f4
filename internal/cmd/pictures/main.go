// Pictures makes the pictures of the docs from the program's own output:
// each source in docs/pictures (a review message as patchbot posts it,
// Markdown) rendered as GitHub renders a comment's Markdown (goldmark with
// GitHub's extensions, in a stylesheet after GitHub's), and photographed
// by headless chromium. It writes each picture next to its source and
// records both in docs/pictures/pictures.sum, the SHA-256 of the source a
// picture was made from: the docs test (TestPictures) fails when a source
// is no longer what the code renders, or a picture is older than its
// source.
//
// Usage, from the repository's root (scripts/pictures):
//
//	go run ./internal/cmd/pictures [-chromium PATH]
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Dir is where the sources and the pictures are.
const Dir = "docs/pictures"

// A picture is made from a source file in Dir.
type picture struct {
	source string // Markdown, as patchbot posts it
	png    string
	title  string // what the frame says above the comment
}

var pictures = []picture{
	{"pr-comment.md", "pr-comment.png", "patchbot commented"},
}

// width is the pictures' width in CSS pixels: GitHub's comment column.
const width = 880

func main() {
	chromium := flag.String("chromium", "chromium", "the headless browser")
	flag.Parse()
	var sums strings.Builder
	for _, p := range pictures {
		src, err := os.ReadFile(filepath.Join(Dir, p.source))
		if err != nil {
			fail(err)
		}
		page, err := render(src, p.title)
		if err != nil {
			fail(fmt.Errorf("%s: %v", p.source, err))
		}
		if err := shoot(*chromium, page, filepath.Join(Dir, p.png)); err != nil {
			fail(fmt.Errorf("%s: %v", p.png, err))
		}
		sum := sha256.Sum256(src)
		fmt.Fprintf(&sums, "%s  %s  %s\n", hex.EncodeToString(sum[:]), p.source, p.png)
		fmt.Printf("pictures: %s from %s\n", filepath.Join(Dir, p.png), p.source)
	}
	if err := os.WriteFile(filepath.Join(Dir, "pictures.sum"), []byte(sums.String()), 0o666); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pictures:", err)
	os.Exit(1)
}

// render returns the HTML page of a comment whose Markdown is src: what
// GitHub's renderer does with it, GitHub Flavored Markdown's tables and
// autolinks, and raw HTML left out, as GitHub sanitises it (patchbot's
// hidden marker comment among it).
func render(src []byte, title string) ([]byte, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	var body bytes.Buffer
	if err := md.Convert(src, &body); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>%s</style></head>
<body><div class="comment"><div class="header"><b>patchbot</b> %s</div><div class="body">%s</div></div></body></html>
`, style, html.EscapeString(strings.TrimPrefix(title, "patchbot ")), body.String())
	return b.Bytes(), nil
}

// style is after GitHub's comment: its fonts, the table's borders and
// stripes, the code's background.
const style = `
body { margin: 0; padding: 16px; background: #fff; width: 880px; box-sizing: border-box;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, "DejaVu Sans", sans-serif; color: #1f2328; }
.comment { border: 1px solid #d1d9e0; border-radius: 6px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; border-radius: 6px 6px 0 0; color: #59636e; }
.header b { color: #1f2328; }
.body { padding: 16px; }
.body > :first-child { margin-top: 0; }
.body > :last-child { margin-bottom: 0; }
p, ul, table, pre { margin: 0 0 16px; }
ul { padding-left: 2em; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 85%; }
code { background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; overflow: auto; }
pre code { background: none; padding: 0; font-size: 100%; }
table { border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
a { color: #0969da; text-decoration: none; }
`

// heightRE finds the height the page's script wrote into its title.
var heightRE = regexp.MustCompile(`<title>(\d+)</title>`)

// shoot photographs page, whole, into png: a first run of chromium
// measures the page's height, the second takes the picture at that size.
func shoot(chromium string, page []byte, png string) error {
	dir, err := os.MkdirTemp("", "patchbot-pictures-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	measure := bytes.Replace(page, []byte("</body>"), []byte(`<script>document.title = document.documentElement.scrollHeight</script></body>`), 1)
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, measure, 0o666); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + filepath.Join(dir, "profile")}
	out, err := exec.CommandContext(ctx, chromium, append(base, "--dump-dom", "file://"+file)...).Output()
	if err != nil {
		return fmt.Errorf("%s --dump-dom: %v", chromium, err)
	}
	m := heightRE.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("%s --dump-dom: no height in the page", chromium)
	}
	height, _ := strconv.Atoi(string(m[1]))
	if err := os.WriteFile(file, page, 0o666); err != nil {
		return err
	}
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	shot := append(base, fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+abs, "file://"+file)
	if out, err := exec.CommandContext(ctx, chromium, shot...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s --screenshot: %v\n%s", chromium, err, out)
	}
	return nil
}
