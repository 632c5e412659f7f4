package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Port is the port section: how 'patchbot port' turns Mercurial-era
// changesets into Git commits. The values are checked here; step/port
// receives them already compiled.
type Port struct {
	// Remaps are path prefix rewrites, "OLD=NEW", tried in order. A remap
	// applies to a path only where the old path does not exist at the base
	// and the new one does, so a repository that really has OLD is left
	// alone. -remap adds to the list.
	Remaps []string `yaml:"remaps" json:"remaps"`

	// DropLines are regular expressions for the lines removed from the end
	// of each message: the old review trailers (R=, CC=, ...) and review
	// URLs. They are matched against whole trimmed lines.
	DropLines []string `yaml:"drop_lines" json:"drop_lines"`

	// Rewrites are replacements applied to each message, in order, such as
	// "Fixes issue 123" to GitHub's "Fixes #123".
	Rewrites []PortRewrite `yaml:"rewrites" json:"rewrites"`

	// BranchPrefix starts the name of the branch a port creates when
	// -branch is not given; the first 12 hex digits of the hg node follow.
	BranchPrefix string `yaml:"branch_prefix" json:"branch_prefix"`

	// Committer is the committer of the ported commits, "Name <email>".
	// Empty: the committer git itself would use (GIT_COMMITTER_NAME and
	// GIT_COMMITTER_EMAIL, else user.name and user.email).
	Committer string `yaml:"committer" json:"committer"`
}

// identRE matches "Name <email>", the form git writes identities in.
var identRE = regexp.MustCompile(`^([^<>]*[^<>\s])\s*<([^<>]*)>$`)

// CommitterIdent returns the name and email of Committer, or "", "" when
// it is empty (validate has checked its form).
func (p *Port) CommitterIdent() (name, email string) {
	m := identRE.FindStringSubmatch(strings.TrimSpace(p.Committer))
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// A PortRewrite is a regular expression and its replacement, in Go's
// regexp syntax ($1 for the first group).
type PortRewrite struct {
	Match   string `yaml:"match" json:"match"`
	Replace string `yaml:"replace" json:"replace"`
}

func (p *Port) validate() error {
	for i, r := range p.Remaps {
		old, new, ok := strings.Cut(r, "=")
		if !ok || old == "" || new == "" {
			return &keyError{"remaps", fmt.Errorf("item %d: %q: want OLD=NEW, e.g. src/pkg/=src/", i+1, r)}
		}
		if strings.HasPrefix(old, "/") || strings.HasPrefix(new, "/") || strings.Contains(r, "..") {
			return &keyError{"remaps", fmt.Errorf("item %d: %q: paths must be relative, without '..'", i+1, r)}
		}
		if strings.HasSuffix(old, "/") != strings.HasSuffix(new, "/") {
			return &keyError{"remaps", fmt.Errorf("item %d: %q: both sides must end in '/' or neither", i+1, r)}
		}
	}
	for i, d := range p.DropLines {
		if _, err := regexp.Compile(d); err != nil {
			return &keyError{"drop_lines", fmt.Errorf("item %d: %v", i+1, err)}
		}
	}
	for i, rw := range p.Rewrites {
		if rw.Match == "" {
			return &keyError{"rewrites", fmt.Errorf("item %d: match is empty", i+1)}
		}
		if _, err := regexp.Compile(rw.Match); err != nil {
			return &keyError{"rewrites", fmt.Errorf("item %d: %v", i+1, err)}
		}
	}
	if p.Committer != "" && !identRE.MatchString(strings.TrimSpace(p.Committer)) {
		return &keyError{"committer", fmt.Errorf("%q: want 'Name <email>', or empty for git's own committer", p.Committer)}
	}
	if p.BranchPrefix == "" || strings.ContainsAny(p.BranchPrefix, " ~^:?*[\\") || strings.Contains(p.BranchPrefix, "..") {
		return &keyError{"branch_prefix", errors.New("must be a non-empty prefix of a Git branch name, such as port/")}
	}
	return nil
}
