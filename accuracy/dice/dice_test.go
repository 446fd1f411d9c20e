package dice

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/mlperf-go/inference/datasets/kits19"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/preprocess"
)

type diceGolden struct {
	Line        string           `json:"line"`
	SummaryCSV  string           `json:"summary_csv"`
	FirstVoxels map[string][]int `json:"first_voxels"`
	Shapes      map[string][]int `json:"shapes"`
}

func loadDiceGolden(t *testing.T) (diceGolden, []string) {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g diceGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var names []string
	for c := range g.Shapes {
		names = append(names, c)
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatal("no cases")
	}
	return g, names
}

func loadLabels(t *testing.T, path string) ([]uint8, []int) {
	t.Helper()
	img, err := preprocess.LoadNifti(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := kits19.Labels(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	return l, img.Shape
}

// TestKiTS19LogGolden: the accuracy log scored against the ground-truth
// NIfTI files prints what accuracy_kits.py printed, and the summary is
// summary.csv to every digit.
func TestKiTS19LogGolden(t *testing.T) {
	g, names := loadDiceGolden(t)
	truth := func(c string) ([]uint8, error) {
		l, shape := loadLabels(t, filepath.Join("testdata/nifti", c, "segmentation.nii.gz"))
		if !slices.Equal(shape, g.Shapes[c]) {
			return nil, fmt.Errorf("%s: shape %v, nibabel %v", c, shape, g.Shapes[c])
		}
		return l, nil
	}
	r, err := ScoreKiTS19Log("testdata/mlperf_log_accuracy.json", accuracy.Uint8, names, truth)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != g.Line {
		t.Errorf("got  %s\nwant %s", got, g.Line)
	}
	if got := r.CSV(); got != g.SummaryCSV {
		t.Errorf("summary.csv:\ngot\n%s\nwant\n%s", got, g.SummaryCSV)
	}
}

// TestNiftiReaderMatchesNibabel: shapes and C-order voxels of uint8,
// int16 and scaled float32 files, and the reference's own prediction
// files scored against the truth give the same line.
func TestNiftiReaderMatchesNibabel(t *testing.T) {
	g, names := loadDiceGolden(t)
	var cases []Case
	for _, c := range names {
		gt, shape := loadLabels(t, filepath.Join("testdata/nifti", c, "segmentation.nii.gz"))
		if !slices.Equal(shape, g.Shapes[c]) {
			t.Fatalf("%s: shape %v, nibabel %v", c, shape, g.Shapes[c])
		}
		for i, v := range g.FirstVoxels[c] {
			if int(gt[i]) != v {
				t.Fatalf("%s: voxel %d = %d, nibabel %d", c, i, gt[i], v)
			}
		}
		pred, _ := loadLabels(t, filepath.Join("testdata/postprocessed", c, "prediction.nii.gz"))
		dc, err := NewCase(c, pred, gt)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, dc)
	}
	r, err := Summarize(cases)
	if err != nil {
		t.Fatal(err)
	}
	if r.String() != g.Line {
		t.Fatalf("got %s, want %s", r, g.Line)
	}
}

func TestDiceEdgeCases(t *testing.T) {
	for name, c := range map[string]struct {
		pred, gt      []uint8
		kidney, tumor float64
	}{
		"both empty":          {[]uint8{0, 0}, []uint8{0, 0}, 1, 1},
		"perfect":             {[]uint8{1, 2, 0}, []uint8{1, 2, 0}, 1, 1},
		"tumor only in truth": {[]uint8{1, 1}, []uint8{1, 2}, (2 + 1e-6) / (1 + 2 + 1e-6), 1e-6 / (1 + 1e-6)},
		"no voxels":           {nil, nil, 1, 1},
	} {
		k, tu, err := Dice(c.pred, c.gt)
		if err != nil || k != c.kidney || tu != c.tumor {
			t.Errorf("%s: %v %v %v, want %v %v", name, k, tu, err, c.kidney, c.tumor)
		}
	}
	if _, _, err := Dice([]uint8{3}, []uint8{0}); err == nil || !strings.Contains(err.Error(), "prediction voxel 0 has label 3") {
		t.Errorf("label 3: %v", err)
	}
	if _, _, err := Dice([]uint8{0}, []uint8{0, 1}); err == nil || !strings.Contains(err.Error(), "prediction of 1 voxels, ground truth of 2") {
		t.Errorf("lengths: %v", err)
	}
}

func TestKiTS19LogBadInput(t *testing.T) {
	truth := func(string) ([]uint8, error) { return []uint8{0, 1, 2, 1}, nil }
	entry := func(seq, idx int, data []byte) string {
		return fmt.Sprintf(`{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }`, seq, idx, strings.ToUpper(hex.EncodeToString(data)))
	}
	good := []byte{0, 1, 2, 1}
	for name, c := range map[string]struct {
		entries []string
		want    string
	}{
		"duplicate":   {[]string{entry(0, 0, good), entry(1, 0, good), entry(2, 1, good)}, "a second entry for qsl_idx 0"},
		"missing":     {[]string{entry(0, 1, good)}, "no entry for case a"},
		"out of set":  {[]string{entry(0, 2, good)}, "qsl_idx 2 is outside the 2 cases"},
		"wrong size":  {[]string{entry(5, 0, good[:3]), entry(1, 1, good)}, "seq_id 5 (a): 3 bytes are not the 4 voxels"},
		"bad label":   {[]string{entry(0, 0, []byte{0, 9, 0, 0}), entry(1, 1, good)}, "label 9"},
		"bad entry 1": {[]string{`{ "seq_id" : 0, "qsl_idx" : 0, "data" : "0G" }`}, "not hex"},
	} {
		p := writeLog(t, "[\n"+strings.Join(c.entries, ",\n")+"\n]\n")
		_, err := ScoreKiTS19Log(p, accuracy.Uint8, []string{"a", "b"}, truth)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "accuracy: ") {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	// int64 predictions (an --output_dtype) decode to the same labels.
	var b []byte
	for _, v := range good {
		b = append(b, v, 0, 0, 0, 0, 0, 0, 0)
	}
	p := writeLog(t, "[\n"+entry(0, 0, b)+",\n"+entry(1, 1, b)+"\n]\n")
	r, err := ScoreKiTS19Log(p, accuracy.Int64, []string{"a", "b"}, truth)
	if err != nil || r.Mean.Composite != 1 {
		t.Errorf("int64: %v %v", r, err)
	}
}

// writeLog writes s as an mlperf_log_accuracy.json in a test folder and
// returns its path.
func writeLog(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
