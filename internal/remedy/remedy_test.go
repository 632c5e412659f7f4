package remedy

import (
	"fmt"
	"testing"
)

func TestWord(t *testing.T) {
	s := "patch.diff: does not apply; allow context differences with {port.fuzz}, or save the failing hunks with {port.reject_dir} (not {Upper} or {})"
	flags := map[string]string{"port.fuzz": "-fuzz N", "port.reject_dir": "-reject DIR"}
	tests := []struct {
		name func(string) string
		want string
	}{
		{func(f string) string { return flags[f] }, "patch.diff: does not apply; allow context differences with -fuzz N, or save the failing hunks with -reject DIR (not {Upper} or {})"},
		{nil, "patch.diff: does not apply; allow context differences with port.fuzz, or save the failing hunks with port.reject_dir (not {Upper} or {})"},
		{func(f string) string { return map[string]string{"port.fuzz": "the fuzz option"}[f] }, "patch.diff: does not apply; allow context differences with the fuzz option, or save the failing hunks with port.reject_dir (not {Upper} or {})"},
	}
	for _, tt := range tests {
		if got := Word(s, tt.name); got != tt.want {
			t.Errorf("Word = %q\nwant %q", got, tt.want)
		}
	}
	if got := fmt.Sprint(Fields(s)); got != "[port.fuzz port.reject_dir]" {
		t.Errorf("Fields = %s", got)
	}
}
