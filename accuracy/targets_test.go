package accuracy

import (
	"os"
	"path/filepath"
	"regexp"
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

// TestAccuracyTextParsedByCheckerPatterns: every scorer's line, written by
// AccuracyText, is read back by the checker's patterns with the printed
// value, and judged pass or fail against the benchmark's bounds.
func TestAccuracyTextParsedByCheckerPatterns(t *testing.T) {
	dice := DiceResult{Mean: DiceCase{Kidney: 0.93, Tumor: 0.79, Composite: 0.8617}}
	rg := RougeResult{Rouge1: 42.9865, Rouge2: 20.1235, RougeL: 29.9881, RougeLsum: 40.1, GenLen: 4016878, GenNum: 13368}
	ll := RougeResult{Rouge1: 44.4312, Rouge2: 22.0352, RougeL: 28.6162, RougeLsum: 42.0, GenLen: 1, GenNum: 24576, GenTokLen: 7236500, TokensPerSample: 294.5}
	for _, c := range []struct {
		bench string
		line  string
		want  map[string]string
		pass  bool
	}{
		{"resnet50", Top1Result{Good: 38228, Total: 50000}.String(), map[string]string{"acc": "76.456"}, true},
		{"resnet", Top1Result{Good: 37800, Total: 50000}.String(), map[string]string{"acc": "75.600"}, false},
		{"bert-99.9", SQuADResult{ExactMatch: 83.6, F1: 90.87487229720105}.String(), map[string]string{"F1": "90.87487229720105"}, true},
		{"dlrm-v2-99.9", DLRMResult{AUC: 0.80313, Good: 9, Total: 10, Queries: 1}.String(), map[string]string{"AUC": "80.313"}, true},
		// 79.50685 prints as 79.507 and passes the checker though the raw
		// value is under 79.5069.
		{"dlrm-v2-99", DLRMResult{AUC: 0.7950685, Good: 9, Total: 10, Queries: 1}.String(), map[string]string{"AUC": "79.507"}, true},
		{"3d-unet-99.9", dice.String(), map[string]string{"DICE": "0.86170"}, true},
		{"gptj-99.9", rg.GPTJString(), map[string]string{"ROUGE1": "42.9865", "ROUGE2": "20.1235", "ROUGEL": "29.9881", "GEN_LEN": "4016878"}, true},
		{"llama2-70b-99", ll.Llama2String(), map[string]string{"ROUGE1": "44.4312", "TOKENS_PER_SAMPLE": "294.5"}, true},
		{"llama2-70b-99", (func() RougeResult { x := ll; x.TokensPerSample = 330.1; return x })().Llama2String(), map[string]string{"TOKENS_PER_SAMPLE": "330.1"}, false},
		{"sdxl", SDXLResult{FID: 23.48046692, CLIP: 31.74981837}.String(), map[string]string{"FID_SCORE": "23.48046692", "CLIP_SCORE": "31.74981837"}, true},
		{"sdxl", SDXLResult{FID: 24.1, CLIP: 31.74981837}.String(), map[string]string{"FID_SCORE": "24.1"}, false},
	} {
		txt := AccuracyText([]string{"some preamble the script printed", c.line}, "00ff")
		for metric, want := range c.want {
			got, ok := ParseAccuracyText(metric, txt)
			if !ok || got != want {
				t.Errorf("%s %s: parsed %q (%v), want %q from %q", c.bench, metric, got, ok, want, c.line)
			}
		}
		vs, pass, err := CheckText(c.bench, txt)
		if err != nil {
			t.Fatal(err)
		}
		if pass != c.pass {
			t.Errorf("%s: pass %v, want %v: %v", c.bench, pass, c.pass, vs)
		}
		if !regexp.MustCompile(`(?m)^hash=00ff$`).MatchString(txt) {
			t.Errorf("no hash line in %q", txt)
		}
	}
	// A missing metric fails.
	if vs, pass, _ := CheckText("sdxl", "{'CLIP_SCORE': '31.75'}\n"); pass || vs[1].Found {
		t.Errorf("missing FID passes: %v", vs)
	}
	if _, _, err := CheckText("no-such", ""); err == nil || !strings.Contains(err.Error(), "no accuracy target") {
		t.Errorf("unknown benchmark: %v", err)
	}
}

func TestCheckValues(t *testing.T) {
	vs, pass, err := Check("llama2-70b-99.9", map[string]float64{"ROUGE1": 45, "ROUGE2": 23, "ROUGEL": 29, "TOKENS_PER_SAMPLE": 323.895})
	if err != nil || !pass {
		t.Fatalf("%v %v %v", vs, pass, err)
	}
	if _, pass, _ := Check("3d-unet-99", map[string]float64{"DICE": 0.853}); pass {
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
