//go:build !unix

package benchrun

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, cancelling kills
// the benchmark process alone.
func ownGroup(cmd *exec.Cmd) {}

// killGroup does nothing: without process groups, there is nothing to kill
// once cmd has exited.
func killGroup(cmd *exec.Cmd) {}
