package accuracy_test

// External test package: it reads back every scorer's printed line, and the
// scorers' packages import this one.

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/accuracy/dice"
	"github.com/mlperf-go/inference/accuracy/fid"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/accuracy/squadeval"
)

// TestAccuracyTextParsedByCheckerPatterns: every scorer's line, written by
// accuracy.AccuracyText, is read back by the checker's patterns with the printed
// value, and judged pass or fail against the benchmark's bounds.
func TestAccuracyTextParsedByCheckerPatterns(t *testing.T) {
	dr := dice.Result{Mean: dice.Case{Kidney: 0.93, Tumor: 0.79, Composite: 0.8617}}
	rg := rouge.Result{Rouge1: 42.9865, Rouge2: 20.1235, RougeL: 29.9881, RougeLsum: 40.1, GenLen: 4016878, GenNum: 13368}
	ll := rouge.Result{Rouge1: 44.4312, Rouge2: 22.0352, RougeL: 28.6162, RougeLsum: 42.0, GenLen: 1, GenNum: 24576, GenTokLen: 7236500, TokensPerSample: 294.5}
	for _, c := range []struct {
		bench string
		line  string
		want  map[string]string
		pass  bool
	}{
		{"resnet50", accuracy.Top1Result{Good: 38228, Total: 50000}.String(), map[string]string{"acc": "76.456"}, true},
		{"resnet", accuracy.Top1Result{Good: 37800, Total: 50000}.String(), map[string]string{"acc": "75.600"}, false},
		{"bert-99.9", squadeval.Result{ExactMatch: 83.6, F1: 90.87487229720105}.String(), map[string]string{"F1": "90.87487229720105"}, true},
		{"dlrm-v2-99.9", auc.DLRMResult{AUC: 0.80313, Good: 9, Total: 10, Queries: 1}.String(), map[string]string{"AUC": "80.313"}, true},
		// 79.50685 prints as 79.507 and passes the checker though the raw
		// value is under 79.5069.
		{"dlrm-v2-99", auc.DLRMResult{AUC: 0.7950685, Good: 9, Total: 10, Queries: 1}.String(), map[string]string{"AUC": "79.507"}, true},
		{"3d-unet-99.9", dr.String(), map[string]string{"DICE": "0.86170"}, true},
		{"gptj-99.9", rg.GPTJString(), map[string]string{"ROUGE1": "42.9865", "ROUGE2": "20.1235", "ROUGEL": "29.9881", "GEN_LEN": "4016878"}, true},
		{"llama2-70b-99", ll.Llama2String(), map[string]string{"ROUGE1": "44.4312", "TOKENS_PER_SAMPLE": "294.5"}, true},
		{"llama2-70b-99", (func() rouge.Result { x := ll; x.TokensPerSample = 330.1; return x })().Llama2String(), map[string]string{"TOKENS_PER_SAMPLE": "330.1"}, false},
		{"sdxl", fid.SDXLResult{FID: 23.48046692, CLIP: 31.74981837}.String(), map[string]string{"FID_SCORE": "23.48046692", "CLIP_SCORE": "31.74981837"}, true},
		{"sdxl", fid.SDXLResult{FID: 24.1, CLIP: 31.74981837}.String(), map[string]string{"FID_SCORE": "24.1"}, false},
	} {
		txt := accuracy.AccuracyText([]string{"some preamble the script printed", c.line}, "00ff")
		for metric, want := range c.want {
			got, ok := accuracy.ParseAccuracyText(metric, txt)
			if !ok || got != want {
				t.Errorf("%s %s: parsed %q (%v), want %q from %q", c.bench, metric, got, ok, want, c.line)
			}
		}
		vs, pass, err := accuracy.CheckText(c.bench, txt)
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
	if vs, pass, _ := accuracy.CheckText("sdxl", "{'CLIP_SCORE': '31.75'}\n"); pass || vs[1].Found {
		t.Errorf("missing FID passes: %v", vs)
	}
	if _, _, err := accuracy.CheckText("no-such", ""); err == nil || !strings.Contains(err.Error(), "no accuracy target") {
		t.Errorf("unknown benchmark: %v", err)
	}
}
