package coco

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"github.com/mlperf-go/inference/datasets/cocojson"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
)

// The goldens come from the real pycocotools: testdata/make_golden.py.

type cocoGoldenEval struct {
	Stats           []string `json:"stats"`
	Summary         string   `json:"summary"`
	PrecisionSHA256 string   `json:"precision_sha256"`
	RecallSHA256    string   `json:"recall_sha256"`
	PrecisionShape  []int    `json:"precision_shape"`
	// OpenImages only.
	MAPLine          string `json:"map_line"`
	Detections       int    `json:"detections"`
	DetectionsSHA256 string `json:"detections_sha256"`
	Images           int    `json:"images"`
	NoResults        int    `json:"no_results"`
	Dupes            int    `json:"dupes"`
}

type cocoGolden struct {
	Numpy    string            `json:"numpy"`
	IoUThrs  []string          `json:"iou_thrs"`
	RecThrs  []string          `json:"rec_thrs"`
	NumpySum map[string]string `json:"numpy_sum"`
	IoU      struct {
		DT     [][4]float64 `json:"dt"`
		GT     [][4]float64 `json:"gt"`
		Crowd  []int        `json:"crowd"`
		SHA256 string       `json:"sha256"`
	} `json:"iou"`
	Cases      map[string]cocoGoldenEval `json:"cases"`
	OpenImages map[string]cocoGoldenEval `json:"openimages"`
}

type cocoCase struct {
	GT     json.RawMessage `json:"gt"`
	Dets   []cocoJSONDet   `json:"dets"`
	ImgIDs []int64         `json:"img_ids"`
}

type cocoJSONDet struct {
	ImageID    int64      `json:"image_id"`
	CategoryID int64      `json:"category_id"`
	BBox       [4]float64 `json:"bbox"`
	Score      float64    `json:"score"`
}

const cocoTestdata = "testdata"

func readCOCOGolden(t testing.TB) *cocoGolden {
	t.Helper()
	var g cocoGolden
	readJSON(t, filepath.Join(cocoTestdata, "golden.json"), &g)
	return &g
}

func readCOCOCases(t testing.TB) map[string]cocoCase {
	t.Helper()
	var c map[string]cocoCase
	readJSON(t, filepath.Join(cocoTestdata, "cases.json"), &c)
	return c
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func parseFloats(t testing.TB, s []string) []float64 {
	t.Helper()
	out := make([]float64, len(s))
	for i, v := range s {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = f
	}
	return out
}

func sha256Floats(v []float64) string {
	b := make([]byte, 8*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (c cocoCase) load(t testing.TB) (*cocojson.GroundTruth, []Detection) {
	t.Helper()
	gt, err := cocojson.DecodeGroundTruth(bytes.NewReader(c.GT), "case")
	if err != nil {
		t.Fatal(err)
	}
	dets := make([]Detection, len(c.Dets))
	for i, d := range c.Dets {
		dets[i] = Detection{ImageID: d.ImageID, CategoryID: d.CategoryID, BBox: d.BBox, Score: d.Score}
	}
	return gt, dets
}

// checkCOCOEval compares every stat bit for bit, the printed summary and
// the whole precision and recall arrays (by hash).
func checkCOCOEval(t *testing.T, ev *Eval, want cocoGoldenEval) {
	t.Helper()
	stats := parseFloats(t, want.Stats)
	for i, w := range stats {
		if got := ev.Stats[i]; got != w {
			t.Errorf("stats[%d] = %v, pycocotools %v (diff %g)", i, got, w, got-w)
		}
	}
	if got := ev.Summary(); got != want.Summary {
		t.Errorf("summary:\n%s\npycocotools:\n%s", got, want.Summary)
	}
	if shape := []int{cocoT, cocoR, len(ev.CategoryIDs), cocoA, cocoM}; !slices.Equal(shape, want.PrecisionShape) {
		t.Errorf("precision shape %v, pycocotools %v", shape, want.PrecisionShape)
	}
	if got := sha256Floats(ev.Precision); got != want.PrecisionSHA256 {
		t.Errorf("precision array differs from pycocotools' (sha256 %s, want %s)", got, want.PrecisionSHA256)
	}
	if got := sha256Floats(ev.Recall); got != want.RecallSHA256 {
		t.Errorf("recall array differs from pycocotools' (sha256 %s, want %s)", got, want.RecallSHA256)
	}
}

func TestCOCOParamsGolden(t *testing.T) {
	g := readCOCOGolden(t)
	if got, want := IoUThresholds(), parseFloats(t, g.IoUThrs); !slices.Equal(got, want) {
		t.Errorf("IoU thresholds %v, numpy %v", got, want)
	}
	if got, want := RecallThresholds(), parseFloats(t, g.RecThrs); !slices.Equal(got, want) {
		t.Errorf("recall thresholds %v, numpy %v", got, want)
	}
}

func TestNumpySumGolden(t *testing.T) {
	g := readCOCOGolden(t)
	scale := []float64{0.01, 0.1, 1, 10, 100}
	for ns, ws := range g.NumpySum {
		n, _ := strconv.Atoi(ns)
		want, _ := strconv.ParseFloat(ws, 64)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(int64(i)*7919%1000003) / 1000003.0 * scale[i%5]
		}
		if got := numpySum(x); got != want {
			t.Errorf("n=%d: sum %v, numpy %v", n, got, want)
		}
	}
}

// TestBBoxIoUGolden compares a matrix of IoUs (gt-major, as maskUtils.iou
// returns it: D×G) bit for bit with pycocotools' C bbIou.
func TestBBoxIoUGolden(t *testing.T) {
	g := readCOCOGolden(t)
	c := g.IoU
	if len(c.DT) == 0 || len(c.GT) != len(c.Crowd) {
		t.Fatal("no IoU golden")
	}
	var m []float64
	for i := range c.DT {
		for j := range c.GT {
			m = append(m, bboxIoU(&c.DT[i], &c.GT[j], c.Crowd[j] != 0))
		}
	}
	if got := sha256Floats(m); got != c.SHA256 {
		t.Errorf("IoU matrix differs from maskUtils.iou (sha256 %s, want %s)", got, c.SHA256)
	}
}

func TestCOCOEvalGolden(t *testing.T) {
	g := readCOCOGolden(t)
	cases := readCOCOCases(t)
	if len(cases) != len(g.Cases) || len(cases) == 0 {
		t.Fatalf("%d cases, %d goldens", len(cases), len(g.Cases))
	}
	for name, c := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(name+"/workers="+strconv.Itoa(workers), func(t *testing.T) {
				gt, dets := c.load(t)
				ev, err := Evaluate(gt, dets, EvalConfig{ImageIDs: c.ImgIDs, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				checkCOCOEval(t, ev, g.Cases[name])
			})
		}
	}
}

// TestCOCODetectionOrderMatters checks that tie-breaking follows input
// order: reversing the detections of the hard case (full of equal scores)
// changes the result, so the golden comparison above is a real test of
// pycocotools' stable order.
func TestCOCODetectionOrderMatters(t *testing.T) {
	g := readCOCOGolden(t)
	gt, dets := readCOCOCases(t)["hard"].load(t)
	slices.Reverse(dets)
	ev, err := Evaluate(gt, dets, EvalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if sha256Floats(ev.Precision) == g.Cases["hard"].PrecisionSHA256 {
		t.Error("reversed detections give the same precision array: ties are not exercised")
	}
}

func TestScoreOpenImagesGolden(t *testing.T) {
	g := readCOCOGolden(t)
	dir := filepath.Join(cocoTestdata, "openimages")
	gt, err := cocojson.ReadGroundTruth(filepath.Join(dir, "annotations.json"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "mlperf_log_accuracy.json")
	shas := map[string]bool{}
	for _, mode := range []string{"numpy1", "numpy2"} {
		t.Run(mode, func(t *testing.T) {
			want := g.OpenImages[mode]
			cfg := OpenImagesConfig{NumPy1: mode == "numpy1"}
			r, err := ScoreOpenImages(logPath, gt, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkCOCOEval(t, r.Eval, want)
			if got := r.String(); got != want.MAPLine {
				t.Errorf("%q, accuracy-openimages.py %q", got, want.MAPLine)
			}
			if r.Detections != want.Detections || r.Images != want.Images || r.NoResults != want.NoResults || r.Dupes != want.Dupes {
				t.Errorf("detections %d images %d no-results %d dupes %d, want %d %d %d %d",
					r.Detections, r.Images, r.NoResults, r.Dupes, want.Detections, want.Images, want.NoResults, want.Dupes)
			}
			if r.Mismatches == 0 {
				t.Error("the fixture has a record whose index field is not its qsl_idx; none counted")
			}
			// The decoded boxes themselves, bit for bit.
			dec := NewRetinaNetDecoder(gt, cfg)
			var dets []Detection
			if _, err := accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
				dets, _, err = dec.Append(dets, e.QSLIdx, e.Data)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			flat := make([]float64, 0, 7*len(dets))
			for _, d := range dets {
				flat = append(flat, float64(d.ImageID), float64(d.CategoryID), d.BBox[0], d.BBox[1], d.BBox[2], d.BBox[3], d.Score)
			}
			sha := sha256Floats(flat)
			if sha != want.DetectionsSHA256 {
				t.Errorf("decoded detections differ from the script's (sha256 %s, want %s)", sha, want.DetectionsSHA256)
			}
			shas[sha] = true
		})
	}
	if len(shas) != 2 {
		t.Error("numpy 1 and numpy 2 box arithmetic decode to the same boxes: the fixture does not tell them apart")
	}
}
