package main

// mlperf parity: one model on two execution providers (by default the one
// under test against the CPU), each output's largest absolute and relative
// difference against a stated tolerance, and each side's time per run; or
// ONNX's backend test data on one provider against its reference outputs.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/conformance"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/parity"
)

func init() {
	handle("parity", "one model on two execution providers: per-output max abs/rel differences within a tolerance, and time per run: parity --model FILE|DIR --backend cuda [--against cpu]; or --onnx-testdata DIR", parityCmd)
}

// keyValues is a repeatable KEY=VALUE flag.
type keyValues map[string]string

func (kv keyValues) String() string {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k+"="+kv[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (kv keyValues) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	kv[k] = v
	return nil
}

type parityFlags struct {
	models      []string
	testData    string
	backend     string
	against     string
	device      int
	epOptions   keyValues
	atol, rtol  float64
	dim         int64
	shapes      map[string][]int64
	seed        uint64
	runs        int
	threads     int
	workers     int
	failMissing bool
}

func parityCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := parityFlags{epOptions: keyValues{}, shapes: map[string][]int64{}}
	fset := flag.NewFlagSet("parity", flag.ContinueOnError)
	fset.Func("model", "model file (.onnx), or a folder: every .onnx under it (repeatable)", func(s string) error { f.models = append(f.models, s); return nil })
	fset.StringVar(&f.testData, "onnx-testdata", "", "instead of --model: ONNX's backend test data (e.g. /usr/share/libonnx-testdata/data), each graph on --backend against its reference outputs, and on --against too when given")
	fset.StringVar(&f.backend, "backend", "cuda", "execution provider under test: "+strings.Join(ort.Providers, ", "))
	fset.StringVar(&f.against, "against", "cpu", "reference execution provider (with --onnx-testdata: also run on it; \"\" for none)")
	fset.IntVar(&f.device, "device", 0, "GPU id for cuda / tensorrt")
	fset.Var(f.epOptions, "ep-option", "KEY=VALUE for the cuda or tensorrt provider of --backend (repeatable), e.g. use_tf32=0, gpu_mem_limit=BYTES, arena_extend_strategy=kSameAsRequested")
	fset.Float64Var(&f.atol, "atol", 1e-4, "absolute tolerance: |got-want| <= atol + rtol*|want|")
	fset.Float64Var(&f.rtol, "rtol", 1e-3, "relative tolerance")
	fset.Int64Var(&f.dim, "dim", 1, "size given to every dynamic dimension of the inputs (batch, sequence)")
	fset.Func("shape", "NAME=D,D,...: the shape of input NAME in every model that has one (repeatable; other dynamic dimensions take --dim)", func(s string) error {
		name, dims, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return fmt.Errorf("want NAME=D,D,..., got %q", s)
		}
		var shape []int64
		for _, d := range strings.Split(dims, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64)
			if err != nil || v < 0 {
				return fmt.Errorf("%q: dimension %q is not a whole number", s, d)
			}
			shape = append(shape, v)
		}
		f.shapes[name] = shape
		return nil
	})
	fset.Uint64Var(&f.seed, "seed", 1, "seed of the generated inputs (floats uniform in [-1,1), integers 0 or 1, masks 1)")
	fset.IntVar(&f.runs, "runs", 3, "timed runs per provider after one warm-up; the median is reported (0: no timing)")
	fset.IntVar(&f.threads, "threads", 0, "CPU provider intra-op threads (0: all cores)")
	fset.IntVar(&f.workers, "workers", 0, "with --onnx-testdata: graphs run at once (0: 2)")
	fset.BoolVar(&f.failMissing, "fail-unavailable", true, "exit status 1 when a model cannot be opened on a provider")
	if err := parse(fset, args, stdout); err != nil {
		return err
	}
	for _, p := range []*string{&f.backend, &f.against} {
		if *p == "" && p == &f.against {
			continue
		}
		v, err := ort.ParseProvider(*p)
		if err != nil {
			return usageError("%v", err)
		}
		*p = v
	}
	switch {
	case f.atol < 0 || f.rtol < 0:
		return usageError("--atol and --rtol must be at least 0")
	case f.dim < 1:
		return usageError("--dim must be at least 1")
	case f.runs < 0 || f.threads < 0 || f.workers < 0:
		return usageError("--runs, --threads and --workers must be at least 0")
	case (len(f.models) == 0) == (f.testData == ""):
		return usageError("give --model FILE|DIR (repeatable) or --onnx-testdata DIR")
	case len(f.epOptions) > 0 && f.backend == ort.CPU:
		return usageError("--ep-option is for --backend cuda or tensorrt")
	}
	tol := parity.Tolerance{Abs: f.atol, Rel: f.rtol}
	if f.testData != "" {
		return parityTestData(ctx, f, tol, stdout)
	}
	var files []string
	for _, m := range f.models {
		fs, err := parity.ONNXFiles(m)
		if pe := (*iofs.PathError)(nil); errors.As(err, &pe) && pe.Op == "stat" && pe.Path == m {
			return usageError("--model %v", err)
		}
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	check := f.modelCheck(tol)
	failed := 0
	for _, file := range files {
		ok, err := check.CheckModel(ctx, file, stdout)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: %v\nUNAVAILABLE\n\n", file, err)
			if f.failMissing {
				failed++
			}
			continue
		}
		if !ok {
			failed++
		}
	}
	fmt.Fprintf(stdout, "parity: %d of %d models within %v\n", len(files)-failed, len(files), tol)
	if failed > 0 {
		return fmt.Errorf("%d of %d models not within the tolerance or not available", failed, len(files))
	}
	return nil
}

func (f *parityFlags) options(prov string) ort.Options {
	o := ort.Options{Provider: prov, DeviceID: f.device, IntraOpThreads: f.threads}
	if prov == f.backend && prov != ort.CPU && len(f.epOptions) > 0 {
		o.ProviderOptions = f.epOptions
	}
	return o
}

// modelCheck is the comparison of --model files the flags ask for.
func (f *parityFlags) modelCheck(tol parity.Tolerance) parity.ModelCheck {
	open := func(prov string) func(string) (backend.Session, error) {
		return func(file string) (backend.Session, error) { return ort.Open(file, f.options(prov)) }
	}
	return parity.ModelCheck{Ref: f.against, Test: f.backend, OpenRef: open(f.against), OpenTest: open(f.backend),
		Seed: f.seed, Dim: f.dim, Shapes: f.shapes, Tol: tol, Runs: f.runs}
}

// parityTestData runs ONNX's backend test data on --backend (and
// --against) and prints each provider's counts and the cases whose status
// differs between them.
func parityTestData(ctx context.Context, f parityFlags, tol parity.Tolerance, w io.Writer) error {
	run := func(prov string) ([]conformance.Case, error) {
		o := f.options(prov)
		o.IntraOpThreads = 1
		return conformance.Run(ctx, conformance.Config{
			Dir: f.testData, Workers: max(f.workers, 2), Tol: tol, NoScalars: true,
			Open: func(p string) (backend.Session, error) { return ort.Open(p, o) },
		})
	}
	// Fail at once with the provider's own message when it cannot start,
	// rather than with a no-load case per graph.
	if err := ort.Ready(f.backend); err != nil {
		return err
	}
	test, err := run(f.backend)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: ONNX backend test data on %s, tolerance %v\n", f.testData, f.backend, tol)
	conformance.WriteSummary(w, test)
	if f.against == "" {
		return nil
	}
	ref, err := run(f.against)
	if err != nil {
		return err
	}
	if conformance.WriteComparison(w, f.backend, test, f.against, ref) > 0 {
		return errors.New("parity: the providers disagree on some ONNX test cases")
	}
	return nil
}
