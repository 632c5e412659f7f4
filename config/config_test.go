package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testConfig stands in for Config, so that the decoder's rules are tested
// independently of which sections exist today.
type testConfig struct {
	Bench testBench `yaml:"bench"`
	Names []string  `yaml:"names"`
}

type testBench struct {
	Count     int           `yaml:"count"`
	Benchtime time.Duration `yaml:"benchtime"`
	Alpha     float64       `yaml:"alpha"`
	Inner     testInner     `yaml:"inner"`
}

type testInner struct {
	Mode string `yaml:"mode"`
}

func (b *testBench) validate() error {
	if b.Count < 1 {
		return &keyError{"count", errors.New("must be at least 1")}
	}
	if b.Alpha <= 0 || b.Alpha >= 1 {
		return errors.New("alpha must be between 0 and 1")
	}
	return nil
}

func (in *testInner) validate() error {
	if in.Mode != "a" && in.Mode != "b" {
		return errors.New(`must be "a" or "b"`)
	}
	return nil
}

const testDefault = `
bench:
  count: 10
  benchtime: 1s
  alpha: 0.05
  inner:
    mode: a
names: [x, y]
`

func TestOverlay(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want testConfig
	}{
		{"empty", "", testConfig{Bench: testBench{10, time.Second, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"comments only", "# nothing\n", testConfig{Bench: testBench{10, time.Second, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"one key", "bench:\n  count: 3\n", testConfig{Bench: testBench{3, time.Second, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"null section keeps defaults", "bench:\n", testConfig{Bench: testBench{10, time.Second, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"duration", "bench:\n  benchtime: 250ms\n", testConfig{Bench: testBench{10, 250 * time.Millisecond, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"list replaces", "names: [z]\n", testConfig{Bench: testBench{10, time.Second, 0.05, testInner{"a"}}, Names: []string{"z"}}},
		{"nested", "bench:\n  inner:\n    mode: b\n", testConfig{Bench: testBench{10, time.Second, 0.05, testInner{"b"}}, Names: []string{"x", "y"}}},
		{"document start", "---\nbench:\n  count: 3\n", testConfig{Bench: testBench{3, time.Second, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"empty documents after", "bench:\n  count: 3\n---\n# nothing\n---\n...\n", testConfig{Bench: testBench{3, time.Second, 0.05, testInner{"a"}}, Names: []string{"x", "y"}}},
		{"utf-8", "names: [café, 日本]\n", testConfig{Bench: testBench{10, time.Second, 0.05, testInner{"a"}}, Names: []string{"café", "日本"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c testConfig
			if err := overlay(&c, "default", []byte(testDefault)); err != nil {
				t.Fatal(err)
			}
			if err := overlay(&c, "user.yaml", []byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			if c.Bench != tt.want.Bench || strings.Join(c.Names, ",") != strings.Join(tt.want.Names, ",") {
				t.Errorf("got %+v, want %+v", c, tt.want)
			}
		})
	}
}

func TestOverlayErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"unknown top key", "bench:\n  count: 2\nbnech: {}\n", `user.yaml:3: bnech: unknown key (known keys here: bench, names)`},
		{"unknown nested key", "bench:\n  count: 2\n  cuont: 3\n", `user.yaml:3: bench.cuont: unknown key (known keys here: alpha, benchtime, count, inner)`},
		{"wrong type", "bench:\n  count: many\n", "user.yaml:2: bench.count: cannot unmarshal !!str `many` into int"},
		{"bad duration", "bench:\n  benchtime: 3 fortnights\n", "user.yaml:2: bench.benchtime: cannot unmarshal !!str `3 fortn...` into time.Duration"},
		{"validation at sub-key", "bench:\n  alpha: 0.1\n  count: 0\n", `user.yaml:3: bench.count: must be at least 1`},
		{"validation of section", "bench:\n  alpha: 2\n", `user.yaml:1: bench: alpha must be between 0 and 1`},
		{"validation nested", "bench:\n  inner:\n    mode: c\n", `user.yaml:2: bench.inner: must be "a" or "b"`},
		{"section not a mapping", "bench: 3\n", `user.yaml:1: bench: must be a section (keys and values), not "3"`},
		{"top not a mapping", "- a\n- b\n", `user.yaml:1: must be a mapping of sections (keys and values), not a list`},
		{"duplicate key", "bench:\n  count: 2\n  count: 3\n", `user.yaml:3: bench.count: key appears twice`},
		{"syntax", "bench:\n  count: [1\n", `user.yaml:1: did not find expected ',' or ']'`},
		{"merge key", "base: &b {count: 2}\nbench:\n  <<: *b\n", `user.yaml:1: base: unknown key (known keys here: bench, names)`},
		{"tabs", "bench:\n\tcount: 2\n", `user.yaml:2: found character that cannot start any token`},
		{"second document", "bench:\n  count: 2\n---\nbench:\n  count: 3\n", `user.yaml:3: a second YAML document starts here ('---'): a configuration is one document; merge the two, or remove the '---' line`},
		{"second document after an empty one", "bench:\n  count: 2\n---\n---\nnames: [z]\n", `user.yaml:4: a second YAML document starts here ('---'): a configuration is one document; merge the two, or remove the '---' line`},
		{"second document with an error", "bench:\n  count: 2\n---\nbench: [\n", `user.yaml:4: did not find expected node content`},
		{"latin-1 in a comment", "bench:\n  count: 2\n  # caf\xe9\n", `user.yaml:3: column 8: byte 0xe9 is not UTF-8; save the file as UTF-8`},
		{"latin-1 in a value", "names: [x, \"\xff\"]\n", `user.yaml:1: column 13: byte 0xff is not UTF-8; save the file as UTF-8`},
		{"utf-16", "\xff\xfeb\x00", `user.yaml:1: the file is UTF-16; save it as UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c testConfig
			if err := overlay(&c, "default", []byte(testDefault)); err != nil {
				t.Fatal(err)
			}
			err := overlay(&c, "user.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Errorf("error is %T, want *config.Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestDefault checks the built-in configuration: config.yaml parses
// (Default panics if not), what `patchbot config` prints of it parses back
// to the same configuration (so a key the file sets is one the printout
// keeps), and the verdicts' defaults are the ones the verdict derivation
// and docs/bench.md are written for.
func TestDefault(t *testing.T) {
	c := Default()
	y, err := c.YAML()
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	again, err := Parse("printed", y)
	if err != nil {
		t.Fatalf("the printed configuration does not parse: %v\n%s", err, y)
	}
	// A window's Line is where it was read, which differs.
	for _, cal := range []Calendar{c.Freeze.Calendar, again.Freeze.Calendar} {
		for k, w := range cal {
			w2 := *w
			w2.Line = 0
			cal[k] = &w2
		}
	}
	if !reflect.DeepEqual(again, c) {
		t.Errorf("the printed configuration parses back as\n%+v\nwant\n%+v", again, c)
	}
	b := c.Bench
	if b.Count.String() != "auto" || b.MaxCount != 30 || b.Equivalence != 2 || b.EquivalenceMax != 5 || b.Benchtime != "50ms" {
		t.Errorf("bench defaults: count %v, max_count %d, equivalence %v, equivalence_max %v, benchtime %q; want auto, 30, 2%%, 5%%, 50ms",
			b.Count, b.MaxCount, b.Equivalence, b.EquivalenceMax, b.Benchtime)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(""); err != nil {
		t.Fatalf("Load(\"\"): %v", err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := Load(missing); err == nil || err.Error() != missing+": no such configuration file" {
		t.Errorf("Load(missing) = %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("# comment\nnosuchsection:\n  x: 1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := Load(bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+":2: nosuchsection: unknown key") {
		t.Errorf("Load(bad) = %v", err)
	}
}
