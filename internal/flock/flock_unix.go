//go:build unix

package flock

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes the exclusive lock on f without waiting: ErrLocked when
// another process holds it.
func TryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// Unlock gives the lock on f back.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
