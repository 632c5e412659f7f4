package port

import (
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/step/hgpatch"
)

// TestWriteText checks the text of a result, as 'patchbot port' prints
// it, for each shape of result.
func TestWriteText(t *testing.T) {
	date := time.Date(2014, 11, 6, 15, 4, 5, 0, time.FixedZone("", -8*3600))
	commit := &Commit{
		Hash:       "0123456789abcdef0123456789abcdef01234567",
		Subject:    "encoding/binary: fast path for unsigned integers",
		ChangeID:   "I0123456789abcdef0123456789abcdef01234567",
		Author:     "Gopher <gopher@example.com>",
		AuthorDate: date,
		Files: []FileChange{
			{Path: "src/encoding/binary/binary.go", Op: hgpatch.Modify, Added: 3, Deleted: 1},
			{Path: "src/new.go", OldPath: "src/old.go", Op: hgpatch.Rename},
			{Path: "img.png", Op: hgpatch.Add, Binary: true},
			{Path: "run.sh", Op: hgpatch.Modify, Mode: "100644 -> 100755"},
		},
		Adjustments: []Adjustment{{File: "src/encoding/binary/binary.go", Hunk: 2, Line: 40, Offset: 3, Fuzz: 1}},
	}
	base := "fedcba9876543210fedcba9876543210fedcba98"
	tests := []struct {
		name string
		res  *Result
		want string
	}{
		{
			name: "ported",
			res: &Result{
				Branch:  "port/5a295b08adeb",
				Base:    base,
				Commits: []*Commit{commit},
				Skipped: []*Skipped{
					{Subject: "one", ChangeID: "Iaaaa", Commit: "aaaaaaaaaaaaaaaa"},
					{Subject: "two", ChangeID: "Ibbbb"},
				},
				Remaps: []RemapUse{{Rule: "src/pkg/=src/", From: "src/pkg/encoding/binary/binary.go", To: "src/encoding/binary/binary.go"}},
			},
			want: `already present: one (Change-Id Iaaaa, in aaaaaaaaaaaa)
already present: two (its changes are in fedcba987654 already; the patch applies in reverse)
ported 1 changeset onto fedcba987654 as branch port/5a295b08adeb:

0123456789ab encoding/binary: fast path for unsigned integers
    Author: Gopher <gopher@example.com>, 2014-11-06 15:04:05 -0800
    Change-Id: I0123456789abcdef0123456789abcdef01234567
    src/encoding/binary/binary.go            +3 -1
    src/old.go => src/new.go                 +0 -0 (rename)
    img.png                                  binary (add)
    run.sh                                   +0 -0 (mode 100644 -> 100755)
    note: src/encoding/binary/binary.go: hunk 2 applied at line 40 (offset +3 lines, fuzz 1)

remapped src/pkg/encoding/binary/binary.go -> src/encoding/binary/binary.go (src/pkg/=src/)
`,
		},
		{
			name: "dry run",
			res: &Result{
				Branch: "b", Base: base, DryRun: true,
				Commits: []*Commit{{Hash: "1111", Subject: "s", ChangeID: "I1", Author: "A <a@b>", AuthorDate: date}, {Hash: "2222", Subject: "t", ChangeID: "I2", Author: "A <a@b>", AuthorDate: date}},
				Actions: []string{"create commit 1111", "set branch b"},
			},
			want: `would port 2 changesets onto fedcba987654 as branch b:

1111 s
    Author: A <a@b>, 2014-11-06 15:04:05 -0800
    Change-Id: I1

2222 t
    Author: A <a@b>, 2014-11-06 15:04:05 -0800
    Change-Id: I2

dry run: create commit 1111; set branch b
`,
		},
		{
			name: "up to date",
			res:  &Result{Branch: "b", Base: base, UpToDate: true, Commits: []*Commit{{Hash: "1111", Subject: "s", ChangeID: "I1", Author: "A <a@b>", AuthorDate: date}}},
			want: `branch b already holds this port (1 commit on fedcba987654); nothing to do

1111 s
    Author: A <a@b>, 2014-11-06 15:04:05 -0800
    Change-Id: I1
`,
		},
		{
			name: "nothing",
			res:  &Result{Branch: "b", Base: base, Skipped: []*Skipped{{Subject: "one", ChangeID: "Iaaaa", Commit: "aaaa"}}, Remaps: []RemapUse{{Rule: "a=b", From: "a", To: "b"}}},
			want: `already present: one (Change-Id Iaaaa, in aaaa)
nothing to port: every changeset is already in fedcba987654
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.res.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteText:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
