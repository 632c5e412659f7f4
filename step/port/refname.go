package port

import (
	"fmt"
	"strings"

	"github.com/patchbot/patchbot/internal/remedy"
)

// checkBranchName reports why git would refuse name as a branch name, as
// 'git check-ref-format --branch NAME' run outside a repository does, or
// "" when git accepts it. The rules are git's check_refname_format
// (refs.c) applied to "refs/heads/"+name, plus the two of
// strbuf_check_branch_ref: no leading '-', and not "HEAD". They are written
// here rather than asked of git because they must be checked before
// anything is written, for every name, including the default one built from
// port.branch_prefix; refname_test.go checks them against the real
// git check-ref-format.
func checkBranchName(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case strings.HasPrefix(name, "-"):
		return "it starts with '-'"
	case name == "HEAD":
		return "HEAD is not a branch"
	}
	if strings.HasSuffix(name, ".") {
		return "it ends with '.'"
	}
	for _, comp := range strings.Split(name, "/") {
		switch {
		case comp == "":
			return "it has an empty component (a leading or trailing '/', or '//')"
		case strings.HasPrefix(comp, "."):
			return fmt.Sprintf("component %q starts with '.'", comp)
		case strings.HasSuffix(comp, ".lock"):
			return fmt.Sprintf("component %q ends with '.lock'", comp)
		}
	}
	if strings.Contains(name, "..") {
		return "it contains '..'"
	}
	if strings.Contains(name, "@{") {
		return "it contains '@{'"
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("it contains the control character %q", c)
		case strings.IndexByte(" ~^:?*[\\", c) >= 0:
			return fmt.Sprintf("it contains %q", c)
		}
	}
	return ""
}

// branchNameProblem is checkBranchName with two names git accepts but
// patchbot refuses, because they would not name the branch where people
// type them: "@", which revisions read as HEAD, and names starting with
// "refs/", which become refs/heads/refs/... and are ambiguous with the ref
// they look like.
func branchNameProblem(name string) string {
	if why := checkBranchName(name); why != "" {
		return why
	}
	switch {
	case name == "@":
		return "'@' means HEAD in revisions"
	case strings.HasPrefix(name, "refs/"):
		return "a branch name does not start with refs/ (it would be refs/heads/" + name + ")"
	}
	return ""
}

// checkBranch returns an *remedy.FieldError when the branch the port would set
// is refused: the explicit one, or port.branch_prefix with the 12 hex
// digits the default branch gets.
func checkBranch(opts *Options) error {
	if opts.Branch != "" {
		if why := branchNameProblem(opts.Branch); why != "" {
			return &remedy.FieldError{Field: "port.branch", Value: opts.Branch,
				Reason: "not a branch name git accepts: " + why + "; choose another"}
		}
		return nil
	}
	if opts.BranchPrefix != "" {
		name := opts.BranchPrefix + "0123456789ab"
		if why := branchNameProblem(name); why != "" {
			return &remedy.FieldError{Field: "port.branch_prefix", Value: opts.BranchPrefix,
				Reason: fmt.Sprintf("branches named like %s are refused by git: %s; change it in the configuration, or give {port.branch}", name, why)}
		}
	}
	return nil
}
