package main

// model convert: a benchmark's official weights into this suite's model
// files.

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/benchmark/spec"
)

func init() {
	handle("model convert", "convert a benchmark's official weights to this suite's model files: model convert <benchmark> --snapshot DIR -o OUT", modelConvertCmd)
}

func modelConvertCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, args, err := benchmarkArg("model convert", args)
	if err != nil {
		return err
	}
	conv, ok := b.Driver.(spec.ModelConverter)
	if !ok {
		return usageError("%s: no converter: its official model runs as published (see %s/download_model.sh)", b.Name, b.Folder())
	}
	fs := flag.NewFlagSet("model convert "+b.Name, flag.ContinueOnError)
	src := fs.String("snapshot", "", "the official weights (e.g. a torchsnapshot folder) (required)")
	out := fs.String("o", "", "output folder (required)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *src == "" || *out == "" {
		return usageError("--snapshot DIR and -o OUT are required")
	}
	if err := conv.ConvertModel(ctx, *src, *out, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the %s model converted from %s to %s\n", b.Name, *src, *out)
	return nil
}
