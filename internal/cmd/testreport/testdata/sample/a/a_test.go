package a

import "testing"

func TestPass(t *testing.T) { t.Log("a line nobody reads") }

func TestFail(t *testing.T) {
	t.Log("what the test saw")
	t.Error("what was wrong")
}

func TestSkip(t *testing.T) { t.Skip("the test Gerrit is missing: start it") }

func TestSkipToo(t *testing.T) { t.Skip("the test Gerrit is missing: start it") }

func TestSub(t *testing.T) {
	t.Run("good", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Fatal("the sub-test's failure") })
	t.Run("skipped", func(t *testing.T) { t.Skipf("runs real benchmarks; skipped with -short") })
}
