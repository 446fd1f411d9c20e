package deepseekr1

// The deepseek-r1 data set's commands: mlperf dataset synth|verify
// deepseek-r1.

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/accuracy/reasoneval"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// tokenizerOption is --tokenizer of run, accuracy and the data set
// commands.
var tokenizerOption = spec.Option{Name: "tokenizer", Default: spec.DepsPath("deepseek"), Deps: "deepseek/tokenizer.json",
	Usage: "folder of DeepSeek-R1's (or DeepSeek-V3's) tokenizer.json (make setup installs it): builds the synthetic prompts, decodes the outputs for the score, checks the data set's ids"}

// dataset is the reference's data set file's commands.
var dataset = &spec.Dataset{
	Name:     "deepseek-r1",
	DataFile: true,
	DataWant: dataFileName + " of language/deepseek-r1, or the folder holding it",
	Download: "models/deepseekr1/download_dataset.sh",
	Summary:  "the MLPerf DeepSeek-R1 reasoning ensemble (AIME, MATH500, GPQA, MMLU-Pro, LiveCodeBench; 4388 chat-templated prompts, pandas pickle)",
	Synth:    synthDataset,
	Verify:   verifyDataset,
	Options: []spec.Option{
		tokenizerOption,
		{Name: "official", Bool: true, Usage: "verify: fail unless the file has the official 4388 rows and every prompt rebuilds from its text"},
	},
}

func synthDataset(req *spec.DatasetRequest) error {
	n, seed := synthRows, uint64(1)
	if req.N > 0 {
		n = req.N
	}
	if n > 100000 {
		return spec.UsageError("deepseek-r1: -n %d: at most 100000 synthetic rows", n)
	}
	if req.Seed != 0 {
		seed = req.Seed
	}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return err
	}
	path := spec.FileIn(req.Out, dataFileName)
	if err := writeSynthetic(path, synthesize(n, seed, tok)); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d synthetic DeepSeek-R1 rows (generated questions of the five source families, chat-templated DeepSeek-R1 ids) to %s, and their LiveCodeBench problems to %s\n", n, path, filepath.Join(filepath.Dir(path), reasoneval.ProblemsDir))
	return nil
}

// promptCheck is what verify checks of the prompt ids: the chat template's
// fixed ids (<｜begin▁of▁sentence｜><｜User｜> … <｜Assistant｜><think>\n),
// and, with a tokenizer, the template applied to text_input.
func promptCheck(tok *tokenizer.DeepSeek) reasoning.Check {
	c := reasoning.Check{Vocab: tokenizer.DeepSeekVocabSize,
		Prefix: []int32{tokenizer.DeepSeekBOSID, tokenizer.DeepSeekUserID},
		Suffix: []int32{tokenizer.DeepSeekAssistantID, tokenizer.DeepSeekThinkID, newlineID}}
	if tok != nil {
		c.Encode = func(r reasoning.Row) ([]int32, bool) {
			if r.TextInput == "" {
				return nil, false
			}
			return encodePrompt(tok, r.TextInput), true
		}
	}
	return c
}

// newlineID is "\n" in DeepSeek's vocabulary ("Ċ").
const newlineID = 201

func verifyDataset(req *spec.DatasetRequest) error {
	path := spec.FileIn(req.Data, dataFileName)
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		fmt.Fprintf(req.Stderr, "%v; prompts are not rebuilt from text_input\n", err)
		tok = nil
	}
	rep, err := reasoning.Verify(path, promptCheck(tok))
	if err != nil {
		return fmt.Errorf("deepseek-r1: %w", err)
	}
	fmt.Fprintf(req.Stdout, "deepseek-r1: %s\n", rep)
	if req.Extra["official"] == "true" {
		if rep.Rows != dataRows {
			return fmt.Errorf("deepseek-r1: %s has %d rows, the official file %d", path, rep.Rows, dataRows)
		}
		if rep.MismatchCount > 0 || rep.Rebuilt != rep.Rows {
			return fmt.Errorf("deepseek-r1: %s: %d of %d prompts rebuilt from text_input with DeepSeek-R1's chat template, %d differ from tok_input", path, rep.Rebuilt, rep.Rows, rep.MismatchCount)
		}
	}
	return nil
}
