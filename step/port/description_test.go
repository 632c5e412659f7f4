package port

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
)

// A description is one changeset description to give hg, and what port
// must make of it.
type description struct {
	name string
	desc string // as written to 'hg commit -l'
	// want is the commit message without its Change-Id trailer; "" means
	// exactly what hg stored.
	want string
}

// TestDescriptions commits each description with real hg, exports the
// changesets, ports the export and compares each commit's message with
// what hg stored, byte for byte, apart from the changes docs/port.md lists
// (review lines, rewrites, the Change-Id).
func TestDescriptions(t *testing.T) {
	requireHg(t)
	checkDescriptions(t, []description{
		// hg convert writes two blank lines before its committer: line.
		{"two blank lines before a trailer", "a: b\n\nBody.\n\n\ncommitter: Gopher <gopher@golang.org>", ""},
		{"runs of blank lines in the body", "a: b\n\nOne.\n\n\n\nTwo.\n\n\nThree.", ""},
		{"blank lines before and after", "\n\n  a: b\n\nBody.\n\n\n", ""}, // hg drops them, keeps the indent
		{"trailing spaces and tabs", "a: b  \n\nBody.\t\nmore \t ", ""},   // hg drops them
		{"indented lines", "a: b\n\n    code()\n\tmore()\n  two spaces", ""},
		{"CR characters", "a: b\r\n\r\nBody\rmore\r\n", ""}, // hg makes each CR a line end
		// Not here: a line "# HG changeset patch", or one that starts like
		// a diff ("diff -r"), which end a description in any reader of
		// 'hg export', hg import's included (docs/port.md says so).
		{"header-like lines", "a: b\n\nFrom here on\n---\n--- a/x\nSubject: not a header\n# User nobody\ndiff in prose\n\nSigned-off-by: Ann <ann@golang.org>", ""},
		{"non-ASCII", "net: café ☕ 日本語\n\nÜber straße, naïve résumé: «ok».", ""},
		{"a subject like a trailer", "Subject: b", ""},
		{"review lines", "a: b\n\nBody.\n\nLGTM=r\nR=golang-codereviews, r\nCC=golang-codereviews\nhttps://codereview.appspot.com/170990043", "a: b\n\nBody."},
		{"review lines before a trailer", "a: b\n\nBody.\n\nR=r\nhttps://golang.org/cl/1\n\nCommitter: Rob <r@golang.org>", "a: b\n\nBody.\n\nCommitter: Rob <r@golang.org>"},
		{"review lines between blank runs", "a: b\n\nBody.\n\nR=r\n\n\ncommitter: Rob <r@golang.org>", "a: b\n\nBody.\n\n\ncommitter: Rob <r@golang.org>"},
		{"review lines among trailers", "a: b\n\nBody.\n\nR=r\nSigned-off-by: Ann <ann@golang.org>\nCC=x", "a: b\n\nBody.\n\nSigned-off-by: Ann <ann@golang.org>"},
		{"review-like prose stays", "a: b\n\nR= was how reviewers were named.\nhttps://golang.org/cl/1 was the review.", ""},
		{"fixes issue", "a: b\n\nFixes issue 8311.\n\nR=r", "a: b\n\nFixes #8311."},
	})
}

// TestDescriptionsRandom is the differential form of TestDescriptions:
// random descriptions made of the pieces that have broken messages
// elsewhere (blank lines, spaces, header-like lines, trailers, non-ASCII
// text), committed by real hg, ported, and compared with what hg stored.
// The pieces hold no review line, so the message must be hg's exactly.
func TestDescriptionsRandom(t *testing.T) {
	requireHg(t)
	pieces := []string{"word", "Two words.", "", "", " ", "\t", "  indented", "\tcode()", "trailing  ",
		"---", "From me", "Subject: x", "Signed-off-by: Ann <ann@golang.org>", "committer: Bob <bob@golang.org>",
		"Fixes #12.", "é ☕ 日本", "a\rb", "Change-Ids are added by port", "# Date in prose"}
	r := rand.New(rand.NewPCG(*diffSeed, 16))
	var ds []description
	for i := range 40 {
		lines := []string{fmt.Sprintf("pkg%d: subject %d", i, i)}
		for range r.IntN(12) {
			lines = append(lines, pieces[r.IntN(len(pieces))])
		}
		ds = append(ds, description{name: fmt.Sprint("random", i), desc: strings.Join(lines, "\n")})
	}
	checkDescriptions(t, ds)
}

// checkDescriptions makes one hg changeset per description, exports them
// all in one stream, ports it, and compares.
func checkDescriptions(t *testing.T, ds []description) {
	t.Helper()
	hgDir := t.TempDir()
	run(t, hgDir, "hg", "init", "-q")
	file := filepath.Join(hgDir, "f.txt")
	msgFile := filepath.Join(t.TempDir(), "desc")
	write := func(name, s string) {
		if err := os.WriteFile(name, []byte(s), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write(file, "base\n")
	run(t, hgDir, "hg", "commit", "-q", "-A", "-m", "base", "-u", "Gopher <gopher@golang.org>", "-d", "1400000000 0")
	repo := gitRepoFrom(t, hgDir)
	os.RemoveAll(filepath.Join(repo, ".hg"))
	gittest.Git(t, repo, "add", "-A")
	gittest.Git(t, repo, "commit", "-q", "--amend", "-m", "base")

	stored := make([]string, len(ds))
	for i, d := range ds {
		write(file, fmt.Sprintf("change %d\n", i))
		write(msgFile, d.desc)
		run(t, hgDir, "hg", "commit", "-q", "-l", msgFile, "-u", "Gopher <gopher@golang.org>", "-d", fmt.Sprintf("%d 0", 1400000000+i))
		// The changelog entry itself: the {desc} template strips spaces.
		entry := run(t, hgDir, "hg", "debugdata", "-c", fmt.Sprint(i+1))
		_, stored[i], _ = strings.Cut(entry, "\n\n")
	}
	patch := run(t, hgDir, "hg", "export", "--git", "-r", "1:tip")
	res, err := Port(context.Background(), &Options{Repo: repo, Branch: "ported"}, []Input{{"descriptions.patch", []byte(patch)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) != len(ds) {
		t.Fatalf("%d commits, want %d", len(res.Commits), len(ds))
	}
	for i, d := range ds {
		c := res.Commits[i]
		raw := run(t, repo, "git", "cat-file", "commit", c.Hash)
		_, msg, _ := strings.Cut(raw, "\n\n")
		want := d.want
		if want == "" {
			want = stored[i]
		}
		if wantMsg := addChangeID(want, c.ChangeID); msg != wantMsg {
			t.Errorf("%s: description %q, stored by hg as %q:\nported as %q\n     want %q", d.name, d.desc, stored[i], msg, wantMsg)
		}
	}
}
