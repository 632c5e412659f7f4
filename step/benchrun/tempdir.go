package benchrun

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tempPrefix starts the name of the temporary directories MkdirTemp makes
// (a run's, a bisection's or a track's), followed by the pid of the
// process that made it: patchbot-bench-PID-WHAT-RANDOM. Each is removed by
// its maker; one whose process was killed (SIGKILL, a machine that
// stopped) leaves binaries behind, which SweepTemp finds by the pid.
const tempPrefix = "patchbot-bench-"

// MkdirTemp makes a temporary directory for what (a run's files, a
// bisection's or a track's cached test binaries) in os.TempDir(), named
// so that SweepTemp removes it once this process is gone:
// patchbot-bench-PID-WHAT-RANDOM. The caller removes it when done.
func MkdirTemp(what string) (string, error) {
	return os.MkdirTemp("", tempPrefix+strconv.Itoa(os.Getpid())+"-"+what+"-")
}

// SweepTemp removes the temporary directories that processes no
// longer alive left in dir ("" is os.TempDir()), and returns the ones it
// removed. A directory of a live process, this one's included, is left
// alone; so is one of another user's (whose processes, in another
// container, this one may not see), and anything whose name does not say
// which process made it. A directory it cannot remove is said in the
// error, after the others were tried.
func SweepTemp(dir string) ([]string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processExists(pid) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if fi, err := e.Info(); err != nil || !ownedByMe(fi) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}
