//go:build !unix

package benchrun

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, cancelling kills
// the benchmark process alone.
func ownGroup(cmd *exec.Cmd) {}
