package patchbot

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// layers are patchbot's layers from the top: a package may import one of
// its own layer or of a layer below, never above. Packages outside them
// (config, codec, internal/...) are shared: they sit below the step
// libraries, which use them, and import none of the layers. The programs
// in internal/cmd (the tests' and the measurements' tools) are commands,
// of the top layer.
var layers = []string{"cmd/", "bot/", "job", "step/"}

// layerOf returns the index of p's layer in layers, or len(layers) for a
// shared package.
func layerOf(p string) int {
	if strings.HasPrefix(p, "internal/cmd/") {
		return 0
	}
	for i, l := range layers {
		if p == strings.TrimSuffix(l, "/") || strings.HasPrefix(p, strings.TrimSuffix(l, "/")+"/") {
			return i
		}
	}
	return len(layers)
}

// TestLayers checks that data flows one way, cmd → bot → job → step, in
// every package's imports, its tests' included.
func TestLayers(t *testing.T) {
	const module = "github.com/patchbot/patchbot"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for dec.More() {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		from, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue // the root: it imports nothing of the module
		}
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			to, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			lf, lt := layerOf(from), layerOf(to)
			if lt < lf {
				t.Errorf("%s imports %s: a layer above its own", from, to)
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list listed %d packages; want the module's", n)
	}
}
