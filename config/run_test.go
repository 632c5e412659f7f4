package config

import "testing"

func TestRun(t *testing.T) {
	if got, want := Default().Run, (Run{Count: Auto, Benchtime: "50ms", Freeze: true}); got != want {
		t.Errorf("built-in run section = %+v, want %+v", got, want)
	}
	tests := []struct {
		in   string
		want Run
		err  string
	}{
		{in: "run:\n  count: 6\n", want: Run{Count: Runs(6), Benchtime: "50ms", Freeze: true}},
		{in: "run:\n  benchtime: 100x\n", want: Run{Count: Auto, Benchtime: "100x", Freeze: true}},
		{in: "run:\n  benchtime: \"\"\n", want: Run{Count: Auto, Freeze: true}},
		{in: "run:\n  freeze: false\n", want: Run{Count: Auto, Benchtime: "50ms"}},
		{in: "run:\n  count: auto\n", want: Run{Count: Auto, Benchtime: "50ms", Freeze: true}},
		{in: "run:\n  count: 0\n", err: "user.yaml:2: run.count: must be auto, or a number of runs from 1"},
		{in: "run:\n  benchtime: soon\n", err: `user.yaml:2: run.benchtime: "soon" is neither a duration (1s) nor a count of iterations (100x)`},
		{in: "run:\n  keep: true\n", err: "user.yaml:2: run.keep: unknown key (known keys here: benchtime, count, freeze)"},
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
		case c.Run != tt.want:
			t.Errorf("Parse(%q).Run = %+v, want %+v", tt.in, c.Run, tt.want)
		}
	}
}
