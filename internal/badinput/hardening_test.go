package badinput

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/report"
)

// hardeningCases are the cases added after the first table: progressive
// JPEG headers, paths of the wrong kind, and the commands that serve and
// reach remote models.
func hardeningCases() []badCase {
	return []badCase{
		{name: "jpeg: progressive header declares 30000x30000 in a few bytes", want: "first progressive scan", run: func(t *testing.T) error {
			// SOI; SOF2 of 30000×30000, one component; SOS of its first DC
			// scan; a few bytes of data; EOI.
			b := []byte{0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x75, 0x30, 0x75, 0x30, 0x01, 0x01, 0x11, 0x00,
				0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0xFF, 0xD9}
			_, err := preprocess.Decode(b, preprocess.RGB)
			return err
		}},
		{name: "report: a file instead of a folder", want: "is a file, not a folder; give a run folder", run: func(t *testing.T) error {
			return report.Write(io.Discard, write(t, "notes.txt", []byte("x")))
		}},
		{name: "report: the summary log instead of its folder", want: "give the run folder that holds it", run: func(t *testing.T) error {
			return report.Write(io.Discard, write(t, "mlperf_log_summary.txt", []byte("x")))
		}},
		{name: "report: a path that does not exist", want: "does not exist", run: func(t *testing.T) error {
			return report.Write(io.Discard, filepath.Join(t.TempDir(), "results"))
		}},
		{name: "report: an empty folder", want: "no mlperf_log_detail.txt", run: func(t *testing.T) error {
			return report.Write(io.Discard, t.TempDir())
		}},
		{name: "dataset: --data a file where the data set is a folder", want: "is a file; want the ImageNet folder", run: func(t *testing.T) error {
			d := &benchmark.Dataset{Name: "imagenet", DataWant: "the ImageNet folder"}
			return d.CheckData(write(t, "val_map.txt", []byte("a.JPEG 1\n")))
		}},
		{name: "dataset: --data that does not exist", want: "does not exist; want", run: func(t *testing.T) error {
			d := &benchmark.Dataset{Name: "squad", DataFile: true}
			return d.CheckData(filepath.Join(t.TempDir(), "dev-v1.1.json"))
		}},
		{name: "run options: --data a file where the benchmark reads a folder", want: "is a file; want", run: func(t *testing.T) error {
			if _, ok := benchmark.LookupDataset("badinput-folder"); !ok {
				benchmark.RegisterDataset(&benchmark.Dataset{Name: "badinput-folder"})
			}
			b := &benchmark.Benchmark{Name: "echo", Dataset: "badinput-folder", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
			o := benchmark.Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: write(t, "data.txt", nil), Backend: "cpu"}
			return o.Validate(b)
		}},
	}
}
