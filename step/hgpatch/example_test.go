package hgpatch_test

import (
	"fmt"
	"log"

	"github.com/patchbot/patchbot/step/hgpatch"
)

func ExampleParse() {
	patch := `# HG changeset patch
# User Gopher <gopher@golang.org>
# Date 1412345678 25200
# Node ID 5a295b08adebfa3e4ec2e8c6bb0e2ea4f5f4f9d3
# Parent  7ec1a104045e4cc35d8bdabff960da8a99f71778
encoding/binary: add fast path for unsigned integers

R=golang-codereviews

diff -r 7ec1a104045e -r 5a295b08adeb src/pkg/encoding/binary/binary.go
--- a/src/pkg/encoding/binary/binary.go	Tue May 13 16:53:20 2014 +0000
+++ b/src/pkg/encoding/binary/binary.go	Fri Oct 03 07:14:38 2014 -0700
@@ -1,1 +1,1 @@
-case int8:
+case int8, uint8:
`
	patches, err := hgpatch.Parse("fix.patch", []byte(patch))
	if err != nil {
		log.Fatal(err)
	}
	p := patches[0]
	fmt.Println(p.Header.User, p.Header.Date)
	for _, f := range p.Files {
		added, deleted := f.Counts()
		fmt.Printf("%s %s +%d -%d\n", f.Op, f.Name(), added, deleted)
	}

	_, err = hgpatch.Parse("bin.patch", []byte("diff -r 7ec1a104045e logo.gif\nBinary file logo.gif has changed\n"))
	fmt.Println(err)
	// Output:
	// Gopher <gopher@golang.org> 2014-10-03 07:14:38 -0700 -0700
	// modify src/pkg/encoding/binary/binary.go +1 -1
	// bin.patch:2: binary file logo.gif changed, but a plain hg diff carries no binary data: re-export the patch with 'hg export --git' (or 'hg diff --git')
}
