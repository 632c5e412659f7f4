package hgpatch

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// A Binary is the 'GIT binary patch' of a file: either the new content in
// full (a literal) or a Git delta against the old content.
type Binary struct {
	Delta bool  // a delta rather than a literal
	Size  int64 // size of the decompressed literal or delta

	frag *gitdiff.BinaryFragment
}

// maxBinary bounds the decompressed size of one binary patch, so that a
// hostile patch cannot ask for gigabytes of memory.
const maxBinary = 256 << 20

// Apply returns the new content of the file whose old content is old.
func (b *Binary) Apply(old []byte) ([]byte, error) {
	var out bytes.Buffer
	a := gitdiff.NewBinaryApplier(&out, bytes.NewReader(old), gitdiff.WithMaxBinaryFragmentBytes(maxBinary))
	if err := a.ApplyFragment(b.frag); err != nil {
		return nil, err
	}
	if err := a.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

var gitdiffLineRE = regexp.MustCompile(`^gitdiff: line (\d+): (.*)$`)

// parseBinary parses the 'GIT binary patch' block in lines (which starts at
// input line first) with go-gitdiff, which knows the base85 and zlib
// encoding, and checks that the data decompresses to its stated size.
func parseBinary(file string, first int, lines []string) (*Binary, error) {
	// go-gitdiff parses whole patches: give it a file header of its own
	// and map its line numbers back to ours.
	const header = "diff --git a/x b/x\n"
	files, _, err := gitdiff.Parse(strings.NewReader(header + strings.Join(lines, "")))
	if err != nil {
		line, msg := first, err.Error()
		if m := gitdiffLineRE.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line, msg = first+n-2, m[2]
		}
		return nil, &SyntaxError{file, line, msg}
	}
	if len(files) != 1 || files[0].BinaryFragment == nil {
		return nil, &SyntaxError{file, first, "GIT binary patch without data"}
	}
	frag := files[0].BinaryFragment
	if frag.Size > maxBinary {
		return nil, &SyntaxError{file, first + 1, fmt.Sprintf("binary patch of %d bytes is larger than the %d bytes allowed", frag.Size, maxBinary)}
	}
	n, err := io.Copy(io.Discard, io.LimitReader(frag.Data(), frag.Size+1))
	if err != nil {
		return nil, &SyntaxError{file, first + 1, "binary patch: " + err.Error()}
	}
	if n != frag.Size {
		return nil, &SyntaxError{file, first + 1, fmt.Sprintf("binary patch: data is %d bytes, header says %d", n, frag.Size)}
	}
	return &Binary{Delta: frag.Method == gitdiff.BinaryPatchDelta, Size: frag.Size, frag: frag}, nil
}
