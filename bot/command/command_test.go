package command

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

var update = flag.Bool("update", false, "rewrite testdata/help*.golden")

// TestRuleNames lists the rules: a command added or removed shows here,
// in help and in docs/serve.md.
func TestRuleNames(t *testing.T) {
	var got []string
	for _, r := range Rules() {
		got = append(got, r.Name)
		if !strings.HasPrefix(r.Synopsis, Prefix+" "+r.Name) || r.Doc == "" || r.parse == nil {
			t.Errorf("rule %s: synopsis %q, doc %q", r.Name, r.Synopsis, r.Doc)
		}
	}
	if want := []string{"bench", "freeze", "help"}; !slices.Equal(got, want) {
		t.Errorf("rules = %q, want %q", got, want)
	}
}

func TestParse(t *testing.T) {
	bench := func(line int, args []string, count int, re string, pkgs ...string) *Command {
		return &Command{Name: "bench", Args: args, Line: line, Count: count, Bench: re, Packages: pkgs}
	}
	tests := []struct {
		name string
		text string
		want *Command
	}{
		{"empty", "", nil},
		{"prose", "LGTM, but please run the benchmarks.\n", nil},
		{"bare bench", "/patchbot bench", bench(1, []string{}, 0, "")},
		{"gerrit message", "Patch Set 3: Code-Review+1\n\n(1 comment)\n\n/patchbot bench -count 10 ./codec\n", bench(5, []string{"-count", "10", "./codec"}, 10, "", "./codec")},
		{"equals form", "/patchbot bench -count=5 -bench=^BenchmarkWriteInts$", bench(1, []string{"-count", "5", "-bench", "^BenchmarkWriteInts$"}, 5, "^BenchmarkWriteInts$")},
		{"options among packages", "/patchbot bench codec/... -bench Ints ./...", bench(1, []string{"-bench", "Ints", "./codec/...", "./..."}, 0, "Ints", "./codec/...", "./...")},
		{"bare dots", "/patchbot bench . ...", bench(1, []string{".", "./..."}, 0, "", ".", "./...")},
		{"indent up to three", "   /patchbot freeze", &Command{Name: "freeze", Args: []string{}, Line: 1}},
		{"spaces and tabs between", "/patchbot\tbench  \t-count   3   ", bench(1, []string{"-count", "3"}, 3, "")},
		{"crlf", "hi\r\n/patchbot help\r\n", &Command{Name: "help", Args: []string{}, Line: 2}},
		{"count bounds", "/patchbot bench -count 1", bench(1, []string{"-count", "1"}, 1, "")},
		{"count top", "/patchbot bench -count 050", bench(1, []string{"-count", "50"}, 50, "")},
		{"regexp with slash", "/patchbot bench -bench Ints/impl=codec", bench(1, []string{"-bench", "Ints/impl=codec"}, 0, "Ints/impl=codec")},
		{"count auto", "/patchbot bench -count auto ./codec", &Command{Name: "bench", Args: []string{"-count", "auto", "./codec"}, Line: 1, Auto: true, Packages: []string{"./codec"}}},
		{"a/a", "/patchbot bench -aa -count=auto", &Command{Name: "bench", Args: []string{"-count", "auto", "-aa"}, Line: 1, Auto: true, AA: true}},
		{"a/a, fixed count", "/patchbot bench ./codec -aa -count 20", &Command{Name: "bench", Args: []string{"-count", "20", "-aa", "./codec"}, Line: 1, Count: 20, AA: true, Packages: []string{"./codec"}}},
		{"quoted line", "> /patchbot bench\n", nil},
		{"quoted reply", "On Mon, A wrote:\n> /patchbot bench -count 1000000\n\nThanks.", nil},
		{"code block", "    /patchbot bench\n", nil},
		{"tab indent", "\t/patchbot bench\n", nil},
		{"fenced", "```\n/patchbot bench\n```\n", nil},
		{"fenced tilde, longer close", "~~~~\n/patchbot bench\n~~~~~\n/patchbot freeze", &Command{Name: "freeze", Args: []string{}, Line: 4}},
		{"unclosed fence", "```\n/patchbot bench\n", nil},
		{"mid-line", "please /patchbot bench", nil},
		{"other prefix", "/patchbots bench\n/patchbot-bench\n", nil},
		{"upper case", "/PATCHBOT bench", nil},
		{"help text is no command", Help(), nil},
		{"help reply is no command", HelpReply(&Error{Line: 1, Msg: "x"}, escape.Markdown), nil},
		{"after the limit", strings.Repeat("x", MaxMessage) + "\n/patchbot bench", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %#v\nwant %#v", got, tt.want)
			}
			if got != nil {
				again, err := Parse(got.String())
				if err != nil || again == nil || again.Line != 1 || again.String() != got.String() {
					t.Errorf("%q parses back as %v, %v", got.String(), again, err)
				}
			}
		})
	}
}

// TestParseErrors covers every limit and every refusal: hostile arguments
// are an *Error to answer with help, never a command.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"/patchbot", "line 1: no command given: write /patchbot and a command, such as /patchbot help"},
		{"/patchbot   ", "line 1: no command given: write /patchbot and a command, such as /patchbot help"},
		{"/patchbot benchh", `line 1: unknown command "benchh": the commands are bench, freeze, help`},
		{"/patchbot rm -rf /", `line 1: unknown command "rm": the commands are bench, freeze, help`},
		{"/patchbot freeze now", `line 1: /patchbot freeze: takes no arguments, and "now" was given`},
		{"/patchbot help bench", `line 1: /patchbot help: takes no arguments, and "bench" was given`},
		{"/patchbot bench -count 1000000", `line 1: /patchbot bench: -count "1000000": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -aa=yes", `line 1: /patchbot bench: -aa takes no value`},
		{"/patchbot bench -aa -aa", `line 1: /patchbot bench: -aa is given twice`},
		{"/patchbot bench -count AUTO", `line 1: /patchbot bench: -count "AUTO": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -count auto -count 5", `line 1: /patchbot bench: -count is given twice`},
		{"/patchbot bench -count 51", `line 1: /patchbot bench: -count "51": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -count 0", `line 1: /patchbot bench: -count "0": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -count -5", `line 1: /patchbot bench: -count "-5": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -count +5", `line 1: /patchbot bench: -count "+5": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -count 0x10", `line 1: /patchbot bench: -count "0x10": give a number of runs from 1 to 50, or auto`},
		{"/patchbot bench -count", "line 1: /patchbot bench: -count needs a value after it"},
		{"/patchbot bench -count 3 -count 4", "line 1: /patchbot bench: -count is given twice"},
		{"/patchbot bench --count 3", `line 1: /patchbot bench: unknown option "--count": the options are -count N or auto, -aa and -bench REGEXP`},
		{"/patchbot bench -cpu 4", `line 1: /patchbot bench: unknown option "-cpu": the options are -count N or auto, -aa and -bench REGEXP`},
		{"/patchbot bench -bench (", `line 1: /patchbot bench: -bench "(" is not a regular expression: missing closing ) in "("`},
		{"/patchbot bench -bench=", "line 1: /patchbot bench: -bench needs a regexp, such as -bench WriteInts"},
		{"/patchbot bench -bench " + strings.Repeat("a", MaxBenchRE+1), "line 1: /patchbot bench: -bench: the regexp has 201 bytes, at most 200"},
		{"/patchbot bench ../../x", `line 1: /patchbot bench: package "../../x": no path element may be .. or hold it; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench ./a/../b", `line 1: /patchbot bench: package "./a/../b": no path element may be .. or hold it; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench /etc", `line 1: /patchbot bench: package "/etc": an absolute path; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench C:\\x", `line 1: /patchbot bench: package "C:\\x": only letters, digits and - . _ ~ + / may be in a package pattern; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench $(id)", `line 1: /patchbot bench: package "$(id)": only letters, digits and - . _ ~ + / may be in a package pattern; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench ./a;rm", `line 1: /patchbot bench: package "./a;rm": only letters, digits and - . _ ~ + / may be in a package pattern; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench a//b", `line 1: /patchbot bench: package "a//b": an empty path element; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench ./codec/", `line 1: /patchbot bench: package "./codec/": an empty path element; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench .../x", `line 1: /patchbot bench: package ".../x": "..." may only be the first element, and ... only the last; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench a/./b", `line 1: /patchbot bench: package "a/./b": "." may only be the first element, and ... only the last; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench ./.git", `line 1: /patchbot bench: package "./.git": a path element starts with a dot; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench " + strings.Repeat("a", MaxPattern+1), `line 1: /patchbot bench: package "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": longer than 100 bytes; write a pattern of the repository such as ./codec or ./...`},
		// 99 bytes, but 101 as ./path: found by FuzzParse.
		{"/patchbot bench " + strings.Repeat("0", MaxPattern-1), `line 1: /patchbot bench: package "./00000000000000000000000000000000000...": longer than 100 bytes as ./path; write a pattern of the repository such as ./codec or ./...`},
		{"/patchbot bench ./codec codec", `line 1: /patchbot bench: package "codec" is given twice`},
		{"/patchbot bench " + strings.Repeat("./p ", 0) + pkgs(21), "line 1: /patchbot bench: more than 20 packages: name fewer, or a pattern such as ./... that covers them"},
		{"/patchbot bench " + strings.Repeat("x ", MaxArgs+1), "line 1: /patchbot bench: 33 arguments: at most 32"},
		{"/patchbot bench " + strings.Repeat("x", MaxLine), "line 1: the line is longer than 4096 bytes"},
		{"/patchbot bench \xff", "line 1: the line is not valid UTF-8"},
		{"/patchbot bench \x1b[31m", "line 1: the line has control characters in it"},
		{"/patchbot bench\n/patchbot freeze", "line 2: one command per message, please: write this one in a message of its own"},
		{"/patchbot nope\n/patchbot freeze", "line 2: one command per message, please: write this one in a message of its own"},
		{"text\n\n  /patchbot freeze x", `line 3: /patchbot freeze: takes no arguments, and "x" was given`},
	}
	for _, tt := range tests {
		c, err := Parse(tt.text)
		var e *Error
		if c != nil || !errors.As(err, &e) || err.Error() != tt.want {
			t.Errorf("Parse(%.60q) = %v, %v\nwant error %s", tt.text, c, err, tt.want)
		}
	}
}

func pkgs(n int) string {
	var ps []string
	for i := range n {
		ps = append(ps, "./p"+string(rune('a'+i)))
	}
	return strings.Join(ps, " ")
}

// TestApply checks what each command sets in a request, that it leaves the
// fields that bind the job to a revision and a review as the caller set
// them, and that the result is a valid request.
func TestApply(t *testing.T) {
	head := strings.Repeat("b", 40)
	caller := job.Request{
		Repo: "/var/lib/patchbot/work/codec", Base: strings.Repeat("a", 40), Head: head,
		GitHub: &job.GitHub{PullRequest: review.MustParsePullRequest("gopher/codec#7"), HeadSHA: head},
	}
	tests := []struct {
		line  string
		job   bool
		steps []string
		bench job.BenchSettings
	}{
		{"/patchbot bench -count 10 -bench Ints ./codec", true, []string{"bench", "post"}, job.BenchSettings{Count: 10, Bench: "Ints", Packages: []string{"./codec"}}},
		{"/patchbot bench", true, []string{"bench", "post"}, job.BenchSettings{}},
		{"/patchbot bench -count auto -aa", true, []string{"bench", "post"}, job.BenchSettings{Auto: true, AA: true}},
		{"/patchbot freeze", true, []string{"freeze", "post"}, job.BenchSettings{}},
		{"/patchbot help", false, nil, job.BenchSettings{}},
	}
	for _, tt := range tests {
		c, err := Parse(tt.line)
		if err != nil {
			t.Fatal(err)
		}
		req := caller
		req.GitHub = &job.GitHub{PullRequest: caller.GitHub.PullRequest, HeadSHA: caller.GitHub.HeadSHA}
		c.Apply(&req)
		if c.Job() != tt.job || !slices.Equal(req.Steps, tt.steps) || !reflect.DeepEqual(req.Bench, tt.bench) {
			t.Errorf("%s: job %v, steps %q, bench %+v; want %v, %q, %+v", tt.line, c.Job(), req.Steps, req.Bench, tt.job, tt.steps, tt.bench)
		}
		if req.Repo != caller.Repo || req.Base != caller.Base || req.Head != caller.Head || *req.GitHub != *caller.GitHub || req.Gerrit != nil {
			t.Errorf("%s: changed what the caller binds: %+v", tt.line, req)
		}
		if tt.job {
			if err := req.Validate(); err != nil {
				t.Errorf("%s: %v", tt.line, err)
			}
		}
	}
}

// TestHelpGolden compares the help text with testdata/help.golden
// (go test -update rewrites it).
func TestHelpGolden(t *testing.T) {
	got := Help()
	if *update {
		if err := os.WriteFile("testdata/help.golden", []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/help.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Help() =\n%s\nwant (testdata/help.golden)\n%s", got, want)
	}
	for _, r := range rules {
		if !strings.Contains(got, "\n    "+r.Synopsis+"\n") {
			t.Errorf("help lacks %s", r.Synopsis)
		}
	}
}

// TestHelpReplyEscapes checks the help reply to commands whose words would
// act if echoed raw, on each medium, against testdata/help-reply.MEDIUM.golden
// (go test -update rewrites them): the reviewer's words are shown, escaped,
// and mention, link and render nothing.
func TestHelpReplyEscapes(t *testing.T) {
	// What acts in each medium: Gerrit escapes HTML itself, and links
	// "#123" only where a project's configuration says so.
	rawWords := map[string]*regexp.Regexp{
		"github": regexp.MustCompile(`@octocat|[^\\]\]\(|<img|#123|https://`),
		"gerrit": regexp.MustCompile(`@octocat|\]\(|https://|evil\.example`),
	}
	bodies := []string{
		"/patchbot @octocat",
		"/patchbot bench [x](https://evil.example)",
		"/patchbot bench -count <img/src=x>",
		"/patchbot bench -count #123",
	}
	trust := Trust{GitHubTrusted: []string{"alice"}, GerritTrusted: []string{"1000007"}}
	for _, medium := range []string{"github", "gerrit"} {
		var got strings.Builder
		for _, body := range bodies {
			var d Decision
			if medium == "github" {
				d = trust.GitHub(GitHubComment{Action: "created", OnPullRequest: true, Login: "alice", Body: body})
			} else {
				d = trust.Gerrit(GerritMessage{AccountID: 1000007, Message: body})
			}
			if d.Verdict != Answer {
				t.Fatalf("%s: %q: verdict %s, want %s", medium, body, d.Verdict, Answer)
			}
			first, _, _ := strings.Cut(d.Reply, "\n")
			if m := rawWords[medium].FindString(first); m != "" {
				t.Errorf("%s: the reply to %q echoes %q raw: %q", medium, body, m, first)
			}
			fmt.Fprintf(&got, "%s\n%s\n\n", body, first)
		}
		golden := filepath.Join("testdata", "help-reply."+medium+".golden")
		if *update {
			if err := os.WriteFile(golden, []byte(got.String()), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%s: help replies:\n%s\nwant (%s):\n%s", medium, got.String(), golden, want)
		}
	}
}
