package review

import "testing"

func TestKindPart(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"gopher", "gopher"},
		{"Go-Pher42", "go-pher42"},
		{"dependabot[bot]", "dependabot-bot-"},
		{"a_b.c/é", "a-b-c--"},
	} {
		got := KindPart(tt.in)
		if got != tt.want {
			t.Errorf("KindPart(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err := CheckKind("refusal-" + got); err != nil {
			t.Errorf("KindPart(%q) = %q makes no kind: %v", tt.in, got, err)
		}
	}
}
