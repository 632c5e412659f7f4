package benchrun

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// maxLine is the longest line, newline included, that benchfmt's Reader
// reads: its bufio.Scanner stops there, with "bufio.Scanner: token too
// long" and no line number, and drops the rest of the input.
const maxLine = bufio.MaxScanTokenSize

// A lineLimiter passes its input on to benchfmt's Reader less the lines
// that Reader cannot read: each line longer than maxLine becomes an empty
// line (so that the Reader's line numbers stay right), and long is told of
// it. It holds at most maxLine bytes of any line.
type lineLimiter struct {
	br      *bufio.Reader
	line    int    // the number of the line last read
	pending []byte // what Read has yet to return
	err     error  // the input's error, once pending is returned

	// long is called for each line that is too long, with its number,
	// its length and its first bytes.
	long func(line int, n int64, head []byte)

	// see, when set, is called with each line passed on, newline
	// included, which it must not keep: Compare reads the revision
	// comment (see RevisionKey) there, since benchfmt's Reader skips it.
	see func(line []byte)
}

func newLineLimiter(r io.Reader, long func(line int, n int64, head []byte)) *lineLimiter {
	return &lineLimiter{br: bufio.NewReaderSize(r, maxLine), long: long}
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.next()
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads the next line into pending.
func (l *lineLimiter) next() {
	line, err := l.br.ReadSlice('\n')
	if len(line) > 0 {
		l.line++
	}
	if err == bufio.ErrBufferFull {
		head := bytes.Clone(line[:headLen])
		n := int64(len(line))
		for err == bufio.ErrBufferFull {
			line, err = l.br.ReadSlice('\n')
			n += int64(len(line))
		}
		if bytes.HasSuffix(line, []byte("\n")) {
			n-- // the newline is not the line's
		}
		l.long(l.line, n, head)
		line = []byte("\n")
	}
	if l.see != nil && len(line) > 0 {
		l.see(line)
	}
	l.pending = line // the bufio.Reader's, until the next ReadSlice
	l.err = err
}

// headLen is how much of a line too long to read a message quotes.
const headLen = 120

// benchName returns the benchmark name that begins line, less
// "Benchmark", or "" when line is no benchmark result. A name cut short
// (by headLen) ends in "…".
func benchName(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte("Benchmark"))
	if !ok {
		return ""
	}
	name := rest
	if i := bytes.IndexAny(rest, " \t\r\n"); i >= 0 {
		name = rest[:i]
	}
	// Invalid UTF-8, or a character cut in two, would make the JSON
	// lossy: replace it.
	s := string(bytes.ToValidUTF8(name, []byte("\uFFFD")))
	if len(name) == len(rest) && len(line) >= headLen {
		s += "…"
	}
	return s
}

// tooLong describes a line of n bytes that is longer than maxLine.
func tooLong(n int64) string {
	return fmt.Sprintf("line of %d bytes, longer than the %d a results line may have; skipped", n, maxLine-1)
}
