package main

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"bench", "run", "post", "port", "freeze", "serve", "sweep", "version", "help", "request"}
	for _, tt := range []struct{ word, want string }{
		{"bench", "bench"},
		{"bnech", "bench"},   // a transposition
		{"benchh", "bench"},  // an insertion
		{"fréeze", "freeze"}, // two bytes for one
		{"pots", "post"},
		{"prot", "port"},
		{"pot", ""},   // post and port are as near: no guess
		{"rn", ""},    // too short to guess from
		{"xyzzy", ""}, // nothing near
		{"serv", "serve"},
		{"", ""},
	} {
		if got := nearest(tt.word, names); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"abc", "abc", 0},
		{"abc", "acb", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
