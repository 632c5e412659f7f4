package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/benchrun"
)

// Where the sandbox's caches are inside it: the go command's defaults for
// HOME=/tmp, so that GOMODCACHE need not be set.
const (
	insideHome    = "/tmp"
	insideGoCache = "/tmp/.cache/go-build"
	insideModules = "/tmp/go/pkg/mod"
	sandboxUID    = "65534" // nobody
)

// args returns bubblewrap's arguments to run c's program at path.
func (s *Sandbox) args(c *benchrun.Command, path string) []string {
	a := []string{
		"--unshare-all", // user, mount, pid, network (loopback only), ipc, uts, cgroup
		"--unshare-user", "--uid", sandboxUID, "--gid", sandboxUID,
		"--disable-userns", // no namespaces of its own inside: less kernel to attack
		"--cap-drop", "ALL",
		"--die-with-parent",
		"--new-session", // no TIOCSTI into a terminal of ours
		"--hostname", "sandbox",
		"--clearenv",
		"--setenv", "PATH", filepath.Join(s.goroot, "bin") + ":/usr/local/bin:/usr/bin:/bin",
		"--setenv", "HOME", insideHome,
		"--setenv", "GOCACHE", insideGoCache,
		"--setenv", "GOFLAGS", "-mod=readonly",
		"--setenv", "GOPROXY", "off",
		"--setenv", "GOTOOLCHAIN", "local",
		"--ro-bind", "/usr", "/usr",
	}
	// /bin, /lib and the like: links into /usr on a merged system,
	// directories elsewhere.
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if t, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", t, d)
		} else if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	// The dynamic loader's cache, for cgo test binaries, and the time
	// zone; nothing else of /etc (no passwd, no resolv.conf).
	a = append(a, "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
		"--ro-bind-try", "/etc/localtime", "/etc/localtime")
	if !within(s.goroot, "/usr") {
		a = append(a, "--ro-bind", s.goroot, s.goroot)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev",
		"--size", fmt.Sprint(s.limits.TmpSize), "--perms", "1777", "--tmpfs", "/tmp")
	if c.Kind != benchrun.BenchCommand {
		// Builds read the modules and keep their work in the sandbox's
		// own build cache; the benchmarks themselves get neither.
		a = append(a, "--ro-bind", s.mod, insideModules, "--bind", s.build, insideGoCache)
	}
	type bind struct {
		path string
		rw   bool
	}
	var binds []bind
	for _, p := range c.Reads {
		binds = append(binds, bind{p, false})
	}
	for _, p := range c.Writes {
		binds = append(binds, bind{p, true})
	}
	// Parents before children, so that a child's bind is not hidden.
	slices.SortStableFunc(binds, func(x, y bind) int { return len(x.path) - len(y.path) })
	for _, b := range binds {
		if b.rw {
			a = append(a, "--bind", b.path, b.path)
		} else {
			a = append(a, "--ro-bind", b.path, b.path)
		}
	}
	a = append(a, "--chdir", c.Dir,
		"--json-status-fd", "3", "--block-fd", "4",
		"--", path)
	return append(a, c.Args...)
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// program returns the path of c's program, which must be the go command
// or a file c reads.
func (s *Sandbox) program(c *benchrun.Command) (string, error) {
	if c.Path == "go" {
		return s.gocmd, nil
	}
	if !filepath.IsAbs(c.Path) {
		return "", fmt.Errorf("sandbox: %s: a program must be go or a path the command reads", c.Path)
	}
	for _, r := range c.Reads {
		if c.Path == r || within(c.Path, r) {
			return c.Path, nil
		}
	}
	return "", fmt.Errorf("sandbox: %s is not among the files the command reads", c.Path)
}

// exec runs c in bubblewrap and waits until every process of it is gone.
//
// bwrap starts, sets up the namespaces and mounts, reports its child's pid
// on the status pipe and waits on the block pipe; then the child goes
// into its cgroup and gets its rlimits, before it starts the program,
// which inherits both. The status pipe's last record is the program's
// exit code: without it, bwrap failed before the program ran, and the
// error is the sandbox's, not the program's.
func (s *Sandbox) exec(ctx context.Context, c *benchrun.Command) (err error) {
	path, err := s.program(c)
	if err != nil {
		return err
	}
	var g *group
	if s.cg != nil {
		if g, err = s.cg.newGroup(s.limits.Memory, s.limits.Processes); err != nil {
			return fmt.Errorf("sandbox: %v", err)
		}
		defer func() {
			if rerr := g.remove(); rerr != nil && err == nil {
				err = fmt.Errorf("sandbox: removing the cgroup: %v", rerr)
			}
		}()
	}

	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer statusR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		return err
	}
	defer blockW.Close()

	out := &limitWriter{max: s.limits.Output}
	if c.Stdout == c.Stderr {
		w := &capWriter{w: c.Stdout, lim: out}
		out.stdout, out.stderr = w, w
	} else {
		out.stdout, out.stderr = &capWriter{w: c.Stdout, lim: out}, &capWriter{w: c.Stderr, lim: out}
	}

	cmd := exec.Command(s.bwrap, s.args(c, path)...)
	cmd.Env = []string{} // bwrap needs none; the program gets its own (--setenv)
	cmd.Stdout, cmd.Stderr = out.stdout, out.stderr
	cmd.ExtraFiles = []*os.File{statusW, blockR} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		statusW.Close()
		blockR.Close()
		return fmt.Errorf("sandbox: starting bwrap: %v", err)
	}
	statusW.Close()
	blockR.Close()

	var killed struct {
		sync.Mutex
		why error
	}
	kill := func(why error) {
		killed.Lock()
		if killed.why == nil {
			killed.why = why
		}
		killed.Unlock()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if g != nil {
			g.kill()
		}
	}
	out.kill = func() {
		kill(fmt.Errorf("%w: it wrote more than %s of output (the sandbox's limit)", benchrun.ErrLimit, size(s.limits.Output)))
	}

	// Read the status records: the child's pid first, its exit code last.
	status := make(chan statusRecord, 4)
	go func() {
		defer close(status)
		dec := json.NewDecoder(io.LimitReader(statusR, 1<<20))
		for {
			var r statusRecord
			if dec.Decode(&r) != nil {
				return
			}
			status <- r
		}
	}()
	var exit *int
	var begun time.Time // when the program was let start
	started := false
	setup := time.NewTimer(startTimeout)
	defer setup.Stop()
	for !started {
		select {
		case r, ok := <-status:
			if !ok {
				started = true // bwrap failed: Wait says how
				break
			}
			if r.ExitCode != nil {
				exit = r.ExitCode
			}
			if r.ChildPID > 0 {
				if err := s.confine(g, r.ChildPID); err != nil {
					kill(fmt.Errorf("sandbox: %v", err))
				} else if _, err := blockW.Write([]byte{1}); err != nil {
					kill(fmt.Errorf("sandbox: starting the program: %v", err))
				}
				begun = time.Now()
				started = true
			}
		case <-setup.C:
			kill(fmt.Errorf("sandbox: bwrap did not start %s in %v", c, startTimeout))
			started = true
		case <-ctx.Done():
			kill(nil)
			started = true
		}
	}
	blockW.Close()

	// The program runs: until it exits, ctx is done or its time is up.
	done := make(chan struct{})
	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			kill(nil)
		case <-timeout:
			kill(fmt.Errorf("%w: killed after %v", benchrun.ErrTimedOut, c.Timeout))
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	// Every process of the sandbox is gone (its pid namespace went with
	// bwrap's child): what is left to read is bwrap's last record.
	statusR.SetReadDeadline(time.Now().Add(time.Second))
	for r := range status {
		if r.ExitCode != nil {
			exit = r.ExitCode
		}
	}
	if g != nil {
		g.kill()
	}

	killed.Lock()
	why := killed.why
	killed.Unlock()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case why != nil:
		return why
	case g != nil && g.oomKilled():
		return fmt.Errorf("%w: it used more than %s of memory (the sandbox's limit)", benchrun.ErrLimit, size(s.limits.Memory))
	case exit == nil:
		// bwrap failed before the program ran: its own message is
		// the start of the output.
		msg := abbrev.FirstLine(strings.TrimSpace(out.head.String()))
		if msg == "" {
			msg = fmt.Sprint(waitErr)
		}
		return fmt.Errorf("sandbox: bwrap did not run %s: %s", c, msg)
	case *exit == 128+int(syscall.SIGXCPU),
		// A Go program ignores SIGXCPU, and the hard limit's SIGKILL
		// follows; none other comes from outside but the kernel's for
		// memory, seen above. With its threads, the program may have
		// used its CPU time in a fraction of that as wall time.
		*exit == 128+int(syscall.SIGKILL) && !begun.IsZero() && time.Since(begun)*time.Duration(runtime.NumCPU()) >= s.limits.CPU:
		return fmt.Errorf("%w: it used more than %v of CPU time (the sandbox's limit)", benchrun.ErrLimit, s.limits.CPU)
	case *exit == 128+int(syscall.SIGXFSZ):
		return fmt.Errorf("%w: it wrote a file larger than %s (the sandbox's limit)", benchrun.ErrLimit, size(s.limits.FileSize))
	}
	return waitErr // an *exec.ExitError with the program's code, or nil
}

// A statusRecord is one of bwrap's --json-status-fd documents.
type statusRecord struct {
	ChildPID int  `json:"child-pid"`
	ExitCode *int `json:"exit-code"`
}

// confine puts the sandbox's process pid, waiting to start the program,
// into g and gives it its rlimits, which the program inherits.
func (s *Sandbox) confine(g *group, pid int) error {
	if g != nil {
		if err := g.add(pid); err != nil {
			return err
		}
	}
	l := s.limits
	cpu := uint64(l.CPU / time.Second)
	type rlimit struct {
		res       int
		soft, max uint64
	}
	limits := []rlimit{
		// SIGXCPU at the soft limit, SIGKILL a second later for a
		// program that ignores it.
		{unix.RLIMIT_CPU, cpu, cpu + 1},
		{unix.RLIMIT_NOFILE, uint64(l.OpenFiles), uint64(l.OpenFiles)},
		{unix.RLIMIT_FSIZE, uint64(l.FileSize), uint64(l.FileSize)},
		{unix.RLIMIT_CORE, 0, 0},
	}
	if g == nil && !s.root {
		limits = append(limits, rlimit{unix.RLIMIT_NPROC, uint64(l.Processes), uint64(l.Processes)})
	}
	for _, r := range limits {
		lim := unix.Rlimit{Cur: r.soft, Max: r.max}
		if err := unix.Prlimit(pid, r.res, &lim, nil); err != nil {
			return fmt.Errorf("setting the limits: %v", err)
		}
	}
	return nil
}

// A limitWriter counts the output of a sandboxed process, both streams
// together, and kills it past max bytes; it keeps the first bytes, which
// hold bwrap's message when bwrap fails.
type limitWriter struct {
	max            int64
	kill           func()
	stdout, stderr io.Writer

	mu   sync.Mutex
	n    int64
	over bool
	head strings.Builder
}

// A capWriter is one stream of a limitWriter.
type capWriter struct {
	w   io.Writer
	lim *limitWriter
}

func (w *capWriter) Write(p []byte) (int, error) {
	l := w.lim
	l.mu.Lock()
	if l.head.Len() < 1024 {
		l.head.Write(p[:min(len(p), 1024-l.head.Len())])
	}
	room := l.max - l.n
	over := l.over
	if int64(len(p)) > room {
		l.over = true
	}
	l.n += int64(len(p))
	l.mu.Unlock()
	if over {
		return len(p), nil
	}
	if int64(len(p)) > room {
		w.w.Write(p[:room])
		if l.kill != nil {
			l.kill()
		}
		return len(p), nil
	}
	return w.w.Write(p)
}
