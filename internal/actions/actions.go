// Package actions is patchbot's side of the GitHub Actions runner: it
// detects a run in GitHub Actions, folds log output in groups, writes the
// step summary and the step's outputs through the files the runner names,
// and frames text that patchbot did not write itself (a patch, a
// benchmark's output, a benchmark's name) in a stop-commands block, so
// that none of it is read by the runner as a workflow command
// (::set-output, ::add-mask::, ::set-env and the rest).
//
// See docs/action.md, and GitHub's "Workflow commands for GitHub Actions".
package actions

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/patchbot/patchbot/internal/escape"
)

// MaxSummary is the largest step summary GitHub shows: 1 MiB a step. A
// larger one is not shown at all, and fails the step.
const MaxSummary = 1 << 20

// A Runner is the GitHub Actions runner patchbot runs under, as its
// environment describes it.
type Runner struct {
	// Output, Summary and Env are the files of GITHUB_OUTPUT,
	// GITHUB_STEP_SUMMARY and GITHUB_ENV; empty when unset.
	Output  string
	Summary string
	Env     string

	// token is the stop-commands token of this process: random, so
	// that the text it frames cannot end the block.
	token string
}

// FromEnv returns the Runner that getenv describes, or nil when
// GITHUB_ACTIONS is not "true" (not a GitHub Actions step).
func FromEnv(getenv func(string) string) *Runner {
	if getenv == nil || getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	return &Runner{
		Output:  getenv("GITHUB_OUTPUT"),
		Summary: getenv("GITHUB_STEP_SUMMARY"),
		Env:     getenv("GITHUB_ENV"),
		token:   randomToken(),
	}
}

// randomToken returns 128 random bits in hex: a token or a delimiter
// nobody can guess, so that text written before it cannot contain it.
func randomToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// Token returns the stop-commands token of the Runner.
func (r *Runner) Token() string { return r.token }

// StartGroup writes the command that opens a folded group of log lines
// titled title; EndGroup writes the one that closes it. Groups do not
// nest.
func StartGroup(w io.Writer, title string) error {
	_, err := fmt.Fprintf(w, "::group::%s\n", EscapeData(title))
	return err
}

// EndGroup writes the command that closes the group StartGroup opened.
func EndGroup(w io.Writer) error {
	_, err := io.WriteString(w, "::endgroup::\n")
	return err
}

// EscapeData escapes s as the message of a workflow command
// (::group::MESSAGE, ::error::MESSAGE), as the runner unescapes it:
// '%', CR and LF, so that s stays on the command's line.
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes s as the value of a workflow command's property
// (::error file=NAME,line=1::): EscapeData's characters and ':' and ','.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Error writes a ::error:: command with msg, escaped: an annotation on
// the run's page.
func Error(w io.Writer, msg string) error {
	_, err := fmt.Fprintf(w, "::error::%s\n", EscapeData(msg))
	return err
}

// A Frame is a writer whose text is framed in a stop-commands block: the
// runner reads no workflow command in it. The block opens before the
// first byte written and closes with Close, on a line of its own.
type Frame struct {
	w     io.Writer
	token string

	mu      sync.Mutex
	open    bool // the block has begun
	midLine bool // the last byte written was not a newline
	err     error
}

// Frame returns a writer that frames what is written to it, on w, in a
// stop-commands block with the Runner's token. Close it to end the block.
func (r *Runner) Frame(w io.Writer) *Frame {
	return &Frame{w: w, token: r.token}
}

func (f *Frame) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	if !f.open {
		if _, err := fmt.Fprintf(f.w, "::stop-commands::%s\n", f.token); err != nil {
			f.err = err
			return 0, err
		}
		f.open = true
	}
	n, err := f.w.Write(p)
	if n > 0 {
		f.midLine = p[n-1] != '\n'
	}
	if err != nil {
		f.err = err
	}
	return n, err
}

// Close ends the block, if one was begun: on a line of its own, the
// token between "::" and "::", after which the runner reads workflow
// commands again. Writes after Close begin a new block.
func (f *Frame) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open || f.err != nil {
		return f.err
	}
	nl := ""
	if f.midLine {
		nl = "\n"
	}
	f.open, f.midLine = false, false
	_, err := fmt.Fprintf(f.w, "%s::%s::\n", nl, f.token)
	return err
}

// SetOutput sets the step output name to value through GITHUB_OUTPUT, in
// the form that takes any value, several lines included:
//
//	NAME<<DELIMITER
//	VALUE
//	DELIMITER
//
// with a random delimiter that does not occur in value. Without
// GITHUB_OUTPUT it does nothing.
func (r *Runner) SetOutput(name, value string) error {
	return appendKeyValue(r.Output, "GITHUB_OUTPUT", name, value)
}

// SetEnv sets the environment variable name for the job's later steps,
// through GITHUB_ENV, as SetOutput sets an output.
func (r *Runner) SetEnv(name, value string) error {
	return appendKeyValue(r.Env, "GITHUB_ENV", name, value)
}

func appendKeyValue(file, what, name, value string) error {
	if file == "" {
		return nil
	}
	rec, err := KeyValue(name, value)
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	return appendFile(file, rec)
}

// KeyValue returns the record of GITHUB_OUTPUT or GITHUB_ENV that sets
// name to value: NAME<<DELIMITER, the value, the delimiter, each on a line.
// The name must be non-empty and hold no '=', "<<", CR or LF, since the
// runner reads it up to those.
func KeyValue(name, value string) (string, error) {
	if name == "" || strings.ContainsAny(name, "=\r\n") || strings.Contains(name, "<<") {
		return "", fmt.Errorf("bad name %q", name)
	}
	delim := "patchbot_" + randomToken()
	for strings.Contains(value, delim) { // 2^-128 a try
		delim = "patchbot_" + randomToken()
	}
	return name + "<<" + delim + "\n" + value + "\n" + delim + "\n", nil
}

// WriteSummary appends text to the step summary (GITHUB_STEP_SUMMARY),
// Markdown, cut so that the whole file stays within MaxSummary, with a
// note saying so when it is cut. Without GITHUB_STEP_SUMMARY it does
// nothing.
func (r *Runner) WriteSummary(text string) error {
	return AppendSummary(r.Summary, text)
}

// cutNote ends a cut summary.
const cutNote = "\n\n**patchbot: the rest of this summary is cut: GitHub shows at most 1 MiB of step summary.**\n"

// AppendSummary appends text to the step summary file, as WriteSummary
// does; file may be "", for no summary.
func AppendSummary(file, text string) error {
	if file == "" {
		return nil
	}
	text = strings.TrimSpace(text) + "\n\n"
	have := int64(0)
	if fi, err := os.Stat(file); err == nil {
		have = fi.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if have >= int64(len(cutNote)) && endsWith(file, have, cutNote) {
		return nil // cut already: what follows the note would not make sense
	}
	room := MaxSummary - have
	if int64(len(text)) <= room {
		return appendFile(file, text)
	}
	if room < int64(len(cutNote)) {
		return nil // no room for even the note: the file is full
	}
	return appendFile(file, cutUTF8(text, int(room)-len(cutNote))+cutNote)
}

// cutUTF8 returns s cut to at most n bytes, at a line's end when there is
// one in the last quarter, and never inside a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && i >= n*3/4 {
		return s[:i+1]
	}
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}

// endsWith reports whether the file of size bytes ends with suffix.
func endsWith(file string, size int64, suffix string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(suffix))
	_, err = f.ReadAt(b, size-int64(len(suffix)))
	return err == nil && string(b) == suffix
}

func appendFile(file, text string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ParseKeyValues reads a GITHUB_OUTPUT or GITHUB_ENV file as the runner
// does: NAME=VALUE lines and NAME<<DELIMITER blocks. Tests use it to read
// back what a step set.
func ParseKeyValues(data []byte) (map[string]string, error) {
	m := make(map[string]string)
	lines := strings.Split(strings.TrimSuffix(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, heredoc := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case heredoc > 0 && (eq < 0 || heredoc < eq):
			name, delim := line[:heredoc], line[heredoc+2:]
			var val []string
			j := i + 1
			for ; j < len(lines) && lines[j] != delim; j++ {
				val = append(val, lines[j])
			}
			if j == len(lines) {
				return nil, fmt.Errorf("line %d: no delimiter %q after %s", i+1, delim, name)
			}
			m[name] = strings.Join(val, "\n")
			i = j
		case eq > 0:
			m[line[:eq]] = line[eq+1:]
		default:
			return nil, fmt.Errorf("line %d: %q is neither NAME=VALUE nor NAME<<DELIMITER", i+1, line)
		}
	}
	return m, nil
}

// Commands returns the workflow commands the runner would act on in log,
// one per line of log, reading it as the runner does: a line (less
// leading and trailing spaces) that begins with "::" is a command, except
// between ::stop-commands::TOKEN and the line ::TOKEN::. Tests use it to
// check that text from a benchmark or a patch issues none.
func Commands(log []byte) []string {
	var cmds []string
	stop := ""
	for line := range strings.SplitSeq(strings.ReplaceAll(string(log), "\r", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if stop != "" {
			if line == "::"+stop+"::" {
				stop = ""
			}
			continue
		}
		if !strings.HasPrefix(line, "::") {
			continue
		}
		cmds = append(cmds, line)
		if tok, ok := strings.CutPrefix(line, "::stop-commands::"); ok && tok != "" {
			stop = tok
		}
	}
	return cmds
}

// CodeBlock returns text as a Markdown code block, for a step summary:
// shown as it is, whatever it holds, since its fence is longer than any
// run of backticks in it.
func CodeBlock(text string) string {
	fence := escape.MarkdownFence(text)
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	return fence + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n"
}
