package work

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/patchbot/patchbot/internal/flock"
)

// lockName is the lock file in an Areas' Root.
const lockName = ".lock"

// Lock takes the Root for this process, for as long as it runs (until
// release): two processes working in one root would fetch into each
// other's areas and run benchmarks side by side, measuring each other. A
// root another process holds is an error that names that process. The
// lock is the operating system's (flock), so a process that died holds
// nothing.
func (a *Areas) Lock() (release func(), err error) {
	if err := os.MkdirAll(a.Root, 0o700); err != nil {
		return nil, fmt.Errorf("work directory %s: %w (give serve a directory it may write with -work)", a.Root, err)
	}
	path := filepath.Join(a.Root, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("work directory %s: %w (give serve a directory it may write with -work)", a.Root, err)
	}
	if err := flock.TryLock(f); err != nil {
		who, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, flock.ErrLocked) {
			return nil, fmt.Errorf("work directory %s is in use by another process (%s): give each process a work directory of its own (-work)", a.Root, describeHolder(string(who)))
		}
		return nil, fmt.Errorf("work directory %s: locking %s: %w", a.Root, path, err)
	}
	// Who holds it, for the message of the next process that tries.
	f.Truncate(0)
	host, _ := os.Hostname()
	fmt.Fprintf(f, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	return func() { flock.Unlock(f); f.Close() }, nil
}

// describeHolder returns the lock file's line, or what can be said without
// it.
func describeHolder(s string) string {
	if s = strings.TrimSpace(s); s == "" || len(s) > 200 || !strings.HasPrefix(s, "pid ") {
		return "its pid not recorded"
	}
	if _, err := strconv.Atoi(strings.Fields(s)[1]); err != nil {
		return "its pid not recorded"
	}
	return s
}
