package b

import "testing"

func TestOK(t *testing.T) {}

func TestPanic(t *testing.T) {
	var m map[string]int
	m["x"] = 1
}
