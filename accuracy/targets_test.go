package accuracy

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/pynum"
)

// TestTargetsMatchSpec: the products as the checker's Python computes them
// agree with the spec's printed values (vision_dlrm.md §1.3,
// language_sdxl.md §1.3) to their printed digits.
func TestTargetsMatchSpec(t *testing.T) {
	spec := map[string][]string{ // metric=min[/max], as printed in the spec
		"resnet":              {"acc=75.6954"},
		"retinanet":           {"mAP=37.1745"},
		"bert-99":             {"F1=89.96526"},
		"bert-99.9":           {"F1=90.783126"},
		"dlrm-v2-99":          {"AUC=79.5069"},
		"dlrm-v2-99.9":        {"AUC=80.22969"},
		"3d-unet-99":          {"DICE=0.853083"},
		"3d-unet-99.9":        {"DICE=0.8608383"},
		"gptj-99":             {"ROUGE1=42.556635", "ROUGE2=19.922265", "ROUGEL=29.688219", "GEN_LEN=3615190.2"},
		"gptj-99.9":           {"ROUGE1=42.9435135", "ROUGE2=20.1033765", "ROUGEL=29.9581119", "GEN_LEN=3615190.2"},
		"llama2-70b-99":       {"ROUGE1=43.986888", "ROUGE2=21.814848", "ROUGEL=28.330038", "TOKENS_PER_SAMPLE=265.005/323.895"},
		"llama2-70b-99.9":     {"ROUGE1=44.3867688", "ROUGE2=22.0131648", "ROUGEL=28.5875838", "TOKENS_PER_SAMPLE=265.005/323.895"},
		"stable-diffusion-xl": {"CLIP_SCORE=31.68631873/31.81331801", "FID_SCORE=23.01085758/23.95007626"},
	}
	if len(spec) != len(Targets) {
		t.Fatalf("%d benchmarks in Targets, %d in the spec", len(Targets), len(spec))
	}
	for bench, want := range spec {
		b := Targets[bench]
		if len(b) != len(want) {
			t.Fatalf("%s: %d bounds, spec %d", bench, len(b), len(want))
		}
		for i, w := range want {
			metric, vals, _ := strings.Cut(w, "=")
			lo, hi, hasHi := strings.Cut(vals, "/")
			if b[i].Metric != metric || b[i].HasMax != hasHi {
				t.Errorf("%s: bound %d is %+v, spec %s", bench, i, b[i], w)
			}
			// The spec prints the products rounded to their digits.
			digits := func(s string) int { _, f, _ := strings.Cut(s, "."); return len(f) }
			round := func(x float64, d int) string { return strings.TrimRight(strings.TrimRight(formatF(x, d), "0"), ".") }
			if got := round(b[i].Min, digits(lo)); got != strings.TrimRight(strings.TrimRight(lo, "0"), ".") {
				t.Errorf("%s %s: min %v, spec %s", bench, metric, b[i].Min, lo)
			}
			if hasHi {
				if got := round(b[i].Max, digits(hi)); got != strings.TrimRight(strings.TrimRight(hi, "0"), ".") {
					t.Errorf("%s %s: max %v, spec %s", bench, metric, b[i].Max, hi)
				}
			}
		}
	}
	// Python's 76.46 * 0.99 is 75.69539999999999, not the exact 75.6954.
	if got := pynum.FloatRepr(Targets["resnet"][0].Min); got != "75.69539999999999" {
		t.Errorf("resnet target %s", got)
	}
}

func formatF(x float64, d int) string { return strconv.FormatFloat(x, 'f', d, 64) }

func TestCheckTextBounds(t *testing.T) {
	vs, pass, err := CheckText("llama2-70b-99.9", "{'rouge1': 45.0, 'rouge2': 23.0, 'rougeL': 29.0, 'rougeLsum': 42.0, 'gen_len': 1000, 'gen_num': 24576, 'gen_tok_len': 7960000, 'tokens_per_sample': 323.895}\n")
	if err != nil || !pass {
		t.Fatalf("%v %v %v", vs, pass, err)
	}
	if _, pass, _ := CheckText("3d-unet-99", "Accuracy: mean = 0.85300, kidney = 0.9, tumor = 0.8\n"); pass {
		t.Fatal("0.853 < 0.853083 passes")
	}
	if got := vs[3].String(); got != "TOKENS_PER_SAMPLE 323.895 in [265.005, 323.89500000000004]: PASS" {
		t.Errorf("verdict %q", got)
	}
}

func TestLogHash(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.json")
	os.WriteFile(p, []byte("abc"), 0o644)
	h, err := LogHash(p)
	// sha256("abc"), the FIPS 180-2 test vector.
	if err != nil || h != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("%s %v", h, err)
	}
}
