package main

import (
	"flag"
	"fmt"
)

// A renamedFlag is a flag's old name, kept for one version after its
// rename: it sets the new flag, and the command warns that it goes.
type renamedFlag struct {
	flag.Value        // the new flag's
	old, new   string // names, without the dash
	used       bool
}

// String and IsBoolFlag hold for the zero renamedFlag too, which the flag
// package makes to tell a default from the zero value in a usage message.
func (r *renamedFlag) String() string {
	if r == nil || r.Value == nil {
		return ""
	}
	return r.Value.String()
}

// IsBoolFlag makes -old of a bool flag take no value, as -new does.
func (r *renamedFlag) IsBoolFlag() bool {
	b, ok := r.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func (r *renamedFlag) Set(s string) error {
	r.used = true
	return r.Value.Set(s)
}

// renamed defines -old as a deprecated spelling of fs's flag -new, which
// must be defined already.
func renamed(fs *flag.FlagSet, old, new string) *renamedFlag {
	r := &renamedFlag{Value: fs.Lookup(new).Value, old: old, new: new}
	fs.Var(r, old, fmt.Sprintf("deprecated spelling of -%s, which it sets; it goes after v0.1", new))
	return r
}

// warn says on e's stderr, once the flags are parsed, that the old name was
// used.
func (r *renamedFlag) warn(e *env, cmd string) {
	if r.used {
		fmt.Fprintf(e.stderr, "patchbot %s: -%s is deprecated: say -%s (the same flag); -%s goes after v0.1\n", cmd, r.old, r.new, r.old)
	}
}
