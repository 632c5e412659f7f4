package config

import (
	"slices"
	"testing"
)

func TestPortDefault(t *testing.T) {
	p := Default().Port
	if !slices.Equal(p.Remaps, []string{"src/pkg/=src/"}) || len(p.DropLines) != 3 || len(p.Rewrites) != 1 || p.BranchPrefix != "port/" {
		t.Errorf("built-in port section = %+v", p)
	}
}

func TestPortOverlay(t *testing.T) {
	c, err := Parse("user.yaml", []byte("port:\n  remaps: []\n  rewrites:\n    - match: 'issue (\\d+)'\n      replace: 'golang/go#$1'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Port.Remaps) != 0 || c.Port.Rewrites[0].Replace != "golang/go#$1" || len(c.Port.DropLines) != 3 {
		t.Errorf("port = %+v", c.Port)
	}
}

func TestPortErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"port:\n  remaps: [src/pkg/]\n", `user.yaml:2: port.remaps: item 1: "src/pkg/": want OLD=NEW, e.g. src/pkg/=src/`},
		{"port:\n  remaps: [/a/=b/]\n", `user.yaml:2: port.remaps: item 1: "/a/=b/": paths must be relative, without '..'`},
		{"port:\n  remaps: [a/=b]\n", `user.yaml:2: port.remaps: item 1: "a/=b": both sides must end in '/' or neither`},
		{"port:\n  drop_lines: ['(']\n", "user.yaml:2: port.drop_lines: item 1: error parsing regexp: missing closing ): `(`"},
		{"port:\n  rewrites:\n    - replace: x\n", "user.yaml:2: port.rewrites: item 1: match is empty"},
		{"port:\n  branch_prefix: 'a b'\n", "user.yaml:2: port.branch_prefix: must be a non-empty prefix of a Git branch name, such as port/"},
		{"port:\n  remap: []\n", "user.yaml:2: port.remap: unknown key (known keys here: branch_prefix, committer, drop_lines, remaps, rewrites)"},
		{"port:\n  committer: gopher@example.com\n", `user.yaml:2: port.committer: "gopher@example.com": want 'Name <email>', or empty for git's own committer`},
		{"port:\n  committer: 'Gopher <a> <b>'\n", `user.yaml:2: port.committer: "Gopher <a> <b>": want 'Name <email>', or empty for git's own committer`},
		// A list item is checked as strictly as a section.
		{"port:\n  rewrites:\n    - match: a\n      replace: b\n    - match: x\n      replce: y\n", "user.yaml:6: port.rewrites.replce: unknown key (known keys here: match, replace)"},
		{"port:\n  rewrites: {match: x}\n", "user.yaml:2: port.rewrites: must be a list, not a mapping"},
		{"port:\n  rewrites: [x]\n", `user.yaml:2: port.rewrites: must be a section (keys and values), not "x"`},
	}
	for _, tt := range tests {
		_, err := Parse("user.yaml", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestCommitterIdent(t *testing.T) {
	for _, tt := range []struct{ in, name, email string }{
		{"", "", ""},
		{"Gopher <gopher@example.com>", "Gopher", "gopher@example.com"},
		{"  Ken Thompson   <ken@example.com> ", "Ken Thompson", "ken@example.com"},
		{"Bot <>", "Bot", ""},
	} {
		p := Port{Committer: tt.in}
		if name, email := p.CommitterIdent(); name != tt.name || email != tt.email {
			t.Errorf("CommitterIdent(%q) = %q, %q; want %q, %q", tt.in, name, email, tt.name, tt.email)
		}
	}
}
