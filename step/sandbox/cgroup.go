package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A cgroups is where the sandbox makes a control group per process: the
// memory and pids controllers, in cgroup v1 hierarchies or one cgroup v2
// directory whose children get both.
type cgroups struct {
	version int    // 1 or 2
	memory  string // v1: the memory hierarchy's directory to make groups in; v2: the one directory
	pids    string // v1: the pids hierarchy's; v2: the same as memory
}

// findCgroups returns the cgroups the sandbox may use, or nil and why
// not. dir, when set, is a cgroup v2 directory given by the operator (a
// delegated one); otherwise the process's own groups are looked up in
// /proc/self/mountinfo and /proc/self/cgroup: cgroup v1 memory and pids
// hierarchies it may write in, or a v2 group whose cgroup.subtree_control
// has both controllers.
func findCgroups(dir string) (*cgroups, string) {
	if dir != "" {
		if err := checkV2(dir); err != nil {
			return nil, err.Error()
		}
		return &cgroups{version: 2, memory: dir, pids: dir}, ""
	}
	mounts, err := readMounts()
	if err != nil {
		return nil, err.Error()
	}
	own, err := readOwnCgroups()
	if err != nil {
		return nil, err.Error()
	}
	var mem, pids, v2 string
	for _, m := range mounts {
		switch {
		case m.fstype == "cgroup2":
			v2 = m.dir(own[""])
		case m.fstype == "cgroup" && m.has("memory"):
			mem = m.dir(own["memory"])
		case m.fstype == "cgroup" && m.has("pids"):
			pids = m.dir(own["pids"])
		}
	}
	if mem != "" && pids != "" && writable(mem) && writable(pids) {
		return &cgroups{version: 1, memory: mem, pids: pids}, ""
	}
	if v2 != "" {
		if err := checkV2(v2); err == nil {
			return &cgroups{version: 2, memory: v2, pids: v2}, ""
		}
	}
	switch {
	case mem == "" && v2 == "":
		return nil, "no cgroup hierarchy with the memory controller is mounted"
	case mem != "":
		return nil, fmt.Sprintf("the cgroup v1 memory or pids hierarchy (%s) is not writable by this process", mem)
	}
	return nil, fmt.Sprintf("the cgroup v2 group %s does not delegate the memory and pids controllers to its children (cgroup.subtree_control), or is not writable", v2)
}

func checkV2(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return fmt.Errorf("cgroup %s: %v", dir, err)
	}
	ctl := strings.Fields(string(b))
	if !slices.Contains(ctl, "memory") || !slices.Contains(ctl, "pids") {
		return fmt.Errorf("cgroup %s does not give its children the memory and pids controllers (its cgroup.subtree_control holds %q)", dir, strings.TrimSpace(string(b)))
	}
	if !writable(dir) {
		return fmt.Errorf("cgroup %s is not writable by this process", dir)
	}
	return nil
}

func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }

// A mount is a line of /proc/self/mountinfo.
type mount struct {
	root, point, fstype string
	opts                []string // the super options: a v1 hierarchy's controllers
}

func (m mount) has(opt string) bool { return slices.Contains(m.opts, opt) }

// dir returns the directory of the group at path (as /proc/self/cgroup
// names it) under this mount. A path outside the mount's root, as a
// cgroup namespace shows its parent's groups ("/.."), is the mount point.
func (m mount) dir(path string) string {
	rel, ok := strings.CutPrefix(path, m.root)
	if !ok || strings.HasPrefix(path, "/..") {
		return m.point
	}
	return filepath.Join(m.point, rel)
}

func readMounts() ([]mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ms []mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 3 {
			continue
		}
		ms = append(ms, mount{root: unescape(a[3]), point: unescape(a[4]), fstype: b[0], opts: strings.Split(b[2], ",")})
	}
	return ms, sc.Err()
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readOwnCgroups returns the process's group per v1 controller, and its
// v2 group under "".
func readOwnCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	own := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own, nil
}

var groupSeq atomic.Uint64

// removeStale removes the groups that a process of patchbot's that was
// killed (SIGKILL, a lost machine) left: empty, named for a pid that is
// not running.
func (c *cgroups) removeStale() {
	for _, base := range []string{c.memory, c.pids} {
		dirs, _ := filepath.Glob(filepath.Join(base, "patchbot-sandbox-*-*"))
		for _, d := range dirs {
			var pid, seq int
			if _, err := fmt.Sscanf(filepath.Base(d), "patchbot-sandbox-%d-%d", &pid, &seq); err != nil || pid == os.Getpid() {
				continue
			}
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				os.Remove(d) // fails, harmlessly, if a process is still in it
			}
		}
	}
}

// A group is the control group of one sandboxed process tree.
type group struct {
	c    *cgroups
	dirs []string // v1: memory's and pids'; v2: one
}

// A groupDir is a group's directory in one hierarchy, and the limits to
// write there.
type groupDir struct {
	dir string
	set []setting
}

type setting struct{ file, value string }

// newGroup makes a group limited to memory bytes and procs processes.
func (c *cgroups) newGroup(memory int64, procs int) (*group, error) {
	name := fmt.Sprintf("patchbot-sandbox-%d-%d", os.Getpid(), groupSeq.Add(1))
	g := &group{c: c}
	mem := strconv.FormatInt(memory, 10)
	var plan []groupDir
	if c.version == 1 {
		plan = []groupDir{
			{filepath.Join(c.memory, name), []setting{{"memory.limit_in_bytes", mem}, {"memory.memsw.limit_in_bytes", mem}}},
			{filepath.Join(c.pids, name), []setting{{"pids.max", strconv.Itoa(procs)}}},
		}
	} else {
		plan = []groupDir{
			{filepath.Join(c.memory, name), []setting{{"memory.max", mem}, {"memory.swap.max", "0"}, {"pids.max", strconv.Itoa(procs)}}},
		}
	}
	for _, p := range plan {
		if err := os.Mkdir(p.dir, 0o755); err != nil {
			g.remove()
			return nil, fmt.Errorf("making the cgroup: %v", err)
		}
		g.dirs = append(g.dirs, p.dir)
		for _, s := range p.set {
			err := os.WriteFile(filepath.Join(p.dir, s.file), []byte(s.value), 0)
			if err != nil {
				if strings.Contains(s.file, "sw") && errors.Is(err, os.ErrNotExist) {
					continue // no swap accounting: no swap to escape to either
				}
				g.remove()
				return nil, fmt.Errorf("limiting the cgroup: %s: %v", s.file, err)
			}
		}
	}
	return g, nil
}

// add moves the process pid into the group.
func (g *group) add(pid int) error {
	for _, d := range g.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("moving the sandbox into its cgroup: %v", err)
		}
	}
	return nil
}

// oomKilled reports whether the kernel killed a process of the group for
// want of memory.
func (g *group) oomKilled() bool {
	file, key := "memory.oom_control", "oom_kill"
	if g.c.version == 2 {
		file = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(g.dirs[0], file))
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			return v != "0"
		}
	}
	if g.c.version == 1 {
		// Kernels before 4.13 have no oom_kill count: a limit that was
		// hit is the best sign left.
		b, err := os.ReadFile(filepath.Join(g.dirs[0], "memory.failcnt"))
		return err == nil && strings.TrimSpace(string(b)) != "0"
	}
	return false
}

// kill kills every process left in the group, and remove removes the
// group once they are gone (waiting up to two seconds).
func (g *group) kill() {
	for _, d := range g.dirs {
		if g.c.version == 2 {
			if os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0) == nil {
				continue
			}
		}
		b, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

func (g *group) remove() error {
	var err error
	for i := len(g.dirs) - 1; i >= 0; i-- {
		d := g.dirs[i]
		deadline := time.Now().Add(2 * time.Second)
		for {
			err = os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			g.kill()
			time.Sleep(10 * time.Millisecond)
		}
	}
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return err
}
