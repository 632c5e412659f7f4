package actions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromEnv(t *testing.T) {
	if r := FromEnv(env(map[string]string{})); r != nil {
		t.Errorf("FromEnv without GITHUB_ACTIONS = %+v, want nil", r)
	}
	if r := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "1"})); r != nil {
		t.Errorf("FromEnv with GITHUB_ACTIONS=1 = %+v, want nil (the runner sets \"true\")", r)
	}
	r := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": "o", "GITHUB_STEP_SUMMARY": "s", "GITHUB_ENV": "e"}))
	if r == nil || r.Output != "o" || r.Summary != "s" || r.Env != "e" {
		t.Fatalf("FromEnv = %+v", r)
	}
	r2 := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "true"}))
	if len(r.Token()) != 32 || r.Token() == r2.Token() {
		t.Errorf("tokens %q and %q: want 32 hex digits, different each time", r.Token(), r2.Token())
	}
}

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
		{"x::add-mask::y", "x::add-mask::y", "x%3A%3Aadd-mask%3A%3Ay"},
		{"a,b:c", "a,b:c", "a%2Cb%3Ac"},
		{"%0A", "%250A", "%250A"},
	} {
		if got := EscapeData(tt.in); got != tt.data {
			t.Errorf("EscapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := EscapeProperty(tt.in); got != tt.prop {
			t.Errorf("EscapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
	var b bytes.Buffer
	Error(&b, "bench failed\n::add-mask::x")
	StartGroup(&b, "a\n::set-output name=x::1")
	EndGroup(&b)
	if got, want := Commands(b.Bytes()), []string{"::error::bench failed%0A::add-mask::x", "::group::a%0A::set-output name=x::1", "::endgroup::"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", got, want)
	}
}

func TestFrame(t *testing.T) {
	r := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "true"}))
	for _, tt := range []struct{ name, text string }{
		{"empty", ""},
		{"line", "BenchmarkX 1 2 ns/op\n"},
		{"no newline", "::set-output name=regressions::0"},
		{"commands", "::add-mask::hunter2\n  ::set-env name=PATH::/tmp\n::stop-commands::other\n::endgroup::\n"},
		{"fake end", "::0123::\n::" + strings.Repeat("f", 32) + "::\n::error::x\n"},
		{"CR", "ok\r::add-mask::x\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			f := r.Frame(&b)
			f.Write([]byte(tt.text))
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if tt.text == "" {
				if out != "" {
					t.Fatalf("nothing written, got %q", out)
				}
				return
			}
			want := []string{"::stop-commands::" + r.Token()}
			if got := Commands(b.Bytes()); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("commands %q, want %q; output:\n%s", got, want, out)
			}
			if !strings.HasSuffix(out, "\n::"+r.Token()+"::\n") || !strings.Contains(out, tt.text) {
				t.Errorf("output %q: want the text, then the token on a line of its own", out)
			}
			// After the block, commands are read again.
			EndGroup(&b)
			if got := Commands(b.Bytes()); got[len(got)-1] != "::endgroup::" {
				t.Errorf("after Close: commands %q, want ::endgroup:: last", got)
			}
		})
	}
}

func FuzzFrame(f *testing.F) {
	f.Add("::add-mask::x\n", "::set-output name=a::b")
	f.Add("::stop-commands::x\n", "::x::\n::error::y")
	r := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "true"}))
	f.Fuzz(func(t *testing.T, a, b string) {
		var buf bytes.Buffer
		fr := r.Frame(&buf)
		fr.Write([]byte(a))
		fr.Write([]byte(b))
		fr.Close()
		got := Commands(buf.Bytes())
		if a+b == "" {
			if len(got) != 0 {
				t.Fatalf("commands %q from nothing", got)
			}
			return
		}
		if len(got) != 1 || got[0] != "::stop-commands::"+r.Token() {
			t.Fatalf("text %q %q: commands %q", a, b, got)
		}
	})
}

func TestKeyValue(t *testing.T) {
	for _, v := range []string{"", "0", "true", "a\nb\n", "x<<EOF\nEOF\n", "line\n\nlast", "patchbot_\npatchbot_0123"} {
		rec, err := KeyValue("result", v)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseKeyValues([]byte("before=1\n" + rec + "after=2\n"))
		if err != nil {
			t.Fatalf("%q: %v", rec, err)
		}
		if m["result"] != v || m["before"] != "1" || m["after"] != "2" {
			t.Errorf("KeyValue(result, %q) = %q, read back as %q", v, rec, m)
		}
	}
	for _, name := range []string{"", "a=b", "a<<b", "a\nb", "a\rb"} {
		if _, err := KeyValue(name, "v"); err == nil {
			t.Errorf("KeyValue(%q) succeeded, want an error", name)
		}
	}
}

func FuzzKeyValue(f *testing.F) {
	f.Add("v")
	f.Add("a\nb\n")
	f.Add("patchbot_x\n")
	f.Fuzz(func(t *testing.T, v string) {
		if strings.Contains(v, "\r") {
			return // the runner reads CRLF as LF
		}
		rec, err := KeyValue("out", v)
		if err != nil {
			t.Fatal(err)
		}
		delim := rec[len("out<<"):strings.Index(rec, "\n")]
		if strings.Contains(v, delim) {
			t.Fatalf("delimiter %q in the value %q", delim, v)
		}
		m, err := ParseKeyValues([]byte(rec))
		if err != nil || m["out"] != v || len(m) != 1 {
			t.Fatalf("value %q: record %q read back as %q, %v", v, rec, m, err)
		}
	})
}

func TestSetOutputAndEnv(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{Output: filepath.Join(dir, "output"), Env: filepath.Join(dir, "env")}
	r.SetOutput("frozen", "false")
	r.SetOutput("table", "| a |\n| b |")
	r.SetEnv("PATCHBOT_RESULT", "/tmp/r.json")
	out, _ := os.ReadFile(r.Output)
	m, err := ParseKeyValues(out)
	if err != nil || m["frozen"] != "false" || m["table"] != "| a |\n| b |" {
		t.Errorf("GITHUB_OUTPUT %q read as %q, %v", out, m, err)
	}
	e, _ := os.ReadFile(r.Env)
	if m, _ := ParseKeyValues(e); m["PATCHBOT_RESULT"] != "/tmp/r.json" {
		t.Errorf("GITHUB_ENV %q", e)
	}
	if err := (&Runner{}).SetOutput("x", "y"); err != nil {
		t.Errorf("without GITHUB_OUTPUT: %v", err)
	}
}

func TestSummary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "summary.md")
	if err := AppendSummary(file, "# one\n"); err != nil {
		t.Fatal(err)
	}
	AppendSummary(file, "two")
	if b, _ := os.ReadFile(file); string(b) != "# one\n\ntwo\n\n" {
		t.Errorf("summary %q", b)
	}
	// Past 1 MiB: cut, with the note, the file within the limit.
	big := strings.Repeat("| BenchmarkÄ | 1 ns/op |\n", MaxSummary/20)
	if err := AppendSummary(file, big); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	if len(b) > MaxSummary || !strings.HasSuffix(string(b), cutNote) || !utf8.Valid(b) || !strings.HasPrefix(string(b), "# one\n\ntwo\n\n| Benchmark") {
		t.Errorf("summary of %d bytes (limit %d), ends %q", len(b), MaxSummary, b[max(0, len(b)-200):])
	}
	// Full: nothing more is added.
	AppendSummary(file, "three")
	if b2, _ := os.ReadFile(file); len(b2) != len(b) {
		t.Errorf("a full summary grew from %d to %d bytes", len(b), len(b2))
	}
	for _, n := range []int{0, 1, 2, 3, 5, 10} {
		if s := cutUTF8("aÄbÖc€", n); len(s) > n || !utf8.ValidString(s) {
			t.Errorf("cutUTF8(%d) = %q", n, s)
		}
	}
}

func TestCodeBlock(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a\n", "```\na\n```\n"},
		{"x ``` y\r\nz", "````\nx ``` y\nz\n````\n"},
		{"`````", "``````\n`````\n``````\n"},
	} {
		if got := CodeBlock(tt.in); got != tt.want {
			t.Errorf("CodeBlock(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
