//go:build race

package serve_test

// A test binary built with -race builds the command with it too, so that
// the race detector watches the serve processes the system tests run: a
// race it finds makes the process exit 66, which the tests report with its
// log.
func init() { raceBuild = true }
