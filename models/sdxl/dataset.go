package sdxl

// The coco2014 data set's commands: mlperf dataset
// synth|verify|preprocess coco2014.

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2014"
)

// dataset is the coco2014 data set's commands.
var dataset = &spec.Dataset{
	Name:     "coco2014",
	DataFile: true,
	DataWant: "the COCO-2014 folder (captions/captions.tsv, latents/latents.npy, statistics/val2014.npz) or its captions file",
	Download: "datasets/coco2014/download_dataset.sh",
	Summary:  "COCO-2014 captions for SDXL: captions/captions.tsv, latents/latents.npy, statistics/val2014.npz",
	Synth: func(req *spec.DatasetRequest) error {
		if err := coco2014.Synth(req.Out, coco2014.SynthConfig{N: req.N, Seed: req.Seed}); err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "wrote a synthetic COCO-2014 captions data set to %s\n", req.Out)
		return nil
	},
	// Preprocess is coco.py's selection: the captions of
	// annotations_trainval2014.zip (or captions_val2014.json) in --data,
	// the first --count (default 5000) of the seed-2023 shuffle (-seed),
	// written as DIR/captions/captions.tsv (-o).
	Preprocess: func(req *spec.DatasetRequest) error {
		if req.Data == "" || req.Out == "" {
			return spec.UsageError("coco2014: preprocess needs --data annotations_trainval2014.zip (or captions_val2014.json) and -o DIR")
		}
		max := coco2014.Samples
		if req.Count > 0 {
			max = req.Count
		}
		seed := uint32(coco2014.SelectSeed)
		if req.Seed != 0 {
			seed = uint32(req.Seed)
		}
		n, err := coco2014.SelectFile(req.Data, req.Out, max, seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "wrote %d captions (seed %d) to %s\n", n, seed, filepath.Join(req.Out, coco2014.CaptionsFile))
		return nil
	},
	Verify: func(req *spec.DatasetRequest) error {
		r := coco2014.Verify(req.Data)
		for _, l := range r.Lines {
			fmt.Fprintln(req.Stdout, l)
		}
		if !r.OK {
			return fmt.Errorf("coco2014: %s is not the reference data set (see the FAIL lines)", req.Data)
		}
		return nil
	},
}
