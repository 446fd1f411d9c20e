package accuracy

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/pynum"
)

// TestTargetsEqualTheCheckersBitForBit: every target and upper limit of
// every round equals, to the last bit, the float64 the checker's Python
// computed importing constants.py (testdata/targets.txt, recorded as hex
// floats by testdata/make_targets.py), in the checker's order; and
// Targets holds no model the checker does not list.
func TestTargetsEqualTheCheckersBitForBit(t *testing.T) {
	data, err := os.ReadFile("testdata/targets.txt")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("bad line %q", line)
		}
		model, scenario, kind, metric := f[0], f[1], f[2], f[4]
		i, _ := strconv.Atoi(f[3])
		want, err := strconv.ParseFloat(f[5], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		target, ok := Targets[model]
		if scenario != "*" {
			target, ok = ScenarioTarget(model, scenario)
		}
		if !ok {
			t.Errorf("%s %s: no target", model, scenario)
			continue
		}
		limits := target.Min
		if kind == "max" {
			limits = target.Max
		}
		if i >= len(limits) {
			t.Errorf("%s %s: no %s limit %d (%s)", model, scenario, kind, i, metric)
			continue
		}
		got := limits[i]
		if got.Metric != metric || math.Float64bits(got.Value) != math.Float64bits(want) {
			t.Errorf("%s %s %s %d: %s %v (%x), the checker's %s %v (%s)", model, scenario, kind, i, got.Metric, got.Value, math.Float64bits(got.Value), metric, want, f[5])
		}
		seen[model] = true
		n++
	}
	for model := range Targets {
		if !seen[model] {
			t.Errorf("%s: not in the checker's tables", model)
		}
	}
	if n < 80 {
		t.Fatalf("only %d limits read", n)
	}
	// Python's 76.46 * 0.99 is 75.69539999999999, not the exact 75.6954.
	if got := pynum.FloatRepr(Targets["resnet"].Min[0].Value); got != "75.69539999999999" {
		t.Errorf("resnet target %s", got)
	}
}

// TestBoundsMergeMinAndMax: a metric with both limits is one bound, a
// Max-only metric (gpt-oss-120b's TOKENS_PER_SAMPLE) comes after the Min
// ones and does not fail when absent.
func TestBoundsMergeMinAndMax(t *testing.T) {
	b := Targets["gpt-oss-120b"].Bounds()
	if len(b) != 2 || b[0].Metric != "exact_match" || !b[0].HasMin || b[0].HasMax || b[1].Metric != "TOKENS_PER_SAMPLE" || b[1].HasMin || !b[1].HasMax {
		t.Fatalf("bounds %+v", b)
	}
	if _, pass, _ := CheckText("gpt-oss-120b", "{'exact_match': 90.0}\n"); !pass {
		t.Error("an absent Max-only metric fails")
	}
	if _, pass, _ := CheckText("gpt-oss-120b", "{'exact_match': 90.0, 'tokens_per_sample': 11000.0}\n"); pass {
		t.Error("tokens_per_sample 11000 > 1.1*9999 passes")
	}
	sd := Targets["stable-diffusion-xl"].Bounds()
	if len(sd) != 2 || !sd[0].HasMin || !sd[0].HasMax || sd[1].Max != 23.95007626 {
		t.Fatalf("sdxl bounds %+v", sd)
	}
}

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
