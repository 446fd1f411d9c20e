package benchmark

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/remote/openai"
)

// Generates reports whether b's model is a text generator that `mlperf
// serve` serves over /v1/completions (spec.GeneratorOpener).
func Generates(b *spec.Benchmark) bool {
	_, ok := b.Driver.(spec.GeneratorOpener)
	return ok
}

// OpenGenerator opens b's model at path (synthetic size size, "" for a
// file) as a text generator with o's engine settings, --batch and Extra,
// for `mlperf serve`. The returned func releases it once the requests in
// flight are done.
func OpenGenerator(ctx context.Context, b *spec.Benchmark, o Options, path, size string, stdout, stderr io.Writer) (openai.Generator, func() error, error) {
	g, ok := b.Driver.(spec.GeneratorOpener)
	if !ok {
		return nil, nil, fmt.Errorf("%s: the model is not a text generator", b.Name)
	}
	if stdout == nil {
		stdout = io.Discard
	}
	s := &setup{b: b, o: o, modelPath: path, synthSize: size, cacheDir: CacheDir(), stdout: stdout, stderr: serialize(stderr)}
	s.engine = &engine{s: s}
	return g.OpenGenerator(ctx, s.openRequest())
}
