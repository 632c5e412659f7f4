//go:build !unix

package benchrun

import "os"

// processExists reports every process alive where it cannot be asked: SweepTemp
// then removes nothing.
func processExists(pid int) bool { return true }

// ownedByMe reports every file as another's where owners cannot be asked:
// SweepTemp then removes nothing.
func ownedByMe(fi os.FileInfo) bool { return false }
