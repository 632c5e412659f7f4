// Package example builds patchbot's built-in example: the founding story
// replayed on this repository's own codec.
//
// In 2014 a one-line fix to encoding/binary (unsigned integers missed the
// fast path) was mailed from Mercurial during a release freeze and had to be
// ported to Git by hand. Our codec/ has the same structure, and
// docs/examples/codec-unsigned-fastpath.hg.patch, made by real Mercurial
// (docs/examples/mkexample.sh), is that fix. The repository this package
// writes holds codec/ as it was before the patch, which it gets by applying
// the patch in reverse to today's sources, so the example cannot drift from
// the code: if codec/fast.go changes so that the patch no longer reverses,
// this package's tests fail.
package example

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/patchbot/patchbot"
	"github.com/patchbot/patchbot/internal/gitexec"
)

// PatchFile is the example patch's path in the patchbot repository.
const PatchFile = "docs/examples/codec-unsigned-fastpath.hg.patch"

// Patch returns the text of the example patch, as hg export wrote it.
func Patch() []byte {
	data, err := patchbot.ExampleFiles.ReadFile(PatchFile)
	if err != nil {
		panic("example: patch not embedded: " + err.Error()) // a broken build
	}
	return data
}

// goMod is the scratch repository's go.mod. It keeps patchbot's module path,
// so the codec's import path is the same as here.
const goMod = "module github.com/patchbot/patchbot\n\ngo 1.26\n"

// The base commit's identity and date are fixed, so the same sources give
// the same base hash on every machine.
var baseEnv = []string{
	"GIT_AUTHOR_NAME=Codec Authors", "GIT_AUTHOR_EMAIL=codec-authors@example.com",
	"GIT_COMMITTER_NAME=Codec Authors", "GIT_COMMITTER_EMAIL=codec-authors@example.com",
	"GIT_AUTHOR_DATE=2014-10-30T17:00:00+0000", "GIT_COMMITTER_DATE=2014-10-30T17:00:00+0000",
}

// WriteBase creates a Git repository in dir, which must be empty or not
// exist, whose single commit, on branch master (the branch Go's freeze
// policy governs: the example is a Go story), holds a go.mod and codec/
// as it was before the example patch. It returns that commit's hash.
//
// It needs git on PATH; nothing else.
func WriteBase(ctx context.Context, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	if entries, err := os.ReadDir(dir); err != nil {
		return "", err
	} else if len(entries) > 0 {
		return "", fmt.Errorf("example: %s is not empty", dir)
	}
	if err := git(ctx, dir, nil, nil, "init", "-q", "-b", "master"); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o666); err != nil {
		return "", err
	}
	files, err := fs.Glob(patchbot.ExampleFiles, "codec/*.go")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "codec"), 0o777); err != nil {
		return "", err
	}
	for _, name := range files {
		data, err := patchbot.ExampleFiles.ReadFile(name)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "codec", path.Base(name)), data, 0o666); err != nil {
			return "", err
		}
	}
	if err := git(ctx, dir, Patch(), nil, "apply", "-R", "--whitespace=nowarn", "-"); err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("example: %s no longer applies in reverse to codec/: %v (regenerate it with docs/examples/mkexample.sh)", PatchFile, err)
	}
	if err := git(ctx, dir, nil, nil, "add", "-A"); err != nil {
		return "", err
	}
	msg := "codec: fast binary codec for fixed-size data\n\nThe built-in example's base: codec/ before " + PatchFile + ".\n"
	if err := git(ctx, dir, []byte(msg), baseEnv, "commit", "-q", "-F", "-"); err != nil {
		return "", err
	}
	return revParse(ctx, dir, "HEAD")
}

// NewRepo creates the example repository in dir, as WriteBase does, and
// commits the example patch on top of the base, applied with git apply and
// with the changeset's author, date and description. It returns the two
// commits' hashes. It stands in for a port where a test needs both sides of
// the story without depending on the port step.
func NewRepo(ctx context.Context, dir string) (base, head string, err error) {
	base, err = WriteBase(ctx, dir)
	if err != nil {
		return "", "", err
	}
	p := Patch()
	if err := git(ctx, dir, p, nil, "apply", "--index", "--whitespace=nowarn", "-"); err != nil {
		return "", "", fmt.Errorf("example: applying %s: %v", PatchFile, err)
	}
	author, date, msg := changeset(p)
	name, email, _ := strings.Cut(strings.TrimSuffix(author, ">"), " <")
	env := []string{
		"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email, "GIT_COMMITTER_DATE=" + date,
	}
	if err := git(ctx, dir, []byte(msg), env, "commit", "-q", "-F", "-"); err != nil {
		return "", "", err
	}
	head, err = revParse(ctx, dir, "HEAD")
	return base, head, err
}

// changeset returns the author, the date (as git's "@UNIX OFFSET" form) and
// the description of the example patch. It reads only the example's own
// well-formed header; step/hgpatch is the parser for patches in general.
func changeset(p []byte) (author, date, msg string) {
	lines := strings.Split(string(p), "\n")
	i := 0
	for ; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		if v, ok := strings.CutPrefix(lines[i], "# User "); ok {
			author = v
		}
		if v, ok := strings.CutPrefix(lines[i], "# Date "); ok {
			var unix, west int
			fmt.Sscan(v, &unix, &west)
			sign, off := "-", west // hg counts seconds west of UTC; git wants ±HHMM east
			if west <= 0 {
				sign, off = "+", -west
			}
			date = fmt.Sprintf("@%d %s%02d%02d", unix, sign, off/3600, off%3600/60)
		}
	}
	var desc []string
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "diff "); i++ {
		desc = append(desc, lines[i])
	}
	return author, date, strings.TrimSpace(strings.Join(desc, "\n")) + "\n"
}

// git runs git in dir with stdin and extra environment, isolated from the
// user's and the system's git configuration (gitexec.NoUserConfig: a
// signing or hook setting there must not change the example).
func git(ctx context.Context, dir string, stdin []byte, env []string, args ...string) error {
	_, err := gitOutput(ctx, dir, stdin, env, args...)
	return err
}

// gitOutput is git, returning git's trimmed output.
func gitOutput(ctx context.Context, dir string, stdin []byte, env []string, args ...string) (string, error) {
	c := &gitexec.Cmd{Dir: dir, Args: args, Env: gitexec.NoUserConfig, ExtraEnv: env}
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	out, err := c.Output(ctx)
	return strings.TrimSpace(out), err
}

func revParse(ctx context.Context, dir, rev string) (string, error) {
	return gitOutput(ctx, dir, nil, nil, "rev-parse", rev)
}
