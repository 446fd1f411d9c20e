package benchmark

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

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
	// A run checks --data against its benchmark's data set.
	if _, ok := LookupDataset("checkdata-pics"); !ok {
		RegisterDataset(&Dataset{Name: "checkdata-pics", DataWant: "the pictures folder"})
	}
	b := &Benchmark{Name: "pics-bench", Dataset: "checkdata-pics", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
	o := Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: file, Backend: "cpu"}
	if err := o.Validate(b); err == nil || !strings.Contains(err.Error(), "is a file; want the pictures folder") {
		t.Fatalf("run with --data a file: %v", err)
	}
}
