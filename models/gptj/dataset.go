package gptj

// The cnndm data set's commands: mlperf dataset synth|verify cnndm.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// cnndmDataset is the CNN-DailyMail validation set's commands: synth and verify.
var cnndmDataset = &spec.Dataset{
	Name:     "cnndm",
	DataFile: true,
	DataWant: "the CNN-DailyMail cnn_eval.json file or the folder holding it",
	Download: "datasets/cnndm/download_dataset.sh",
	Summary:  "CNN-DailyMail 3.0.0 validation (cnn_eval.json, 13368 records)",
	Synth:    synthCNNDM,
	Verify:   verifyCNNDM,
	Options: []spec.Option{
		{Name: "partial", Bool: true, Usage: "verify: accept another record count than the validation split's 13368"},
		{Name: "tokenizer", Usage: "verify: GPT-2 tokenizer folder: also tokenize every prompt and count those cut at 1919 tokens"},
	},
}

func synthCNNDM(req *spec.DatasetRequest) error {
	cfg := cnndm.SmallSynth
	if req.N > 0 {
		cfg.Records = req.N
	}
	if req.Seed != 0 {
		cfg.Seed = req.Seed
	}
	recs, err := cnndm.Synth(cfg)
	if err != nil {
		return err
	}
	path := req.Out
	if st, err := os.Stat(path); (err == nil && st.IsDir()) || strings.HasSuffix(path, string(os.PathSeparator)) {
		path = filepath.Join(path, cnndm.FileName)
	}
	if err := cnndm.WriteFile(path, recs); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %s: %d records (synthetic articles, not CNN-DailyMail)\n", path, len(recs))
	return nil
}

func verifyCNNDM(req *spec.DatasetRequest) error {
	rep, err := cnndm.Verify(req.Data)
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "%s: %d records, %d article characters, %d highlight characters, md5 %s\n", rep.Path, rep.Records, rep.ArticleChars, rep.TargetChars, rep.MD5)
	if !rep.Complete && req.Extra["partial"] != "true" {
		return fmt.Errorf("cnndm: %s has %d records, want %d (the validation split); --partial accepts it", rep.Path, rep.Records, cnndm.ValidationRecords)
	}
	if dir := req.Extra["tokenizer"]; dir != "" {
		tok, err := tokenizer.LoadGPT2(dir)
		if err != nil {
			return fmt.Errorf("cnndm: %w", err)
		}
		recs, err := cnndm.Load(rep.Path)
		if err != nil {
			return err
		}
		truncated, total := 0, 0
		for _, r := range recs {
			n := len(tok.Encode(tokenizer.FormatGPTJPrompt(r.Instruction, r.Input)))
			total += min(n, maxInputTokens)
			if n > maxInputTokens {
				truncated++
			}
		}
		fmt.Fprintf(req.Stdout, "prompts: %d tokens in all after truncation, %d of %d cut at %d tokens\n", total, truncated, len(recs), maxInputTokens)
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}
