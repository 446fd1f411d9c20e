package mixtral

// The mixtral data set's commands: mlperf dataset synth|verify mixtral.

import (
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/mixtral"
)

// dataset is the Mixtral-8x7B data set pickle's commands: synth and
// verify.
var dataset = &spec.Dataset{
	Name:     "mixtral",
	DataFile: true,
	DataWant: "the Mixtral-8x7B data set pickle (" + mixtral.FileName + "), or the folder holding it",
	Download: "datasets/mixtral/download_dataset.sh",
	Summary:  "Mixtral-8x7B's 15,000 prompts (5,000 each of OpenOrca, GSM8K, MBXP), a pandas DataFrame pickle; and its 1,000-prompt calibration set",
	Synth:    synthDataset,
	Verify:   verifyDataset,
	Options: []spec.Option{
		tokenizerOption,
		{Name: "official", Bool: true, Usage: "verify: fail unless the file is the official validation file (MD5 and 15,000 rows)"},
		{Name: "calibration", Bool: true, Usage: "verify with --official: the official calibration file instead (1,000 rows)"},
	},
}

func synthDataset(req *spec.DatasetRequest) error {
	cfg := mixtral.SynthConfig{Samples: req.N, Seed: req.Seed}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return err
	}
	path := spec.FileIn(req.Out, mixtral.FileName)
	if err := synthFile(path, cfg, tok); err != nil {
		return err
	}
	n := cfg.Samples
	if n == 0 {
		n = 30 // mixtral.Synth's default
	}
	fmt.Fprintf(req.Stdout, "wrote %d synthetic Mixtral rows (generated prompts, Mixtral token ids) to %s\n", n, path)
	return nil
}

func verifyDataset(req *spec.DatasetRequest) error {
	path := spec.FileIn(req.Data, mixtral.FileName)
	rep, err := mixtral.Verify(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "mixtral: %s: %s\n", path, rep)
	for _, p := range rep.Problems {
		fmt.Fprintf(req.Stderr, "mixtral: %s: %s\n", path, p)
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("mixtral: %s: %d problem(s), first: %s", path, len(rep.Problems), rep.Problems[0])
	}
	if req.Extra["official"] == "true" {
		if p := mixtral.OfficialProblem(rep, req.Extra["calibration"] == "true"); p != "" {
			return fmt.Errorf("mixtral: %s: %s", path, p)
		}
	}
	return nil
}
