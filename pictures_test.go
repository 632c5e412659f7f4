package patchbot_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/benchrun"
)

var updatePictures = flag.Bool("update-pictures", false, "rewrite the pictures' sources in docs/pictures from what the code renders now (then run scripts/pictures)")

// TestPictures holds the docs' pictures to the code. Each picture's source
// is what the code renders now from a recorded run: pr-comment.md is the
// pull request comment serve posts for "/patchbot bench" (job.Compose in
// Markdown) on the built-in example's result, run.json, as
// 'patchbot run -json' printed it. And each picture was made from its
// source as it is (docs/pictures/pictures.sum, written by scripts/pictures):
// a change to what patchbot posts fails here until the source and the
// picture are made again.
func TestPictures(t *testing.T) {
	dir := "docs/pictures"
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A review's bench job: the freeze and the bench of the run, no
	// port, and the command it answers first.
	var res job.Result
	var run struct {
		Freeze json.RawMessage `json:"freeze"`
		Bench  json.RawMessage `json:"bench"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	if json.Unmarshal(run.Freeze, &res.Freeze) != nil || json.Unmarshal(run.Bench, &res.Bench) != nil || res.Bench == nil || res.Freeze == nil {
		t.Fatal("run.json has no bench or freeze result: record it again with 'patchbot run -json > docs/pictures/run.json'")
	}
	res.Asked = &job.Asked{Command: "/patchbot bench", Who: "alice"}
	sources := map[string]string{"pr-comment.md": job.Compose(&res, benchrun.Markdown)}

	for name, want := range sources {
		path := filepath.Join(dir, name)
		if *updatePictures {
			if err := os.WriteFile(path, []byte(want), 0o666); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is not what the code renders now from run.json: go test -run TestPictures -update-pictures . && scripts/pictures", path)
		}
	}

	sums, err := os.ReadFile(filepath.Join(dir, "pictures.sum"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("pictures.sum: %q: want SHA256 SOURCE PICTURE", sc.Text())
		}
		src, err := os.ReadFile(filepath.Join(dir, f[1]))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(src)
		if hex.EncodeToString(sum[:]) != f[0] {
			t.Errorf("%s was made from another %s than today's: scripts/pictures makes it again", f[2], f[1])
		}
		if _, err := os.Stat(filepath.Join(dir, f[2])); err != nil {
			t.Error(err)
		}
		seen[f[1]] = true
	}
	for name := range sources {
		if !seen[name] {
			t.Errorf("pictures.sum has no picture of %s: scripts/pictures makes it", name)
		}
	}
}
