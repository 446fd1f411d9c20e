package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/models/resnet50"
)

func init() {
	handle("dataset synth imagenet", "write N generated JPEGs and a val_map.txt in the ImageNet layout", datasetSynthImagenet)
	handle("dataset verify imagenet", "check an ImageNet folder: every listed image present, MD5s unchanged", datasetVerifyImagenet)
	handle("dataset preprocess imagenet", "preprocess every image once into <image path>.npy (the reference's cache)", datasetPreprocessImagenet)
}

func datasetSynthImagenet(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("dataset synth imagenet", flag.ContinueOnError)
	out := fs.String("o", "", "output folder (required)")
	n := fs.Int("n", resnet50.SynthSamples, "number of images")
	seed := fs.Uint64("seed", resnet50.SynthSeed, "content seed (same n and seed, same bytes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o DIR is required")
	}
	if err := imagenet.Synth(*out, imagenet.SynthConfig{N: *n, Seed: *seed}); err != nil {
		return err
	}
	fmt.Printf("wrote %d synthetic ImageNet images and %s to %s\n", *n, imagenet.ValMapName, *out)
	return nil
}

func datasetVerifyImagenet(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("dataset verify imagenet", flag.ContinueOnError)
	data := fs.String("data", "", "data set folder holding val_map.txt (required)")
	expect := fs.Int("n", imagenet.Size, "expected number of listed images (0: any)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError("--data DIR is required")
	}
	r, err := imagenet.Verify(*data)
	if err != nil {
		return err
	}
	fmt.Print(r.String())
	for i, m := range r.Missing {
		if i == 10 {
			fmt.Printf("  ... and %d more missing\n", len(r.Missing)-10)
			break
		}
		fmt.Printf("  missing: %s\n", m)
	}
	for i, m := range r.Mismatched {
		if i == 10 {
			fmt.Printf("  ... and %d more damaged\n", len(r.Mismatched)-10)
			break
		}
		fmt.Printf("  checksum differs: %s\n", m)
	}
	if !r.OK(*expect) {
		if *expect > 0 && r.Listed != *expect {
			return fmt.Errorf("%s lists %d images, want %d (-n 0 accepts any count)", imagenet.ValMapName, r.Listed, *expect)
		}
		return fmt.Errorf("data set in %s is incomplete or damaged", *data)
	}
	fmt.Println("OK")
	return nil
}

func datasetPreprocessImagenet(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("dataset preprocess imagenet", flag.ContinueOnError)
	data := fs.String("data", "", "data set folder holding val_map.txt (required)")
	out := fs.String("o", "", "cache folder for <image path>.npy (default: the data set folder)")
	count := fs.Int("count", 0, "only the first N listed images (0: all)")
	workers := fs.Int("workers", 0, "images preprocessed in parallel (0: all cores)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError("--data DIR is required")
	}
	if *out == "" {
		*out = resnet50.DefaultCacheDir(*data)
	}
	ds, err := resnet50.OpenDataset(resnet50.DataConfig{Dir: *data, Count: *count})
	if err != nil {
		return err
	}
	start := time.Now()
	p := newProgress(os.Stderr, "preprocess", "images")
	err = resnet50.WriteCache(ctx, ds, *out, *workers, p.update)
	p.done()
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Printf("preprocessed %d images into %s in %.1fs (%.1f images/s)\n", ds.Len(), *out, el.Seconds(), float64(ds.Len())/el.Seconds())
	return nil
}
