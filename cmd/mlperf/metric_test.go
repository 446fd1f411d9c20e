package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/preprocess"
)

// accTestdata is the accuracy packages' folder: each metric's fixtures lie in
// accuracy/<metric>/testdata.
const accTestdata = "../../accuracy"

// runMetric runs `mlperf accuracy --metric ...` with --out and returns the
// exit code, accuracy.txt and stderr.
func runMetric(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "accuracy.txt")
	var so, se bytes.Buffer
	code := runMain(append(append([]string{"accuracy"}, args...), "--out", out), &so, &se)
	b, _ := os.ReadFile(out)
	return code, string(b), se.String()
}

func goldenField(t *testing.T, path, field string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	s, ok := m[field].(string)
	if !ok {
		t.Fatalf("%s: no %s", path, field)
	}
	return s
}

func TestMetricAUC(t *testing.T) {
	want := goldenField(t, filepath.Join(accTestdata, "auc/testdata/golden.json"), "dlrm_log_line")
	log := filepath.Join(accTestdata, "auc/testdata/dlrm_log.json")
	code, txt, se := runMetric(t, "--metric", "auc", "--log", log)
	if code != 0 || txt != want+"\n" {
		t.Fatalf("exit %d, accuracy.txt %q, want %q; stderr %s", code, txt, want, se)
	}
	// 61.322% is far below dlrm-v2-99's 79.5069: exit 1, file still written.
	code, txt, se = runMetric(t, "--metric=auc", "--log", log, "--benchmark", "dlrm-v2-99")
	if code != 1 || txt != want+"\n" || !strings.Contains(se, "accuracy target of dlrm-v2-99 not met") {
		t.Fatalf("exit %d, %q, stderr %q", code, txt, se)
	}
	code, txt, _ = runMetric(t, "--metric", "auc", "--pairs", filepath.Join(accTestdata, "auc/testdata/ties_2dp.npy"))
	if code != 0 || !strings.HasPrefix(txt, "AUC=83.174%, ") {
		t.Fatalf("pairs: exit %d, %q", code, txt)
	}
	code, _, se = runMetric(t, "--metric", "auc", "--log", log, "--samples", "4")
	if code != 1 || !strings.Contains(se, "qsl_idx 5 is outside the data set of 4 samples") {
		t.Fatalf("qsl_idx out of range: exit %d, %q", code, se)
	}
	if code, _, _ = runMetric(t, "--metric", "auc"); code != 2 {
		t.Fatalf("no input: exit %d, want 2", code)
	}
}

func TestMetricDice(t *testing.T) {
	d := filepath.Join(accTestdata, "dice", "testdata")
	want := goldenField(t, filepath.Join(d, "golden.json"), "line")
	for name, args := range map[string][]string{
		"folders": {"--gt", d, "--pred", filepath.Join(d, "postprocessed")},
		"log":     {"--gt", d, "--log", filepath.Join(d, "mlperf_log_accuracy.json"), "--benchmark", "3d-unet-99"},
	} {
		code, txt, se := runMetric(t, append([]string{"--metric", "dice"}, args...)...)
		wantCode := 0
		if name == "log" {
			wantCode = 1 // 0.63381 < 0.853083
		}
		if code != wantCode || txt != want+"\n" {
			t.Errorf("%s: exit %d, %q, want %q; stderr %s", name, code, txt, want, se)
		}
	}
	code, _, se := runMetric(t, "--metric", "dice", "--gt", t.TempDir(), "--pred", d)
	if code != 1 || !strings.Contains(se, "no cases") {
		t.Errorf("empty gt: exit %d, %q", code, se)
	}
}

func TestMetricFIDAndCLIP(t *testing.T) {
	f := filepath.Join(accTestdata, "fid", "testdata")
	code, txt, se := runMetric(t, "--metric", "fid", "--features-a", filepath.Join(f, "rand8_a.npy"), "--features-b", filepath.Join(f, "rand8_b.npy"))
	v, ok := accuracy.ParseAccuracyText("FID_SCORE", txt)
	got, _ := strconv.ParseFloat(v, 64)
	if code != 0 || !ok || math.Abs(got-0.9631364753876532) > 1e-12 {
		t.Fatalf("fid: exit %d, %q (%s)", code, txt, se)
	}
	c := filepath.Join(accTestdata, "clip", "testdata")
	clipWant := goldenField(t, filepath.Join(c, "golden.json"), "clip_score")
	code, txt, se = runMetric(t, "--metric", "clip", "--image-features", filepath.Join(c, "image_features.npy"), "--text-features", filepath.Join(c, "text_features.npy"))
	v, ok = accuracy.ParseAccuracyText("CLIP_SCORE", txt)
	got, _ = strconv.ParseFloat(v, 64)
	want, _ := strconv.ParseFloat(clipWant, 64)
	if code != 0 || !ok || math.Abs(got-want) > 1e-5 {
		t.Fatalf("clip: exit %d, %q, want %s (%s)", code, txt, clipWant, se)
	}
	// Both: the SDXL line, judged against the SDXL window (it fails).
	code, txt, _ = runMetric(t, "--metric", "fid", "--features-a", filepath.Join(f, "rand8_a.npy"), "--features-b", filepath.Join(f, "rand8_b.npy"),
		"--image-features", filepath.Join(c, "image_features.npy"), "--text-features", filepath.Join(c, "text_features.npy"), "--benchmark", "sdxl")
	if code != 1 || !strings.HasPrefix(txt, "Accuracy Results: {'FID_SCORE': '0.96313647538765") {
		t.Fatalf("sdxl: exit %d, %q", code, txt)
	}
	// NaN features: an error naming the file.
	bad := filepath.Join(t.TempDir(), "bad.npy")
	if err := preprocess.SaveNpy(bad, []int{3, 2}, []float32{1, 2, 3, float32(math.NaN()), 5, 6}); err != nil {
		t.Fatal(err)
	}
	code, _, se = runMetric(t, "--metric", "fid", "--features-a", bad, "--features-b", filepath.Join(f, "rand8_b.npy"))
	if code != 1 || !strings.Contains(se, "feature 1 of row 1 is NaN") || !strings.Contains(se, "bad.npy") {
		t.Fatalf("NaN: exit %d, %q", code, se)
	}
	code, _, se = runMetric(t, "--metric", "fid", "--features-a", filepath.Join(f, "rand8_a.npy"), "--features-b", filepath.Join(f, "rand32_b.npy"))
	if code != 1 || !strings.Contains(se, "mean vectors of 8 and 32 values") {
		t.Fatalf("dims: exit %d, %q", code, se)
	}
	code, _, se = runMetric(t, "--metric", "clip", "--image-features", filepath.Join(c, "image_features.npy"), "--text-features", bad)
	if code != 1 || !strings.Contains(se, "want the same (N, D)") {
		t.Fatalf("clip shapes: exit %d, %q", code, se)
	}
}

func TestMetricTop1SquadRouge(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.json")
	os.WriteFile(log, []byte("[\n"+
		`{ "seq_id" : 0, "qsl_idx" : 2, "data" : "00008242" }`+",\n"+
		`{ "seq_id" : 1, "qsl_idx" : 0, "data" : "00000000" }`+",\n"+
		`{ "seq_id" : 2, "qsl_idx" : 1, "data" : "0000803F" }`+"\n]\n"), 0o644)
	vm := filepath.Join(dir, "val_map.txt")
	os.WriteFile(vm, []byte("a.JPEG 0\nb.JPEG 5\nc.JPEG 65\n"), 0o644)
	code, txt, se := runMetric(t, "--metric", "top1", "--log", log, "--labels", vm, "--benchmark", "resnet50")
	if code != 1 || txt != "accuracy=66.667%, good=2, total=3\n" {
		t.Fatalf("top1: exit %d, %q, %s", code, txt, se)
	}
	os.WriteFile(vm, []byte("a.JPEG 0\nb.JPEG x\n"), 0o644)
	if code, _, se = runMetric(t, "--metric", "top1", "--log", log, "--labels", vm); code != 1 || !strings.Contains(se, "val_map.txt:2: label \"x\"") {
		t.Fatalf("bad val_map: exit %d, %q", code, se)
	}

	data := filepath.Join(dir, "dev.json")
	os.WriteFile(data, []byte(`{"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": "The cat sat.", "qas": [
		{"id": "q1", "question": "who?", "answers": [{"text": "The cat", "answer_start": 0}]},
		{"id": "q2", "question": "did?", "answers": [{"text": "sat", "answer_start": 8}]}]}]}]}`), 0o644)
	preds := filepath.Join(dir, "preds.json")
	os.WriteFile(preds, []byte(`{"q1": "cat", "q2": "the sat"}`), 0o644)
	code, txt, se = runMetric(t, "--metric", "squad", "--predictions", preds, "--data", data)
	if code != 0 || txt != "{\"exact_match\": 100.0, \"f1\": 100.0}\n" {
		t.Fatalf("squad: exit %d, %q, %s", code, txt, se)
	}

	p, r := filepath.Join(dir, "p.json"), filepath.Join(dir, "r.txt")
	os.WriteFile(p, []byte(`["the cat sat on the mat", "hello world"]`), 0o644)
	os.WriteFile(r, []byte("the cat sat on a mat\nhello world\n"), 0o644)
	code, txt, se = runMetric(t, "--metric", "rouge", "--predictions", p, "--references", r)
	if code != 0 || !strings.HasPrefix(txt, "{'rouge1': '") || !strings.Contains(txt, "'gen_num': 2}") {
		t.Fatalf("rouge: exit %d, %q, %s", code, txt, se)
	}
	tok := filepath.Join(dir, "tok.json")
	os.WriteFile(tok, []byte(`[290, 300]`), 0o644)
	code, txt, _ = runMetric(t, "--metric", "rouge", "--predictions", p, "--references", r, "--tokens", tok)
	if code != 0 || !strings.Contains(txt, "'tokens_per_sample': 295.0}") {
		t.Fatalf("rouge llama2: exit %d, %q", code, txt)
	}
	os.WriteFile(r, []byte("one\n"), 0o644)
	if code, _, se = runMetric(t, "--metric", "rouge", "--predictions", p, "--references", r); code != 1 || !strings.Contains(se, "2 predictions for 1 targets") {
		t.Fatalf("rouge lengths: exit %d, %q", code, se)
	}
}

func TestMetricHashLine(t *testing.T) {
	log := filepath.Join(accTestdata, "auc/testdata/dlrm_log.json")
	h, err := accuracy.LogHash(log)
	if err != nil {
		t.Fatal(err)
	}
	code, txt, se := runMetric(t, "--metric", "auc", "--log", log, "--hash", log)
	if code != 0 || !strings.HasSuffix(txt, "\n\nhash="+h+"\n") {
		t.Fatalf("exit %d, %q, %s", code, txt, se)
	}
}
