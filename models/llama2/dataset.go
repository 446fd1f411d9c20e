package llama2

// The openorca data set's commands: mlperf dataset synth|verify openorca.

import (
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openorca"
)

// openOrca is the OpenOrca parquet's commands: synth and verify.
var openOrca = &spec.Dataset{
	Name:     "openorca",
	DataFile: true,
	DataWant: "the preprocessed OpenOrca parquet file or the folder holding it",
	Download: "datasets/openorca/download_dataset.sh",
	Summary:  "OpenOrca GPT-4 sample, Llama 2 tokenized (open_orca_gpt4_tokenized_llama.sampled_24576.parquet)",
	Synth:    synthOpenOrca,
	Verify:   verifyOpenOrca,
	Options: []spec.Option{
		tokenizerOption,
		{Name: "official", Bool: true, Usage: "verify: fail unless the file has the shape of the official one (24576 rows, 6144 per origin)"},
	},
}

func synthOpenOrca(req *spec.DatasetRequest) error {
	cfg := openorca.SmallSynth
	if req.N > 0 {
		cfg.Samples = req.N
	}
	if req.Seed != 0 {
		cfg.Seed = req.Seed
	}
	tok, err := lazyTokenizer(req.Extra["tokenizer"])()
	if err != nil {
		return err
	}
	path := spec.FileIn(req.Out, openorca.FileName)
	if err := openorca.SynthFile(path, tok, openorca.SynthConfig{Samples: cfg.Samples, Seed: cfg.Seed}); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d synthetic OpenOrca rows (generated text, Llama 2 token ids) to %s\n", cfg.Samples, path)
	return nil
}

func verifyOpenOrca(req *spec.DatasetRequest) error {
	path := spec.FileIn(req.Data, openorca.FileName)
	ds, err := openorca.Open(path)
	if err != nil {
		return err
	}
	defer ds.Close()
	rep, err := openorca.Verify(ds, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "openorca: %s: %s\n", path, rep)
	for _, p := range rep.Problems {
		fmt.Fprintf(req.Stdout, "  %s\n", p)
	}
	switch {
	case len(rep.Problems) > 0:
		return fmt.Errorf("openorca: %s: %d problem(s)", path, len(rep.Problems))
	case req.Extra["official"] == "true" && !rep.Official:
		return fmt.Errorf("openorca: %s is not the official file's shape (%d rows, want %d, %d per origin)", path, rep.Rows, openorca.Rows, openorca.Rows/len(openorca.Origins))
	}
	return nil
}
