package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "record testdata/sample.json from a run of go test in testdata/sample, and rewrite the golden files")

// The sample module's tests pass, fail, fail in a subtest, skip for two
// reasons, panic and do not build: testdata/sample.json is what 'go test
// -json ./...' printed for them, recorded with -update.
func TestShow(t *testing.T) {
	if *update {
		cmd := exec.Command("go", "test", "-json", "./...")
		cmd.Dir = "testdata/sample"
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		out, _ := cmd.Output() // it fails: some of its tests do
		if err := os.WriteFile("testdata/sample.json", out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := os.Open("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	if err := show(in, &out); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/sample.show", out.Bytes())
}

func TestSummary(t *testing.T) {
	s, err := readSummary("testdata/uses", "testdata/components", []string{"testdata/sample.json"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s.write(&out)
	golden(t, "testdata/sample.summary", out.Bytes())
	// Mercurial was found, and no test ran against it.
	if got := s.unused(); len(got) != 1 || got[0] != "mercurial" {
		t.Errorf("unused = %q, want [mercurial]", got)
	}
}

func TestSkipReason(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"=== RUN   TestX\n", "    x_test.go:12: setting up\n", "    x_test.go:20: the test Gerrit is missing\n", "--- SKIP: TestX (0.00s)\n"}, "the test Gerrit is missing"},
		// A multi-line message: its first line.
		{[]string{"    x_test.go:20: no cgroups:\n", "        none mounted\n"}, "no cgroups:"},
		// testscript: the skip, then the script's log.
		{[]string{"=== CONT  TestScriptsAlone/run_example\n", "    cmd.go:380: runs the built-in example's benchmarks (about a minute)\n",
			"    testscript.go:609: WORK=$WORK\n", "        PATH=/bin\n", "        > [short] skip 'runs the built-in example''s benchmarks (about a minute)'\n"},
			"runs the built-in example's benchmarks (about a minute)"},
		{[]string{"--- SKIP: TestY (0.00s)\n"}, "(no reason given)"},
	} {
		if got := skipReason(tc.lines); got != tc.want {
			t.Errorf("skipReason(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs; got:\n%s\nwant:\n%s\n(go test -update rewrites it)", file, got, strings.TrimSpace(string(want)))
	}
}
