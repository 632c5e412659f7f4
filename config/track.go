package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Track is the track section: what 'patchbot sweep's track task records
// (docs/track.md), and the defaults of 'patchbot track's flags.
type Track struct {
	// Branch is the branch tracked; "" leaves the task off.
	Branch string `yaml:"branch" json:"branch"`

	// Source is the repository's git URL (https://github.com/OWNER/REPO)
	// that serve's workers fetch the branch from, when the sweep queues
	// its track job (sweep.queue); "" records the repository the sweep
	// runs in, in the sweep itself.
	Source string `yaml:"source" json:"source"`

	// Every records one commit in Every.
	Every int `yaml:"every" json:"every"`

	// Max bounds the commits recorded a run.
	Max int `yaml:"max" json:"max"`

	// Count is how many times each commit's benchmarks run.
	Count int `yaml:"count" json:"count"`

	// Packages are the packages benchmarked ('go list' patterns);
	// empty is every package of the module.
	Packages []string `yaml:"packages" json:"packages"`

	// Bench selects the benchmarks, as go test -bench does.
	Bench string `yaml:"bench" json:"bench"`

	// MaxBisect bounds the slowdowns bisected a run.
	MaxBisect int `yaml:"max_bisect" json:"max_bisect"`
}

var gitURLRE = regexp.MustCompile(`^(https?|ssh|git|file)://[^\s]+$`)

func (t *Track) validate() error {
	switch {
	case t.Branch != "" && (!branchNameRE.MatchString(t.Branch) || strings.HasPrefix(t.Branch, "-") || strings.Contains(t.Branch, "..")):
		return &keyError{"branch", fmt.Errorf("%q is not a branch name", t.Branch)}
	case t.Source != "" && !gitURLRE.MatchString(t.Source):
		return &keyError{"source", fmt.Errorf("%q is not a git URL like https://github.com/OWNER/REPO", t.Source)}
	case t.Every < 1 || t.Every > 1000:
		return &keyError{"every", errors.New("must be from 1 to 1000")}
	case t.Max < 1 || t.Max > 1000:
		return &keyError{"max", errors.New("must be from 1 to 1000")}
	case t.Count < 1 || t.Count > 100:
		return &keyError{"count", errors.New("must be from 1 to 100")}
	case t.MaxBisect < 1 || t.MaxBisect > 100:
		return &keyError{"max_bisect", errors.New("must be from 1 to 100")}
	}
	return nil
}

var branchNameRE = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
