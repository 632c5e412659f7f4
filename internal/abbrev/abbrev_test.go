package abbrev

import "testing"

func TestHash(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0123456789abcdef0123456789abcdef01234567", "0123456789ab"},
		{"0123456789abc", "0123456789ab"},
		{"0123456789ab", "0123456789ab"},
		{"abc", "abc"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Hash(tt.in); got != tt.want {
			t.Errorf("Hash(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"one\ntwo\n", "one"},
		{"one", "one"},
		{"\none", ""},
		{"  spaced  \nnext", "  spaced  "},
		{"cr\r\nlf", "cr\r"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := FirstLine(tt.in); got != tt.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ..."},
		{"héllo wörld", 8, "héll..."}, // é is 2 bytes: 5 bytes before the dots
		{"ab€cd", 6, "ab..."},         // € (3 bytes) would end at byte 5: cut before it
		{"€€€€", 3, "..."},
		{"", 3, ""},
	}
	for _, tt := range tests {
		got := Clip(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if len(got) > tt.n {
			t.Errorf("Clip(%q, %d) is %d bytes long", tt.in, tt.n, len(got))
		}
	}
}
