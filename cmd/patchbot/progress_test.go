package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its two ends: what a program
// writes to tty, the terminal, can be read from pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	fd := int(pty.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

// drain reads r into a buffer until it ends, in the background; wait
// returns what was read.
func drain(r io.Reader) (wait func() string) {
	var b bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(&b, r)
	}()
	return func() string { wg.Wait(); return b.String() }
}

// TestProgress runs bench on a real terminal (a pseudo-terminal) and off
// one: its progress line goes to stderr when stderr is a terminal, as the
// go command's does, whatever stdout is (a pipe to tee, a file); never to
// a file or a pipe; and -q silences it.
func TestProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	repo := t.TempDir()
	git := gittest.Open(t, repo).Git
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("m_test.go", "package m\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {\n\tfor range b.N {\n\t}\n}\n")
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "m")
	write("m_test.go", "package m\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {\n\tfor i := range b.N {\n\t\t_ = i\n\t}\n}\n")
	git("commit", "-q", "-a", "-m", "m: i")

	args := []string{"bench", "-repo", repo, "-count", "2", "-benchtime", "1x"}
	bench := func(stdout, stderr io.Writer, extra ...string) int {
		t.Helper()
		e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}
		return run(e, append(append([]string{}, args...), extra...))
	}
	const line = "\r\x1b[Kbench: run 1 of 4"

	// stderr a terminal, stdout a pipe (patchbot bench | tee): progress.
	for _, q := range []bool{false, true} {
		pty, tty := openPTY(t)
		wait := drain(pty)
		stdoutR, stdoutW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		waitOut := drain(stdoutR)
		var extra []string
		if q {
			extra = []string{"-q"}
		}
		if code := bench(stdoutW, tty, extra...); code != 0 {
			t.Fatalf("-q=%v: exit status %d", q, code)
		}
		stdoutW.Close()
		tty.Close()
		term, out := wait(), waitOut()
		if got := strings.Contains(term, line); got == q {
			t.Errorf("-q=%v: stderr on a terminal shows the progress line: %v, want %v:\n%q", q, got, !q, term)
		}
		if strings.Contains(out, "\x1b[K") || !strings.Contains(out, "X") {
			t.Errorf("-q=%v: stdout (a pipe) has %q; want the table only", q, out)
		}
	}

	// stderr a file (patchbot bench 2>log on a terminal): none.
	pty, tty := openPTY(t)
	wait := drain(pty)
	log, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	if code := bench(tty, log); code != 0 {
		t.Fatalf("2>log: exit status %d", code)
	}
	tty.Close()
	log.Close()
	term := wait()
	if data, _ := os.ReadFile(log.Name()); bytes.Contains(data, []byte("\x1b[K")) {
		t.Errorf("2>log: the log has the progress line:\n%q", data)
	}
	if strings.Contains(term, "\x1b[K") || !strings.Contains(term, "X") {
		t.Errorf("2>log: stdout, a terminal, has %q; want the table only", term)
	}
}
