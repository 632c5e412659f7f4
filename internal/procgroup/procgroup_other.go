//go:build !unix

package procgroup

import "os/exec"

// Own leaves cmd as it is: without process groups, cancelling kills the
// process alone.
func Own(cmd *exec.Cmd) {}

// KillRest does nothing: without process groups, there is nothing to kill
// once cmd has exited.
func KillRest(cmd *exec.Cmd) {}
