package retinanet

// The openimages data set's commands: mlperf dataset
// synth|verify|preprocess openimages.

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openimages"
)

// dataset is the OpenImages data set's commands.
var dataset = &spec.Dataset{
	Name:       "openimages",
	DataWant:   "the OpenImages MLPerf folder (annotations/openimages-mlperf.json and validation/data/*.jpg)",
	Download:   "models/retinanet/download_dataset.sh",
	Summary:    "OpenImages v6 MLPerf validation subset (24781 images, COCO-format annotations)",
	Synth:      synthCommand,
	Verify:     verifyCommand,
	Preprocess: preprocessCommand,
	Options: []spec.Option{
		{Name: "annotations", Usage: "annotation file (default DATA/" + openimages.AnnotationsPath + ")"},
	},
}

func synthCommand(req *spec.DatasetRequest) error {
	if req.Out == "" {
		return spec.UsageError("openimages: synth: -o DIR is required")
	}
	n, seed := req.N, req.Seed
	if n == 0 {
		n = synthSamples
	}
	if seed == 0 {
		seed = synthSeed
	}
	if err := openimages.Synth(req.Out, openimages.SynthConfig{N: n, Seed: seed}); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d images and %s under %s\n", n, openimages.AnnotationsPath, req.Out)
	return nil
}

func verifyCommand(req *spec.DatasetRequest) error {
	if req.Data == "" {
		return spec.UsageError("openimages: verify: --data DIR is required")
	}
	expect := openimages.Size
	if req.NSet {
		expect = req.N
	}
	r, err := openimages.Verify(req.Data, req.Extra["annotations"], req.Workers)
	if err != nil {
		return err
	}
	fmt.Fprint(req.Stdout, r.String())
	if !r.OK(expect) {
		if expect > 0 && r.Listed != expect {
			return fmt.Errorf("openimages: %s lists %d images, want %d (-n 0 accepts any count)", r.Annotations, r.Listed, expect)
		}
		return fmt.Errorf("openimages: %s does not verify (see above)", req.Data)
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}

func preprocessCommand(req *spec.DatasetRequest) error {
	if req.Data == "" {
		return spec.UsageError("openimages: preprocess: --data DIR is required")
	}
	ds, err := openimages.Load(req.Data, openimages.Options{Annotations: req.Extra["annotations"], Count: req.Count, Warn: req.Stderr})
	if err != nil {
		return err
	}
	out := req.Out
	if out == "" {
		// Beside the images, where --cache finds them by file name.
		out = filepath.Join(req.Data, filepath.FromSlash(openimages.ImagesPath))
	}
	if _, err := openCache(ds, out, func(_ context.Context, i int) ([]float32, error) { return preprocessFile(ds.ImagePath(i)) }, req.Stderr); err != nil {
		return err
	}
	p := req.StartProgress("preprocessing", "images")
	err = writeCache(req.Context(), ds, out, req.Workers, func(done, total int) { p.Update(done, total) })
	p.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d preprocessed images (float32 [3 800 800] .npy, <file_name>.npy) under %s\n", ds.Len(), out)
	return nil
}
