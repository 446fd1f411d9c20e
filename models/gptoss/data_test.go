package gptoss

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/harmony"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

var (
	tokOnce sync.Once
	tok     *tokenizer.O200k
	tokErr  error
	tokPath string
)

func needTok(t testing.TB) *tokenizer.O200k {
	t.Helper()
	tokOnce.Do(func() {
		if tokPath, tokErr = deps.Find("gptoss/tokenizer.json"); tokErr == nil {
			tok, tokErr = loadTokenizer(tokPath)
		}
	})
	if tokErr != nil {
		t.Skipf("gpt-oss tokenizer not installed (make setup): %v", tokErr)
	}
	return tok
}

// TestPromptIsHarmonizeInputs: a GPQA question's prompt is the system
// message of harmonize_inputs.py (identity, cutoff, 2025-09-30, the effort,
// the three channels), the GPQA instructions, its two examples on the
// final channel, the question, and the assistant's header; the ids are
// that text with its markers as special tokens.
func TestPromptIsHarmonizeInputs(t *testing.T) {
	text := promptText("gpqa_diamond", "Which gas?\nA) He\nB) Ne\nC) Ar\nD) Kr", harmony.Low)
	for _, want := range []string{
		"<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2025-09-30\n\nReasoning: low\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>",
		"<|start|>developer<|message|># Instructions\n\nYou are an expert in Biology, Physics and Chemistry who answers scientific questions accurately. Do not repeat steps",
		"in the format: 'Answer: X' where X is the letter choice.<|end|><|start|>user<|message|>A large gene has dozens of exons",
		"<|start|>assistant<|channel|>final<|message|>The text describes the dystrophin gene",
		"Answer: C<|end|><|start|>user<|message|>Which gas?\nA) He\nB) Ne\nC) Ar\nD) Kr<|end|><|start|>assistant",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "<|start|>assistant") || strings.Count(text, "<|channel|>final") != 2 {
		t.Errorf("prompt:\n%s", text)
	}
	tok := needTok(t)
	ids, err := encodePrompt(tok, "gpqa_diamond", "Which gas?\nA) He\nB) Ne\nC) Ar\nD) Kr", harmony.Low)
	if err != nil {
		t.Fatal(err)
	}
	if want := tok.Encode(text, false); !slices.Equal(ids, want) {
		t.Errorf("ids differ from the text encoded with specials")
	}
}

func TestPromptFamilies(t *testing.T) {
	for ds, want := range map[string]string{"aime25": "aime", "aime1983": "aime", "gpqa_diamond": "gpqa", "livecodebench_v6": "livecodebench",
		"math500": "math500", "mmlu_pro": "mmlu", "healthbench": "default"} {
		if got := promptFamily(ds); got != want {
			t.Errorf("promptFamily(%q) = %q, want %q", ds, got, want)
		}
	}
	// zero-shot families: system, developer, question
	if n := len(conversation("aime25", "q", harmony.High)); n != 3 {
		t.Errorf("aime prompt has %d messages", n)
	}
	if n := len(conversation("math500", "q", harmony.High)); n != 3+10 {
		t.Errorf("math500 prompt has %d messages", n)
	}
	if n := len(conversation("mmlu_pro", "q", harmony.High)); n != 3+10 {
		t.Errorf("mmlu prompt has %d messages", n)
	}
	if s := familyInstructions["livecodebench"]; !strings.Contains(s, "problem.Do not repeat") {
		t.Errorf("livecodebench instructions: %q (harmonize_inputs.py joins them without a space)", s)
	}
}

// TestSynthSetsVerify: the three synthetic sets have the reference's
// layout (accuracy: each question repeated 8, 5 and 3 times), every
// prompt rebuilds at the set's effort and none at the other effort.
func TestSynthSetsVerify(t *testing.T) {
	tok := needTok(t)
	dir := t.TempDir()
	var out strings.Builder
	req := &spec.DatasetRequest{Out: dir, Extra: spec.Extra{"tokenizer": tokPath}, Stdout: &out, Stderr: &out}
	if err := synthDataset(req); err != nil {
		t.Fatal(err)
	}
	for set, rows := range map[string]int{setAccuracy: 32, setPerformance: 10, setCompliance: 10} {
		path := filepath.Join(dir, sets[set].file)
		s, err := reasoning.Read(path)
		if err != nil || s.Len() != rows {
			t.Fatalf("%s: %v, %d rows", set, err, s.Len())
		}
		effort, _ := harmony.ParseEffort(sets[set].effort)
		rep, err := reasoning.Verify(path, promptCheck(tok, effort))
		if err != nil || rep.Rebuilt != rows || rep.MismatchCount != 0 {
			t.Errorf("%s: %v %+v", set, err, rep)
		}
		other := harmony.High
		if effort == harmony.High {
			other = harmony.Low
		}
		if rep, _ := reasoning.Verify(path, promptCheck(tok, other)); rep.MismatchCount != rows {
			t.Errorf("%s at %s effort: %d of %d differ", set, other, rep.MismatchCount, rows)
		}
	}
	acc, _ := reasoning.Read(filepath.Join(dir, accFile))
	if got := acc.ByDataset(); got["aime25"] != 16 || got["gpqa_diamond"] != 10 || got["livecodebench_v6"] != 6 {
		t.Errorf("accuracy set layout %v", got)
	}
	out.Reset()
	req = &spec.DatasetRequest{Data: dir, Extra: spec.Extra{"tokenizer": tokPath, "eval-set": setPerformance, "official": "true"}, Stdout: &out, Stderr: &out}
	if err := verifyDataset(req); err == nil || !strings.Contains(err.Error(), "6396") {
		t.Errorf("--official on the synthetic perf set: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "low effort") || !strings.Contains(out.String(), "0 differ") {
		t.Errorf("verify output:\n%s", out.String())
	}
}

func TestEvalSetAndMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		extra  spec.Extra
		mode   loadgen.Mode
		set    string
		maxNew int
	}{
		{spec.Extra{}, loadgen.AccuracyOnly, setAccuracy, 32768},
		{spec.Extra{"eval-set": "auto"}, loadgen.PerformanceOnly, setPerformance, 10240},
		{spec.Extra{"eval-set": setCompliance}, loadgen.PerformanceOnly, setCompliance, 10240},
		{spec.Extra{"eval-set": setAccuracy, "max-new-tokens": "64"}, loadgen.PerformanceOnly, setAccuracy, 64},
	} {
		set, err := evalSet(tc.extra, tc.mode)
		if err != nil || set != tc.set {
			t.Errorf("%v %v: set %q %v", tc.extra, tc.mode, set, err)
			continue
		}
		if n, err := maxNewTokens(tc.extra, set); err != nil || n != tc.maxNew {
			t.Errorf("%v: max %d %v", tc.extra, n, err)
		}
	}
	if _, err := evalSet(spec.Extra{"eval-set": "train"}, loadgen.AccuracyOnly); err == nil {
		t.Error("--eval-set train accepted")
	}
	if _, err := maxNewTokens(spec.Extra{"max-new-tokens": "1"}, setAccuracy); err == nil {
		t.Error("--max-new-tokens 1 accepted")
	}
}

// TestLoadDataRefusesOtherModelsIDsAndMissingSets: a DeepSeek-sized id
// set is fine, an id beyond o200k's vocabulary is refused, and a folder
// without the set's file says which file and how to get it.
func TestLoadDataRefusesOtherModelsIDsAndMissingSets(t *testing.T) {
	tok := needTok(t)
	rows, err := synthesize(setPerformance, 1, tok)
	if err != nil {
		t.Fatal(err)
	}
	rows[3].TokInput = append(slices.Clone(rows[3].TokInput), 201000)
	dir := t.TempDir()
	if err := reasoning.WriteFile(filepath.Join(dir, perfFile), rows); err != nil {
		t.Fatal(err)
	}
	if _, err := loadData(dir, setPerformance, t.TempDir(), tok, os.Stderr); err == nil || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("id beyond the vocabulary: %v", err)
	}
	if _, err := loadData(dir, setAccuracy, t.TempDir(), tok, os.Stderr); err == nil || !strings.Contains(err.Error(), accFile) || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("missing accuracy set: %v", err)
	}
	s, err := loadData("synthetic", setCompliance, t.TempDir(), tok, os.Stderr)
	if err != nil || s.Len() != 10 || s.ByDataset()["gpqa_diamond"] != 10 {
		t.Errorf("synthetic compliance set: %v", err)
	}
}
