// Package sandbox runs the processes of a benchmark run (go list, go test
// -c, the test binaries) inside bubblewrap, so that the code of a patch
// under review, which they build and run, sees no token, no network and
// none of the host's files, and cannot take the machine down.
//
// A Sandbox is a benchrun.Runner. Each process gets new namespaces (user,
// mount, pid, network with loopback only, ipc, uts, cgroup), an
// unprivileged uid with no capabilities, a new session, and dies with
// patchbot. It sees /usr (and the /bin, /lib links), the Go toolchain and
// the sandbox's module cache read-only, a private /tmp, and of the run's
// files only those the Command lists: written where the benchmark runs,
// read elsewhere. Its environment is PATH, HOME=/tmp, GOCACHE (the
// sandbox's own build cache, never the host's), GOFLAGS=-mod=readonly,
// GOPROXY=off and GOTOOLCHAIN=local, and nothing else. Limits bound its
// CPU time, processes, open files, file size, output and memory (the last
// two through a cgroup, where the host offers one it may write).
//
// The modules a run needs are downloaded before it builds, outside the
// sandbox (it has no network) and with no credentials either, into the
// module cache the sandbox reads.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/step/benchrun"
)

// Default limits.
const (
	DefaultMemory    = 4 << 30 // bytes, the whole process tree
	DefaultCPU       = 30 * time.Minute
	DefaultOpenFiles = 1024
	DefaultFileSize  = 1 << 30  // the largest file a process may write
	DefaultOutput    = 16 << 20 // bytes of stdout and stderr, per process
	DefaultTmpSize   = 1 << 30  // the private /tmp, in memory (counted as memory)

	// downloadTimeout bounds the module download of one module.
	downloadTimeout = 10 * time.Minute
	// startTimeout bounds bubblewrap's setup, before the program runs.
	startTimeout = 30 * time.Second
)

// DefaultProcesses is the default limit of processes (threads, to the
// kernel) at once: go build runs compilers in parallel, each with a
// thread per CPU, so it grows with the machine.
func DefaultProcesses() int { return 1024 + 64*runtime.NumCPU() }

// Limits bound each sandboxed process. Zero fields take the defaults
// above. The wall time is the Command's Timeout (bench -timeout).
type Limits struct {
	Memory    int64         // bytes of memory, the process and its children (a cgroup)
	Processes int           // processes at once, the process and its children (a cgroup, or RLIMIT_NPROC)
	CPU       time.Duration // CPU time of each process (RLIMIT_CPU)
	OpenFiles int           // open files of each process (RLIMIT_NOFILE)
	FileSize  int64         // bytes of the largest file it may write (RLIMIT_FSIZE)
	Output    int64         // bytes of output (stdout and stderr together) before it is killed
	TmpSize   int64         // bytes of its private /tmp
}

func (l Limits) withDefaults() Limits {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Memory, DefaultMemory)
	def(&l.FileSize, DefaultFileSize)
	def(&l.Output, DefaultOutput)
	def(&l.TmpSize, DefaultTmpSize)
	if l.Processes <= 0 {
		l.Processes = DefaultProcesses()
	}
	if l.CPU <= 0 {
		l.CPU = DefaultCPU
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = DefaultOpenFiles
	}
	return l
}

// Options configure a Sandbox.
type Options struct {
	// Bwrap is the bubblewrap program; "" looks up bwrap in PATH.
	Bwrap string
	// Go is the go command whose toolchain (GOROOT) the sandbox reads;
	// "" looks up go in PATH.
	Go string
	// CacheDir holds the sandbox's own build cache (written by the
	// sandboxed builds) and module cache (written by the downloads,
	// read by the sandbox); "" is patchbot/sandbox in the user's cache
	// directory. It must not be the host's GOCACHE: code run in the
	// sandbox may write anything in the build cache.
	CacheDir string
	// Cgroup is a cgroup v2 directory delegated to patchbot, in which it
	// makes a group per process; "" looks for one the process may use
	// (a writable cgroup v1 memory and pids hierarchy, or its own v2
	// group if it delegates both controllers).
	Cgroup string
	// Limits bound each process.
	Limits Limits
	// Getenv reads the download's settings (GOPROXY, GOSUMDB,
	// GOPRIVATE, GONOPROXY, GONOSUMDB, GOINSECURE, GOVCS and the proxy
	// variables); nil is os.Getenv. Nothing else of the environment
	// reaches the download or the sandbox.
	Getenv func(string) string
}

// A Sandbox runs Commands in bubblewrap. It is safe for concurrent use.
type Sandbox struct {
	bwrap, version string
	goroot, gocmd  string
	build, mod     string // the caches
	limits         Limits
	cg             *cgroups
	noCgroup       string // why there is no cgroup, when cg is nil
	root           bool   // running as root, which RLIMIT_NPROC does not bind
	getenv         func(string) string

	mu         sync.Mutex
	downloaded map[string]bool // module directories, during one run
}

var _ benchrun.Runner = (*Sandbox)(nil)

// A SetupError says that no sandbox works here, why, and what to do.
type SetupError struct {
	Err    error
	Remedy string
}

func (e *SetupError) Error() string {
	if e.Remedy == "" {
		return "sandbox: " + e.Err.Error()
	}
	return "sandbox: " + e.Err.Error() + ": " + e.Remedy
}

func (e *SetupError) Unwrap() error { return e.Err }

// New returns a Sandbox after a probe: it runs 'go version' in the
// sandbox, with every namespace, mount and limit a benchmark gets. An
// error is a *SetupError saying why no sandbox works here (bubblewrap
// missing, user namespaces off) and what to do.
func New(ctx context.Context, o *Options) (*Sandbox, error) {
	if o == nil {
		o = &Options{}
	}
	s := &Sandbox{limits: o.Limits.withDefaults(), getenv: o.Getenv, root: os.Geteuid() == 0, downloaded: map[string]bool{}}
	if s.getenv == nil {
		s.getenv = os.Getenv
	}
	var err error
	s.bwrap = o.Bwrap
	if s.bwrap == "" {
		s.bwrap = "bwrap"
	}
	if s.bwrap, err = exec.LookPath(s.bwrap); err != nil {
		return nil, &SetupError{Err: fmt.Errorf("bubblewrap is not installed (%v)", err), Remedy: "install it and have bwrap on PATH (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap); 'patchbot doc sandbox' says more"}
	}
	out, err := exec.CommandContext(ctx, s.bwrap, "--version").Output()
	if err != nil {
		return nil, &SetupError{Err: fmt.Errorf("%s --version: %v", s.bwrap, err), Remedy: "reinstall bubblewrap"}
	}
	s.version = strings.TrimSpace(string(out))

	gocmd := o.Go
	if gocmd == "" {
		gocmd = "go"
	}
	if gocmd, err = exec.LookPath(gocmd); err != nil {
		return nil, &SetupError{Err: fmt.Errorf("the go command: %v", err)}
	}
	out, err = exec.CommandContext(ctx, gocmd, "env", "GOROOT").Output()
	if err != nil {
		return nil, &SetupError{Err: fmt.Errorf("%s env GOROOT: %v", gocmd, err)}
	}
	if s.goroot, err = filepath.EvalSymlinks(strings.TrimSpace(string(out))); err != nil {
		return nil, &SetupError{Err: fmt.Errorf("GOROOT: %v", err)}
	}
	s.gocmd = filepath.Join(s.goroot, "bin", "go")

	cache := o.CacheDir
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, &SetupError{Err: fmt.Errorf("no cache directory for the sandbox: %v", err), Remedy: "set XDG_CACHE_HOME or HOME"}
		}
		cache = filepath.Join(dir, "patchbot", "sandbox")
	}
	if cache, err = filepath.Abs(cache); err != nil {
		return nil, &SetupError{Err: err}
	}
	s.build, s.mod = filepath.Join(cache, "go-build"), filepath.Join(cache, "mod")
	for _, d := range []string{s.build, s.mod} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, &SetupError{Err: fmt.Errorf("the sandbox's cache: %v", err)}
		}
	}

	s.cg, s.noCgroup = findCgroups(o.Cgroup)
	if s.cg != nil {
		s.cg.removeStale()
	}
	if s.cg == nil && o.Cgroup != "" {
		return nil, &SetupError{Err: errors.New(s.noCgroup), Remedy: "give a cgroup v2 directory whose cgroup.subtree_control holds memory and pids, writable by patchbot (systemd: Delegate=yes)"}
	}
	if err := s.probe(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// probe runs 'go version' in the sandbox.
func (s *Sandbox) probe(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "patchbot-sandbox-probe-")
	if err != nil {
		return &SetupError{Err: err}
	}
	defer os.RemoveAll(tmp)
	var out bytes.Buffer
	c := &benchrun.Command{
		Kind: benchrun.ListCommand, Side: "new",
		Path: "go", Args: []string{"version"}, Dir: tmp,
		TempDir: tmp, Writes: []string{tmp},
		Stdout: &out, Stderr: &out, Timeout: time.Minute,
	}
	if err := s.exec(ctx, c); err != nil {
		// bwrap's own message, when it failed, is the output's
		// first line; else the error says what happened.
		msg := strings.TrimSpace(out.String())
		e := &SetupError{Err: fmt.Errorf("%s could not run a program: %v", s.version, err)}
		if msg != "" {
			e.Err = fmt.Errorf("%s could not run a program: %s", s.version, strings.TrimSuffix(abbrev.FirstLine(msg), "."))
		}
		if strings.Contains(msg, "namespace") || strings.Contains(msg, "Operation not permitted") || strings.Contains(msg, "setting up uid map") {
			e.Remedy = "user namespaces seem to be off here: check that sysctl kernel.unprivileged_userns_clone is 1 (Debian) and user.max_user_namespaces is above 0, that Ubuntu's kernel.apparmor_restrict_unprivileged_userns is 0 or bwrap has an AppArmor profile, and that a container runs with a seccomp profile that allows unshare and clone (Docker: --security-opt seccomp=unconfined)"
		}
		return e
	}
	if !strings.HasPrefix(out.String(), "go version ") {
		return &SetupError{Err: fmt.Errorf("'go version' in the sandbox printed %q", abbrev.FirstLine(strings.TrimSpace(out.String())))}
	}
	return nil
}

// GoEnv points the go command that benchrun runs outside the sandbox (to
// load a changed package's call graph) at the modules the sandbox's
// processes build with.
func (s *Sandbox) GoEnv() []string {
	return []string{"GOMODCACHE=" + s.mod}
}

// Isolation says how the sandbox runs processes, for every result.
func (s *Sandbox) Isolation() benchrun.Isolation {
	l := s.limits
	iso := benchrun.Isolation{
		Sandbox: s.version + ": no network, no credentials, no capabilities, a private /tmp, the toolchain read-only",
	}
	if s.cg != nil {
		v := fmt.Sprintf("cgroup v%d", s.cg.version)
		iso.Limits = append(iso.Limits, "memory "+size(l.Memory)+" ("+v+")", fmt.Sprintf("%d processes (%s)", l.Processes, v))
	} else {
		iso.Unlimited = append(iso.Unlimited, "memory: "+s.noCgroup)
		if s.root {
			iso.Unlimited = append(iso.Unlimited, "processes: no pids cgroup, and RLIMIT_NPROC does not bind root")
		} else {
			iso.Limits = append(iso.Limits, fmt.Sprintf("%d processes (RLIMIT_NPROC)", l.Processes))
		}
	}
	iso.Limits = append(iso.Limits,
		"CPU time "+l.CPU.String()+" per process",
		fmt.Sprintf("%d open files", l.OpenFiles),
		"files up to "+size(l.FileSize),
		"output "+size(l.Output)+" per process",
		"/tmp "+size(l.TmpSize),
	)
	return iso
}

// Run runs c in the sandbox: benchrun.Runner's method. Before the first
// command in a module's directory ('go list', 'go test -c'), it downloads
// the module's dependencies outside the sandbox.
func (s *Sandbox) Run(ctx context.Context, c *benchrun.Command) error {
	if c.Kind == benchrun.ListCommand || c.Kind == benchrun.BuildCommand {
		if err := s.download(ctx, c); err != nil {
			return err
		}
	}
	return s.exec(ctx, c)
}

func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
