package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mlperf-go/inference/accuracy"

	"github.com/mlperf-go/inference/models/bert"
)

func init() {
	handle("accuracy bert", "score a BERT mlperf_log_accuracy.json against dev-v1.1.json (SQuAD EM/F1, as accuracy-squad.py)", accuracyBERT)
}

// accuracyBERT is accuracy-squad.py: the logged logits of every feature go
// through the reference's post-processing (n-best 20, max answer length 30,
// get_final_text) and the official SQuAD v1.1 evaluation.
func accuracyBERT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy bert", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json of a BERT accuracy run (required)")
	data := fs.String("data", "", "the SQuAD v1.1 dev-v1.1.json the run used, or a folder holding it (required)")
	vocab := fs.String("vocab", defaultVocab(), "uncased WordPiece vocab.txt the run used")
	count := fs.Int("count", 0, "the --count the run used (0: every feature of the data set)")
	out := fs.String("out", "", "also write the result line to this file (the submission checker's accuracy.txt)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *logPath == "" || *data == "" {
		return usageError("--log FILE and --data FILE are required")
	}
	if _, err := os.Stat(*logPath); err != nil {
		return fmt.Errorf("bert: accuracy log: %w", err)
	}
	if _, err := os.Stat(*vocab); err != nil {
		return fmt.Errorf("bert: vocabulary %s not found: run `make setup` (it installs the MLPerf vocab.txt) or give --vocab FILE", *vocab)
	}
	sq, err := bert.OpenData(bert.DataConfig{Dataset: squadPath(*data), Vocab: *vocab, Count: *count})
	if err != nil {
		return err
	}
	line, err := scoreSquadLog(*logPath, sq)
	if err != nil {
		return err
	}
	fmt.Println(line)
	if *out != "" {
		if err := accuracy.WriteAccuracyFile(*out, []string{line}, ""); err != nil {
			return err
		}
	}
	return nil
}
