package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/patchbot/patchbot/step/benchrun"
)

// downloadVars are the variables of patchbot's environment that the
// module download keeps: where and how to fetch, never a credential
// (GOAUTH, .netrc and git's credential helpers stay out: HOME is empty).
var downloadVars = []string{
	"GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOINSECURE", "GOVCS",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
}

// download runs 'go mod download' in c's module directory, once per
// directory and run, outside the sandbox (which has no network) and with
// no credentials: an empty HOME, no git configuration, no prompts, the
// local toolchain only. The modules go to the sandbox's module cache,
// which the sandbox reads. A directory with a vendor directory needs
// none.
func (s *Sandbox) download(ctx context.Context, c *benchrun.Command) error {
	dir := c.Dir
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return nil // not a module's root: the go command will say what is wrong
	}
	if _, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt")); err == nil {
		return nil
	}
	s.mu.Lock()
	if len(s.downloaded) > 1000 {
		clear(s.downloaded) // a long-lived server's: downloads are cheap when cached
	}
	done := s.downloaded[dir]
	s.downloaded[dir] = true
	s.mu.Unlock()
	if done {
		return nil
	}
	home := filepath.Join(c.TempDir, "download-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	env := []string{
		"PATH=" + filepath.Join(s.goroot, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"GOMODCACHE=" + s.mod,
		"GOCACHE=" + s.build,
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local", // a go.mod's toolchain line downloads and runs a program
		"GOAUTH=off",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"TMPDIR=" + c.TempDir,
	}
	for _, k := range downloadVars {
		if v := s.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	var out bytes.Buffer
	err := benchrun.Direct(ctx, &benchrun.Command{
		Kind: c.Kind, Side: c.Side, Path: s.gocmd, Args: []string{"mod", "download"},
		Dir: dir, Env: env, TempDir: c.TempDir,
		Stdout: &out, Stderr: &out, Timeout: downloadTimeout,
	})
	if err != nil {
		s.mu.Lock()
		delete(s.downloaded, dir)
		s.mu.Unlock()
		msg := strings.TrimSpace(out.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		return fmt.Errorf("%s side: downloading the modules it needs (go mod download, outside the sandbox, without credentials): %v\n%s", c.Side, err, msg)
	}
	return nil
}
