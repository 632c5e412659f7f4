//go:build !unix

package flock

import "os"

// TryLock takes no lock where there is no flock: every process gets it.
func TryLock(f *os.File) error { return nil }

// Unlock does nothing.
func Unlock(f *os.File) error { return nil }
