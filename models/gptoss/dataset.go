package gptoss

// The gpt-oss-120b data sets' commands: mlperf dataset synth|verify
// gpt-oss-120b.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/harmony"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// tokenizerOption is --tokenizer of run, accuracy and the data set
// commands.
var tokenizerOption = spec.Option{Name: "tokenizer", Default: spec.DepsPath("gptoss"), Deps: "gptoss/tokenizer.json",
	Usage: "folder of gpt-oss's tokenizer.json (o200k_harmony; make setup installs it): builds the synthetic prompts, decodes the outputs for the score, checks the data set's ids"}

// evalSetOption is --eval-set of run, accuracy and the data set commands.
var evalSetOption = spec.Option{Name: "eval-set", Default: "auto",
	Usage: "which of the reference's data sets: acc (accuracy, 4395 prompts, high effort, 32768 new tokens), perf (performance, 6396, low effort, 10240), gpqa-compliance (TEST07, 990, high effort, 10240), or auto (acc in accuracy mode, perf otherwise)"}

// dataset is the reference's data sets' commands.
var dataset = &spec.Dataset{
	Name:     "gpt-oss-120b",
	DataFile: true,
	DataWant: "the folder of the reference's gpt-oss data sets (acc/acc_eval_inputs.parquet, perf/perf_eval_ref.parquet, acc/acc_eval_compliance_gpqa.parquet), or one of those files",
	Download: "models/gptoss/download_dataset.sh",
	Summary:  "the MLPerf gpt-oss data sets: AIME 2025, GPQA Diamond, LiveCodeBench v6 prompts in the Harmony format (accuracy 4395, performance 6396, TEST07 990; parquet)",
	Synth:    synthDataset,
	Verify:   verifyDataset,
	Options: []spec.Option{
		tokenizerOption, evalSetOption,
		{Name: "reasoning-effort", Usage: "verify: the effort the prompts were rendered with (low, medium, high; default: the set's, low for perf and high for the others)"},
		{Name: "official", Bool: true, Usage: "verify: fail unless the file has the set's official row count"},
	},
}

// synthSets are the sets synth writes for --eval-set auto: all three.
func synthSets(e spec.Extra) ([]string, error) {
	switch s := e["eval-set"]; s {
	case "", "auto":
		return []string{setAccuracy, setPerformance, setCompliance}, nil
	case setAccuracy, setPerformance, setCompliance:
		return []string{s}, nil
	default:
		return nil, spec.UsageError("gpt-oss-120b: --eval-set %q: want auto, %s, %s or %s", s, setAccuracy, setPerformance, setCompliance)
	}
}

func synthDataset(req *spec.DatasetRequest) error {
	if req.N > 0 {
		return spec.UsageError("gpt-oss-120b: -n: the synthetic sets have a fixed layout (each source's questions times its repeats); leave -n out")
	}
	seed := uint64(1)
	if req.Seed != 0 {
		seed = req.Seed
	}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return err
	}
	which, err := synthSets(req.Extra)
	if err != nil {
		return err
	}
	for _, set := range which {
		rows, err := synthesize(set, seed, tok)
		if err != nil {
			return err
		}
		path, root := filepath.Join(req.Out, filepath.FromSlash(sets[set].file)), req.Out
		if len(which) == 1 && strings.HasSuffix(req.Out, ".parquet") {
			path, root = req.Out, filepath.Dir(req.Out)
		}
		if err := writeSynthetic(path, root, rows); err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "wrote %d synthetic gpt-oss rows (the %s set: generated questions, Harmony prompts at %s effort, o200k_harmony ids) to %s\n", len(rows), set, sets[set].effort, path)
	}
	return nil
}

// setOfFile guesses the set of a data set file from its name.
func setOfFile(path string) string {
	switch b := filepath.Base(path); {
	case strings.Contains(b, "compliance"):
		return setCompliance
	case strings.HasPrefix(b, "perf"):
		return setPerformance
	}
	return setAccuracy
}

// promptCheck is what verify checks of the prompt ids: the Harmony
// frame (<|start|>system<|message|> … <|start|>assistant) and, with a
// tokenizer, the conversation of the row's dataset and question at effort.
func promptCheck(tok *tokenizer.O200k, effort harmony.Effort) reasoning.Check {
	c := reasoning.Check{Vocab: tokenizer.O200kVocabSize,
		Prefix: []int32{tokenizer.HarmonyStart, systemID, tokenizer.HarmonyMessage},
		Suffix: []int32{tokenizer.HarmonyStart, assistantID}}
	if tok != nil {
		c.Encode = func(r reasoning.Row) ([]int32, bool) {
			if r.Question == "" {
				return nil, false
			}
			ids, err := encodePrompt(tok, r.Dataset, r.Question, effort)
			return ids, err == nil
		}
	}
	return c
}

// systemID and assistantID are "system" and "assistant" in o200k_harmony.
const (
	systemID    = 17360
	assistantID = 173781
)

func verifyDataset(req *spec.DatasetRequest) error {
	path := req.Data
	set := setOfFile(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		s := req.Extra["eval-set"]
		if s == "" || s == "auto" {
			s = setAccuracy
		}
		if _, ok := sets[s]; !ok {
			return spec.UsageError("gpt-oss-120b: --eval-set %q: want %s, %s or %s", s, setAccuracy, setPerformance, setCompliance)
		}
		set, path = s, filepath.Join(path, filepath.FromSlash(sets[s].file))
	}
	effort, err := harmony.ParseEffort(sets[set].effort)
	if e := req.Extra["reasoning-effort"]; e != "" {
		effort, err = harmony.ParseEffort(e)
	}
	if err != nil {
		return spec.UsageError("gpt-oss-120b: --reasoning-effort: %v", err)
	}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		fmt.Fprintf(req.Stderr, "%v; prompts are not rebuilt from their questions\n", err)
		tok = nil
	}
	rep, err := reasoning.Verify(path, promptCheck(tok, effort))
	if err != nil {
		return fmt.Errorf("gpt-oss-120b: %w", err)
	}
	fmt.Fprintf(req.Stdout, "gpt-oss-120b: the %s set, %s effort: %s\n", set, effort, rep)
	if rep.MismatchCount > 0 {
		fmt.Fprintf(req.Stdout, "gpt-oss-120b: %d prompts differ from harmonize_inputs.py's (commit 06a5387) rendering of their questions: the file was made with another version of the prompts; runs send the file's ids as they are\n", rep.MismatchCount)
	}
	if req.Extra["official"] == "true" && rep.Rows != sets[set].rows {
		return fmt.Errorf("gpt-oss-120b: %s has %d rows, the official %s set %d", path, rep.Rows, set, sets[set].rows)
	}
	return nil
}
