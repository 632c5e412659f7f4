package job

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/internal/example"
	"github.com/patchbot/patchbot/internal/gittest"
	"github.com/patchbot/patchbot/step/benchrun"
	"github.com/patchbot/patchbot/step/freeze"
	"github.com/patchbot/patchbot/step/port"
	"github.com/patchbot/patchbot/step/review"
)

func init() {
	// The commits of the tests have a fixed identity, whatever the
	// machine's git configuration says.
	for k, v := range map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull,
		"GIT_AUTHOR_NAME": "Gopher", "GIT_AUTHOR_EMAIL": "gopher@example.com",
		"GIT_COMMITTER_NAME": "Gopher", "GIT_COMMITTER_EMAIL": "gopher@example.com",
	} {
		os.Setenv(k, v)
	}
}

// sources returns the built-in configuration's freeze sources, offline.
func sources(t *testing.T) *freeze.Sources {
	t.Helper()
	s, err := freeze.FromConfig(&config.Default().Freeze, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// state returns what a run must not change in a repository: its refs, and
// the status of its work tree.
func state(t *testing.T, dir string) string {
	return gittest.Git(t, dir, "for-each-ref") + "\n" + gittest.Git(t, dir, "status", "--porcelain")
}

// TestRunSteps runs the job on the example's base (as a user's repository)
// and on the built-in example, with benchmarks short enough for a unit
// test, and checks what each step reports, in order, and what is left
// behind.
func TestRunSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchmarks")
	}
	ctx := context.Background()
	patch := []port.Input{{Name: example.PatchFile, Data: example.Patch()}}
	quick := benchrun.Options{Count: 2, Benchtime: "10x"}
	tests := []struct {
		name      string
		repo      bool // the example's base as the user's repository
		opts      plan
		wantSteps []string
		wantErr   string // the failing step's error, "step: ..."
		branch    bool   // the user's repository gets the port's branch
		scratch   bool   // the result names a scratch directory
	}{
		{name: "example", opts: plan{Bench: quick},
			wantSteps: []string{StepPort, StepFreeze, StepBench, StepPost}, scratch: true},
		{name: "repo", repo: true, opts: plan{Inputs: patch, Bench: quick},
			wantSteps: []string{StepPort, StepFreeze, StepBench, StepPost}, branch: true},
		{name: "dry run", repo: true, opts: plan{Inputs: patch, Bench: quick, clients: review.NewClients(nil, review.Options{DryRun: true})},
			wantSteps: []string{StepPort, StepFreeze, StepBench, StepPost}, scratch: true},
		{name: "bench fails", repo: true, opts: plan{Inputs: patch, Bench: benchrun.Options{Count: 1, Benchtime: "1x", Bench: "NoSuchBenchmark"}},
			wantSteps: []string{StepPort, StepFreeze}, wantErr: `bench: no benchmark matched {bench.bench} "NoSuchBenchmark"`, branch: true},
		{name: "patch does not apply", repo: true, opts: plan{Inputs: []port.Input{{Name: "bad.patch", Data: []byte(strings.Replace(string(example.Patch()), "case int16, *int16", "case int16, *int17", 1))}}},
			wantErr: "port: bad.patch: changeset 1"},
		{name: "patches need a repository", opts: plan{Inputs: patch},
			wantErr: "port: patches need a repository to port onto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Freeze = freezePlan{Sources: sources(t), At: time.Date(2014, 11, 6, 12, 0, 0, 0, time.UTC)}
			var dir, before string
			if tt.repo {
				dir = t.TempDir()
				if _, err := example.WriteBase(ctx, dir); err != nil {
					t.Fatal(err)
				}
				o.Repo = dir
				before = state(t, dir)
			}
			var steps []string
			o.Report = func(step string, res *Result) { steps = append(steps, step) }
			res, err := runPlan(ctx, o)
			if tt.wantErr != "" {
				var se *StepError
				if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Run: error %v, want a *StepError starting %q", err, tt.wantErr)
				}
				if res.Error == nil || res.Error.Step != se.Step {
					t.Errorf("the record's error is %+v, want step %s", res.Error, se.Step)
				}
			} else if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !slices.Equal(steps, tt.wantSteps) {
				t.Errorf("steps reported %q, want %q", steps, tt.wantSteps)
			}
			if res.Repo != dir {
				t.Errorf("the record's repository is %q, want the user's, %q", res.Repo, dir)
			}
			if tt.scratch != (res.Scratch != "") {
				t.Errorf("scratch directory %q, want one: %v", res.Scratch, tt.scratch)
			}
			if res.Scratch != "" {
				if _, err := os.Stat(res.Scratch); !os.IsNotExist(err) {
					t.Errorf("scratch directory %s not removed (%v)", res.Scratch, err)
				}
			}
			if dir != "" {
				after := state(t, dir)
				if tt.branch {
					after = strings.Replace(after, gittest.Git(t, dir, "for-each-ref", "refs/heads/port/")+"\n", "", 1)
				}
				if after != before {
					t.Errorf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			}
			if len(steps) == 4 {
				if res.Post == nil || !res.Post.Printed || !strings.Contains(res.Post.Message, "Freeze: The tree is frozen for Go 1.4") ||
					!strings.Contains(res.Post.Message, "WriteInts/impl=codec") {
					t.Errorf("the message to print is not the freeze and the table:\n%+v", res.Post)
				}
			}
		})
	}
}

// TestKeep checks that Keep keeps the example's repository, with the
// ported branch in it, and the raw results, which the message points to.
func TestKeep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchmarks")
	}
	res, err := runPlan(context.Background(), plan{Keep: true, Freeze: freezePlan{Sources: sources(t)}, Bench: benchrun.Options{Count: 1, Benchtime: "1x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.Scratch)
	if !res.Kept {
		t.Fatalf("Kept is false")
	}
	if got := gittest.Git(t, filepath.Join(res.Scratch, "repo"), "rev-parse", res.Port.Branch); got != res.Port.Head {
		t.Errorf("branch %s is at %s in the kept repository, want %s", res.Port.Branch, got, res.Port.Head)
	}
	for _, name := range []string{"old.txt", "new.txt"} {
		if _, err := os.Stat(filepath.Join(res.Scratch, "bench", name)); err != nil {
			t.Errorf("raw results not kept: %v", err)
		}
	}
	// Gerrit's escapes break the names' dots (internal/escape).
	if !strings.Contains(res.Post.Message, "\nRaw results: "+escape.Gerrit(filepath.Join(res.Scratch, "bench", "old.txt"))+" and ") {
		t.Errorf("the message does not say where the raw results are:\n%s", res.Post.Message)
	}
}

func TestChangeTriplet(t *testing.T) {
	for _, tt := range []struct{ project, branch, id, want string }{
		{"go", "master", "I0123", "go~master~I0123"},
		{"go", "", "I0123", "go~master~I0123"},
		{"team/tools", "refs/heads/release-branch.go1.4", "I0123", "team%2Ftools~release-branch.go1.4~I0123"},
	} {
		if got := ChangeTriplet(tt.project, tt.branch, tt.id); got != tt.want {
			t.Errorf("ChangeTriplet(%q, %q, %q) = %q, want %q", tt.project, tt.branch, tt.id, got, tt.want)
		}
	}
}

// TestCompose checks the message on saved results of the example: the
// story in words before the tables, in both formats.
func TestCompose(t *testing.T) {
	b, err := benchrun.CompareFiles("../step/benchrun/testdata/codec-old.txt", "../step/benchrun/testdata/codec-new.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := &freeze.Status{Branch: "master", Frozen: true, Release: "go1.4", FreezeStart: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC),
		Reopen: time.Date(2014, 12, 10, 0, 0, 0, 0, time.UTC), Source: "calendar"}
	res := &Result{
		Port:   &port.Result{Commits: []*port.Commit{{Subject: "codec: check for unsigned integers in fastSize"}}},
		Freeze: st,
		Bench:  b,
	}
	for _, tt := range []struct {
		format benchrun.Format
		want   []string
	}{
		{benchrun.Gerrit, []string{
			"patchbot run: codec: check for unsigned integers in fastSize\n\n" +
				"Freeze: The tree is frozen for Go 1.4 since 2014-09-01 (calendar); it is expected to reopen around 2014-12-10.\n\n" +
				"Significantly better:\n- WriteInts-2 (sec/op -33.66%, B/s 1.51x, B/op -42.86%, allocs/op -66.67%)\n\n" +
				"No significant change:\n- ReadInts-2\n- Uint64-2\n\n" +
				"Benchmarks: ",
			"\n  WriteInts-2   9.56 ± 2%     14.42 ± 2%    1.51x (p=0.000 n=10)\n",
		}},
		{benchrun.Markdown, []string{
			"Significantly better:\n- WriteInts-2 (",
			"| WriteInts-2 | 9.56 ± 2% | 14.42 ± 2% | 1.51x (p=0.000 n=10) |\n",
		}},
	} {
		got := Compose(res, tt.format)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Compose(%s) lacks %q:\n%s", tt.format, w, got)
			}
		}
	}
}

// TestFreezeDefaultSources checks that the freeze step, given no sources,
// answers from the built-in calendar, offline, as Freeze.Sources says.
func TestFreezeDefaultSources(t *testing.T) {
	r := &runner{opts: plan{Freeze: freezePlan{At: time.Date(2014, 11, 6, 12, 0, 0, 0, time.UTC)}}, res: &Result{}}
	if err := r.freeze(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := r.res.Freeze; st == nil || !st.Frozen || st.Release != "go1.4" || st.Branch != "master" {
		t.Errorf("freeze step with no sources on 2014-11-06: %+v, want master frozen for go1.4", st)
	}
}

// TestRunInterrupted cancels the built-in example at moments from its
// start (the scratch repository being written, the port, the builds, the
// benchmarks) and checks that the job says it was interrupted, in the step
// it was in, and leaves nothing in its temporary directory.
func TestRunInterrupted(t *testing.T) {
	for _, after := range []time.Duration{0, 5 * time.Millisecond, 30 * time.Millisecond, 200 * time.Millisecond, time.Second} {
		t.Run(after.String(), func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			ctx, cancel := context.WithCancelCause(context.Background())
			timer := time.AfterFunc(after, func() { cancel(errors.New("interrupt signal received")) })
			defer timer.Stop()
			// Runs of 200ms: the builds take under a second from the
			// cache, and the last moment must still find a run going.
			_, err := runPlan(ctx, plan{Freeze: freezePlan{Sources: sources(t)}, Bench: benchrun.Options{Count: 2, Benchtime: "200ms"}})
			if err == nil {
				t.Fatal("Run succeeded after an interrupt")
			}
			se, ok := errors.AsType[*StepError](err)
			if !ok || !strings.Contains(se.Err.Error(), "interrupted (interrupt signal received)") {
				t.Errorf("Run = %v, want a step interrupted", err)
			}
			left, _ := os.ReadDir(tmp)
			for _, e := range left {
				t.Errorf("left behind in TMPDIR: %s", e.Name())
			}
		})
	}
}
