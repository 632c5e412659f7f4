package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts in testdata/script/sweep_servers sweep changes of the real
// test Gerrit (they skip without it), each only its own change (-query
// change:N), apart from TestScripts for the server's environment.
func TestSweepServers(t *testing.T) {
	testscript.Run(t, serverScripts("testdata/script/sweep_servers", func(map[any]any) {}, map[string]func(*testscript.TestScript, bool, []string){
		"newchange": cmdNewChange,
	}))
}
