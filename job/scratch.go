package job

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/patchbot/patchbot/internal/gitexec"
	"github.com/patchbot/patchbot/internal/remedy"
)

// A dry run on the user's repository must write nothing there, yet the
// benchmarks need the ported commits as real commits. So the port is made
// in a scratch clone: 'git clone --no-checkout' of a local repository
// hard-links (or copies) the object files, which Git never changes, and
// writes no file of the user's.

// scratchClone clones the repository that holds dir into dst, without a
// checkout and with its branches, and returns the clone and the directory
// in it that corresponds to dir (the module's, when dir is a
// subdirectory), which it creates.
func scratchClone(ctx context.Context, dir, dst string) (clone, modDir string, err error) {
	top, err := gitOut(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", err
	}
	prefix, err := gitOut(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return "", "", err
	}
	if _, err := gitOut(ctx, "", "clone", "-q", "--no-checkout", top, dst); err != nil {
		return "", "", fmt.Errorf("making the dry run's scratch clone: %v", err)
	}
	// The user's branches as they are, not as origin/*: a branch an
	// earlier port made is found up to date, as it would be in the user's
	// repository, instead of being made again with a new commit.
	if _, err := gitOut(ctx, dst, "fetch", "-q", "--update-head-ok", top, "+refs/heads/*:refs/heads/*"); err != nil {
		return "", "", fmt.Errorf("making the dry run's scratch clone: %v", err)
	}
	modDir = filepath.Join(dst, filepath.FromSlash(prefix))
	if err := os.MkdirAll(modDir, 0o777); err != nil {
		return "", "", err
	}
	return dst, modDir, nil
}

// resolve returns the commit that rev ("" for HEAD) names in the repository
// that holds dir.
func resolve(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" {
		rev = "HEAD"
	}
	h, err := gitOut(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		// The caller's mistake, as the port itself reports it.
		return "", &remedy.FieldError{Field: "onto", Value: rev, Reason: fmt.Sprintf("no such commit in %s; give a branch, tag or commit of the repository", dir)}
	}
	return h, nil
}

// gitOut runs git in dir and returns its trimmed output. It runs in the
// process's environment (gitexec.Inherit): the scratch clone is of the
// user's repository, made as the user's git would make it. A git stopped
// because ctx is done says it was interrupted, not "signal: killed".
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := (&gitexec.Cmd{Dir: dir, Args: args}).Output(ctx)
	return strings.TrimSpace(out), err
}
