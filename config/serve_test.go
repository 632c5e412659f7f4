package config

import (
	"reflect"
	"testing"
)

func TestServe(t *testing.T) {
	if got := Default().Serve; len(got.GitHub.Trusted) != 0 || got.Gerrit.Group != "" || len(got.Gerrit.Trusted) != 0 || got.Gerrit.Query != "status:open" {
		t.Errorf("built-in serve section = %+v, want nobody trusted", got)
	}
	tests := []struct {
		in   string
		want Serve
		err  string
	}{
		{in: "serve:\n  github:\n    trusted: [alice, Bob-2]\n", want: Serve{GitHub: ServeGitHub{Trusted: []string{"alice", "Bob-2"}}, Gerrit: ServeGerrit{Trusted: []string{}, Query: "status:open"}}},
		{in: "serve:\n  gerrit:\n    group: Go Approvers\n    trusted: [1000042, gopher, gopher@example.com]\n",
			want: Serve{GitHub: ServeGitHub{Trusted: []string{}}, Gerrit: ServeGerrit{Group: "Go Approvers", Trusted: []string{"1000042", "gopher", "gopher@example.com"}, Query: "status:open"}}},
		{in: "serve:\n  gerrit:\n    group: 3a1b2c3d4e5f60718293a4b5c6d7e8f901234567\n",
			want: Serve{GitHub: ServeGitHub{Trusted: []string{}}, Gerrit: ServeGerrit{Group: "3a1b2c3d4e5f60718293a4b5c6d7e8f901234567", Trusted: []string{}, Query: "status:open"}}},
		{in: "serve:\n  github:\n    trusted: [\"dependabot[bot]\"]\n", err: `user.yaml:3: serve.github.trusted: "dependabot[bot]" is a bot, and a bot's comments are never commands`},
		{in: "serve:\n  github:\n    trusted: [-alice]\n", err: `user.yaml:3: serve.github.trusted: "-alice" is not a GitHub login (letters, digits and single hyphens, at most 39)`},
		{in: "serve:\n  github:\n    trusted: [a--b]\n", err: `user.yaml:3: serve.github.trusted: "a--b" is not a GitHub login (letters, digits and single hyphens, at most 39)`},
		{in: "serve:\n  github:\n    trusted: [\"alice bob\"]\n", err: `user.yaml:3: serve.github.trusted: "alice bob" is not a GitHub login (letters, digits and single hyphens, at most 39)`},
		{in: "serve:\n  github:\n    trusted: [alice, Alice]\n", err: `user.yaml:3: serve.github.trusted: "Alice" is listed twice`},
		{in: "serve:\n  github:\n    trusted: alice\n", err: `user.yaml:3: serve.github.trusted: cannot unmarshal !!str ` + "`alice`" + ` into []string`},
		{in: "serve:\n  gerrit:\n    group: \" Go \"\n", err: `user.yaml:3: serve.gerrit.group: " Go " has spaces around it`},
		{in: "serve:\n  gerrit:\n    group: \"a\\nb\"\n", err: `user.yaml:3: serve.gerrit.group: "a\nb" has control characters in it`},
		{in: "serve:\n  gerrit:\n    trusted: [\"Ann <ann@example.com>\"]\n", err: `user.yaml:3: serve.gerrit.trusted: "Ann <ann@example.com>" is not an account: give its id (1000042), username or email`},
		{in: "serve:\n  gerrit:\n    trusted: [0]\n", err: `user.yaml:3: serve.gerrit.trusted: "0" is not an account: give its id (1000042), username or email`},
		{in: "serve:\n  gerrit:\n    trusted: [bob, bob]\n", err: `user.yaml:3: serve.gerrit.trusted: "bob" is listed twice`},
		{in: "serve:\n  gerrit:\n    query: project:go status:open (branch:master OR branch:\"dev.x)\")\n",
			want: Serve{GitHub: ServeGitHub{Trusted: []string{}}, Gerrit: ServeGerrit{Trusted: []string{}, Query: `project:go status:open (branch:master OR branch:"dev.x)")`}}},
		{in: "serve:\n  gerrit:\n    query: \"\"\n", err: `user.yaml:3: serve.gerrit.query: is empty: give a Gerrit search, such as "project:go status:open" ("status:open" reads every open change the account can see)`},
		{in: "serve:\n  gerrit:\n    query: \"project:a) OR (project:b\"\n", err: `user.yaml:3: serve.gerrit.query: "project:a) OR (project:b": its parentheses or quotes do not balance, and serve's time bound would not apply to all of it`},
		{in: "serve:\n  gerrit:\n    query: 'message:\"x'\n", err: `user.yaml:3: serve.gerrit.query: "message:\"x": its parentheses or quotes do not balance, and serve's time bound would not apply to all of it`},
		{in: "serve:\n  gerrit:\n    query: \"a\\tb\"\n", err: `user.yaml:3: serve.gerrit.query: "a\tb" has control characters in it`},
		{in: "serve:\n  gerrit:\n    members: [bob]\n", err: "user.yaml:3: serve.gerrit.members: unknown key (known keys here: group, query, trusted)"},
		{in: "serve:\n  listen: :8080\n", err: "user.yaml:2: serve.listen: unknown key (known keys here: gerrit, github)"},
	}
	for _, tt := range tests {
		c, err := Parse("user.yaml", []byte(tt.in))
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("Parse(%q):\n got %v\nwant %s", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("Parse(%q): %v", tt.in, err)
		case !reflect.DeepEqual(c.Serve, tt.want):
			t.Errorf("Parse(%q).Serve = %#v\nwant %#v", tt.in, c.Serve, tt.want)
		}
	}
}
