package spec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// nopDriver neither opens nor scores.
type nopDriver struct{}

func (nopDriver) Open(context.Context, *OpenRequest) (*Instance, error) { return nil, nil }
func (nopDriver) Score(context.Context, *ScoreRequest) (*Score, error)  { return nil, nil }

func TestRegistryLookup(t *testing.T) {
	b := &Benchmark{Name: "echo", ConfNames: []string{"resnet50", "echo-alias"}, Scenarios: []loadgen.Scenario{loadgen.Offline}, Driver: nopDriver{}}
	Register(b)
	defer func() { mu.Lock(); delete(benchmarks, b.Name); mu.Unlock() }()
	for _, n := range []string{"echo", "ECHO", "echo-alias"} {
		if got, ok := Lookup(n); !ok || got != b {
			t.Errorf("Lookup(%q) = %v, %v", n, got, ok)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	if err := Unknown("nope"); !strings.Contains(err.Error(), "echo") {
		t.Errorf("Unknown does not list the registered names: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a second benchmark under a taken conf name did not panic")
		}
	}()
	dup := *b
	dup.Name = "other"
	Register(&dup)
}

// A descriptor without a Driver is a programming error caught at
// registration.
func TestRegisterWithoutDriverPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "without a Driver") {
			t.Errorf("recover() = %v, want a panic about the Driver", r)
		}
	}()
	Register(&Benchmark{Name: "nodriver", ConfNames: []string{"nodriver"}, Scenarios: []loadgen.Scenario{loadgen.Offline}})
}

// Batches.For: the listed scenario's CPU value, its GPU value on any
// other local backend, and 1 for a scenario not listed.
func TestBatchesFor(t *testing.T) {
	b := Batches{loadgen.Offline: {CPU: 8, GPU: 32}, loadgen.MultiStream: {CPU: 8}}
	for _, c := range []struct {
		sc      loadgen.Scenario
		backend string
		want    int
	}{
		{loadgen.Offline, "cpu", 8}, {loadgen.Offline, "cuda", 32}, {loadgen.Offline, "tensorrt", 32},
		{loadgen.MultiStream, "cuda", 8}, {loadgen.Server, "cpu", 1}, {loadgen.SingleStream, "cuda", 1},
	} {
		if got := b.For(c.sc, c.backend); got != c.want {
			t.Errorf("For(%s, %s) = %d, want %d", c.sc, c.backend, got, c.want)
		}
	}
	if got := Batches(nil).For(loadgen.Offline, "cuda"); got != 1 {
		t.Errorf("no batches: %d, want 1", got)
	}
}

// --data of the wrong kind is refused with a message that names the path,
// what the data set wants and where to get it; paths of the right kind pass.
func TestCheckDataNamesThePathAndTheWant(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dev.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	missing := filepath.Join(dir, "missing")
	folder := &Dataset{Name: "pics", DataWant: "the pictures folder", Download: "get_pics.sh", Synth: func(*DatasetRequest) error { return nil }}
	oneFile := &Dataset{Name: "qa", DataFile: true, DataWant: "the qa.json file or its folder"}
	for _, c := range []struct {
		d    *Dataset
		path string
		want string // "" means accepted
	}{
		{folder, dir, ""},
		{folder, "synthetic", ""},
		{folder, file, "pics: --data " + file + " is a file; want the pictures folder"},
		{folder, missing, "pics: --data " + missing + " does not exist; want the pictures folder; download it with get_pics.sh, or make a small one with `mlperf dataset synth pics -o DIR`"},
		{oneFile, file, ""},
		{oneFile, dir, ""},
		{oneFile, missing, "qa: --data " + missing + " does not exist; want the qa.json file or its folder"},
	} {
		err := c.d.CheckData(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v", c.d.Name, c.path, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s %s: %v, want %q", c.d.Name, c.path, err, c.want)
		}
	}
}
