package resnet50

// The imagenet data set's commands: mlperf dataset synth|verify|preprocess
// imagenet.

import (
	"context"
	"fmt"
	"time"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/imagenet"
)

// imagenetDataset is the ImageNet 2012 validation set's commands: synth, verify
// and preprocess (the reference's preprocessed .npy cache).
var imagenetDataset = &spec.Dataset{
	Name:       "imagenet",
	DataWant:   "the ImageNet validation folder (val_map.txt and the JPEG files it lists)",
	Download:   "datasets/imagenet/download_dataset.sh",
	Summary:    "ImageNet 2012 validation (50000 JPEGs and val_map.txt)",
	Synth:      synthImagenet,
	Verify:     verifyImagenet,
	Preprocess: preprocessImagenet,
}

func synthImagenet(req *spec.DatasetRequest) error {
	n, seed := req.N, req.Seed
	if n == 0 {
		n = synthSamples
	}
	if seed == 0 {
		seed = synthSeed
	}
	if err := imagenet.Synth(req.Out, imagenet.SynthConfig{N: n, Seed: seed}); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %d synthetic ImageNet images and %s to %s\n", n, imagenet.ValMapName, req.Out)
	return nil
}

// verifyImagenet checks that every listed image is present and unchanged;
// -n is the expected number of listed images (default: the full 50000).
func verifyImagenet(req *spec.DatasetRequest) error {
	expect := imagenet.Size
	if req.NSet {
		expect = req.N
	}
	r, err := imagenet.Verify(req.Data)
	if err != nil {
		return err
	}
	w := req.Stdout
	fmt.Fprint(w, r.String())
	for i, m := range r.Missing {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more missing\n", len(r.Missing)-10)
			break
		}
		fmt.Fprintf(w, "  missing: %s\n", m)
	}
	for i, m := range r.Mismatched {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more damaged\n", len(r.Mismatched)-10)
			break
		}
		fmt.Fprintf(w, "  checksum differs: %s\n", m)
	}
	if !r.OK(expect) {
		if expect > 0 && r.Listed != expect {
			return fmt.Errorf("imagenet: %s lists %d images, want %d (-n 0 accepts any count)", imagenet.ValMapName, r.Listed, expect)
		}
		return fmt.Errorf("imagenet: data set in %s is incomplete or damaged", req.Data)
	}
	fmt.Fprintln(w, "OK")
	return nil
}

// preprocessImagenet writes every image's preprocessed tensor once as
// <image path>.npy under -o (default: beside the images); --count limits it to
// the first N listed images.
func preprocessImagenet(req *spec.DatasetRequest) error {
	out := req.Out
	if out == "" {
		out = defaultCacheDir(req.Data)
	}
	ds, err := openDataset(dataConfig{Dir: req.Data, Count: req.Count, Warn: req.Stderr})
	if err != nil {
		return err
	}
	if _, err := openCache(ds, dataConfig{Dir: req.Data, CacheDir: out, Warn: req.Stderr}, func(_ context.Context, i int) ([]float32, error) {
		return Preprocess(ds.ImagePath(i))
	}); err != nil {
		return err
	}
	start := time.Now()
	p := req.StartProgress("preprocess", "images")
	err = writeCache(req.Context(), ds, out, req.Workers, p.Update)
	p.Done()
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(req.Stdout, "preprocessed %d images into %s in %.1fs (%.1f images/s)\n", ds.Len(), out, el.Seconds(), float64(ds.Len())/el.Seconds())
	return nil
}
