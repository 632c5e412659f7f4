package benchrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/patchbot/patchbot/internal/gittest"
)

// testRepo is a real Git repository in a temporary directory holding a
// small Go module, built commit by commit with the real git.
type testRepo struct {
	t   testing.TB
	dir string
}

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.write("go.mod", "module example.com/bench\n\ngo 1.26\n")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return gittest.Git(r.t, r.dir, args...)
}

func (r *testRepo) write(name, content string) {
	r.t.Helper()
	name = filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits the given files (name, content, name, content…) and
// returns the new commit's hash.
func (r *testRepo) commit(msg string, files ...string) string {
	r.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		r.write(files[i], files[i+1])
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// A sum package whose benchmark does n additions per op; the head commit
// makes it do fewer, which a run should see as faster.
const (
	sumGo = `package sum

// Sum returns the sum of 1..n.
func Sum(n int) int {
	s := 0
	for i := 1; i <= n; i++ {
		s += i
	}
	return s
}
`
	sumFastGo = `package sum

// Sum returns the sum of 1..n.
func Sum(n int) int { return n * (n + 1) / 2 }
`
	sumTestGo = `package sum

import "testing"

var sink int

func BenchmarkSum(b *testing.B) {
	b.SetBytes(8)
	for range b.N {
		sink = Sum(2000)
	}
}

func BenchmarkAlloc(b *testing.B) {
	for range b.N {
		s := make([]byte, 64)
		sink += len(s)
	}
}
`
)
