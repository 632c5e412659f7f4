// Package flock holds the operating system's advisory lock on a whole
// file: held while the file is open in the process that took it, dropped
// when the process dies, whatever way.
package flock

import "errors"

// ErrLocked says that another process holds the lock.
var ErrLocked = errors.New("locked by another process")
