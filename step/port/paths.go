package port

import (
	"fmt"
	"strings"
)

// checkPath reports why a path from a patch is unsafe to write into a Git
// tree, or nil. Paths come from untrusted input: an absolute path, a '..'
// or a '.git' component would let a patch reach outside the work tree or
// into the repository's own files once the commit is checked out.
func checkPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("absolute path %q", p)
	case strings.ContainsAny(p, "\x00\\"):
		return fmt.Errorf("path %q contains a NUL or a backslash", p)
	}
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "" || c == ".":
			return fmt.Errorf("path %q has an empty or '.' component", p)
		case c == "..":
			return fmt.Errorf("path %q contains '..'", p)
		case strings.EqualFold(c, ".git") || strings.EqualFold(strings.TrimRight(c, ". "), ".git"):
			return fmt.Errorf("path %q lies inside .git", p)
		}
	}
	return nil
}

// A Remap rewrites a path prefix: Go's 'src/pkg/' became 'src/' in 2014.
type Remap struct {
	Old string `json:"old"`
	New string `json:"new"`
}

func (r Remap) String() string { return r.Old + "=" + r.New }

// matches reports whether r rewrites p: a directory remap ("src/pkg/")
// every path under it, a file remap ("a.go") that path only, not "a.go.orig".
func (r Remap) matches(p string) bool {
	if strings.HasSuffix(r.Old, "/") {
		return strings.HasPrefix(p, r.Old)
	}
	return p == r.Old
}

// ParseRemap parses "OLD=NEW" as -remap and the configuration write it.
func ParseRemap(s string) (Remap, error) {
	old, new, ok := strings.Cut(s, "=")
	if !ok || old == "" || new == "" {
		return Remap{}, fmt.Errorf("bad remap %q: want OLD=NEW, e.g. src/pkg/=src/", s)
	}
	for _, p := range []string{old, new} {
		if err := checkPath(strings.TrimSuffix(p, "/")); err != nil {
			return Remap{}, fmt.Errorf("bad remap %q: %v", s, err)
		}
	}
	if strings.HasSuffix(old, "/") != strings.HasSuffix(new, "/") {
		return Remap{}, fmt.Errorf("bad remap %q: both sides must end in '/' (directories) or neither", s)
	}
	return Remap{Old: old, New: new}, nil
}

// A RemapUse records one path a remap rewrote.
type RemapUse struct {
	Rule string `json:"rule"` // "OLD=NEW"
	From string `json:"from"`
	To   string `json:"to"`
}

// remap returns p rewritten by the first remap that applies: its old path
// does not exist in t but the remapped one does (for a file the patch
// creates, the remapped file's directory). A repository that really has
// the old path is left alone.
func (t *tree) remap(p string, creates bool, remaps []Remap) (string, *Remap) {
	for i, r := range remaps {
		if !r.matches(p) {
			continue
		}
		cand := r.New + p[len(r.Old):]
		if creates {
			if t.lookup(p) == nil && !t.isDir(parentDir(p)) && t.isDir(parentDir(cand)) {
				return cand, &remaps[i]
			}
		} else if t.lookup(p) == nil && t.lookup(cand) != nil {
			return cand, &remaps[i]
		}
	}
	return p, nil
}

// remapQuiet is remap without the rule.
func (t *tree) remapQuiet(p string, creates bool, remaps []Remap) string {
	to, _ := t.remap(p, creates, remaps)
	return to
}
