package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/models/gptj"
	"github.com/mlperf-go/inference/models/llama2"
	"github.com/mlperf-go/inference/onnx"
)

func init() {
	handle("model build llama2", "write a synthetic Llama 2 decoder (optimum I/O with KV cache, seeded weights; 70b, 7b or tiny)", modelBuildLlama2)
	handle("model build gptj", "write a synthetic GPT-J 6B decoder (optimum I/O with KV cache, seeded weights; full or tiny)", modelBuildGPTJ)
}

func llmSizeNames[C any](m map[string]C) string {
	n := make([]string, 0, len(m))
	for k := range m {
		n = append(n, k)
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}

func modelBuildLlama2(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("model build llama2", flag.ContinueOnError)
	size := fs.String("size", llama2.SizeTiny, "model size: "+llmSizeNames(llama2.Configs))
	out := fs.String("o", "", "output .onnx file (required); weights go to FILE.data when over 2 GiB")
	seed := fs.Uint64("seed", llama2.ArchSeed, "weight seed (same size and seed, same bytes)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	c, ok := llama2.Configs[*size]
	if !ok {
		return usageError("--size %q: want one of %s", *size, llmSizeNames(llama2.Configs))
	}
	if err := llama2.BuildConfigFile(*out, c, *seed); err != nil {
		return err
	}
	return reportBuilt("Llama 2", *size, *seed, *out, c.Params())
}

func modelBuildGPTJ(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("model build gptj", flag.ContinueOnError)
	size := fs.String("size", gptj.SizeTiny, "model size: "+llmSizeNames(gptj.Configs))
	out := fs.String("o", "", "output .onnx file (required); weights go to FILE.data when over 2 GiB")
	seed := fs.Uint64("seed", gptj.ArchSeed, "weight seed (same size and seed, same bytes)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	c, ok := gptj.Configs[*size]
	if !ok {
		return usageError("--size %q: want one of %s", *size, llmSizeNames(gptj.Configs))
	}
	if err := gptj.BuildConfigFile(*out, c, *seed); err != nil {
		return err
	}
	return reportBuilt("GPT-J", *size, *seed, *out, c.Params())
}

func reportBuilt(model, size string, seed uint64, out string, params int64) error {
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	bytes := st.Size()
	extra := ""
	if d, err := os.Stat(onnx.DataPath(out)); err == nil {
		bytes += d.Size()
		extra = " + " + onnx.DataPath(out)
	}
	fmt.Printf("wrote the synthetic %s (%s, %d parameters, seed %d) to %s%s, %.1f MB\n", model, size, params, seed, out, extra, float64(bytes)/1e6)
	return nil
}
