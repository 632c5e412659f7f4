//go:build !unix

package port

import "os/exec"

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(cmd *exec.Cmd) {}
