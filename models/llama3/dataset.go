package llama3

// The cnndm-llama3 data set's commands: mlperf dataset synth|verify
// cnndm-llama3.

import (
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// cnndmLlama3 is the Llama 3.1 8B CNN-DailyMail files' commands: synth and
// verify.
var cnndmLlama3 = &spec.Dataset{
	Name:     "cnndm-llama3",
	DataFile: true,
	DataWant: "cnn_eval.json or sample_cnn_eval_5000.json of language/llama3.1-8b, or the folder holding them",
	Download: "models/llama3/download_dataset.sh",
	Summary:  "CNN-DailyMail 3.0.0 validation, Llama 3.1 tokenized (cnn_eval.json, 13368; edge sample_cnn_eval_5000.json, 5000)",
	Synth:    synthDataset,
	Verify:   verifyDataset,
	Options: []spec.Option{
		tokenizerOption,
		{Name: "official", Bool: true, Usage: "verify: fail unless the file has the official record count (13368, or 5000 for the edge file)"},
	},
}

func synthDataset(req *spec.DatasetRequest) error {
	cfg := cnndm.Llama3SmallSynth
	if req.N > 0 {
		cfg.Records = req.N
	}
	if req.Seed != 0 {
		cfg.Seed = req.Seed
	}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return err
	}
	path := spec.FileIn(req.Out, cnndm.FileName)
	if err := synthFile(path, cfg, tok); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d synthetic CNN-DailyMail records (generated text, Llama 3.1 token ids) to %s\n", cfg.Records, path)
	return nil
}

func verifyDataset(req *spec.DatasetRequest) error {
	path := spec.FileIn(req.Data, cnndm.FileName)
	check := cnndm.Llama3Check{Vocab: tokenizer.Llama3VocabSize, BOS: tokenizer.Llama3BOSID}
	if tok, err := loadTokenizer(req.Extra["tokenizer"]); err == nil {
		check.Encode = func(s string) []int32 { return tok.Encode(s, true) }
	} else {
		fmt.Fprintf(req.Stderr, "cnndm-llama3: %v; tok_input is not re-tokenized\n", err)
	}
	rep, err := cnndm.VerifyLlama3(path, check)
	if err != nil {
		return err
	}
	kind := "not the official size"
	switch {
	case rep.Datacenter:
		kind = "the datacenter set"
	case rep.Edge:
		kind = "the edge set"
	}
	fmt.Fprintf(req.Stdout, "cnndm-llama3: %s: %d records (%s), prompts of up to %d tokens (%d in all), re-tokenized %v, md5 %s\n",
		path, rep.Records, kind, rep.MaxPrompt, rep.PromptTokens, rep.Retokenized, rep.MD5)
	if req.Extra["official"] == "true" && !rep.Datacenter && !rep.Edge {
		return fmt.Errorf("cnndm-llama3: %s has %d records, want %d (cnn_eval.json) or %d (sample_cnn_eval_5000.json)", path, rep.Records, cnndm.ValidationRecords, cnndm.Llama3EdgeRecords)
	}
	return nil
}
