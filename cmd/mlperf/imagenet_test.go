package main

import (
	"bytes"
	"flag"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

func TestDatasetImagenetCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "imagenet")
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := runMain(args, &out, &errb)
		return code, errb.String()
	}
	if code, e := run("dataset", "synth", "imagenet", "-o", dir, "-n", "3"); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "verify", "imagenet", "--data", dir, "-n", "3"); code != 0 {
		t.Fatalf("verify: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "verify", "imagenet", "--data", dir); code != 1 || !strings.Contains(e, "want 50000") {
		t.Fatalf("verify with the default count: exit %d: %s", code, e)
	}
	os.Remove(filepath.Join(dir, "ILSVRC2012_val_00000002.JPEG"))
	if code, e := run("dataset", "verify", "imagenet", "--data", dir, "-n", "3"); code != 1 || !strings.Contains(e, "incomplete") {
		t.Fatalf("verify with a missing image: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "verify", "imagenet"); code != 2 || !strings.Contains(e, "--data") {
		t.Fatalf("verify without --data: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "synth", "imagenet", "-o", dir, "-bogus"); code != 2 {
		t.Fatalf("bad flag: exit %d: %s", code, e)
	}
	if !libjpeg.Available() {
		return
	}
	cache := filepath.Join(t.TempDir(), "cache")
	if code, e := run("dataset", "preprocess", "imagenet", "--data", dir, "-o", cache); code != 0 {
		t.Fatalf("preprocess: exit %d: %s", code, e)
	}
	for _, n := range []string{"ILSVRC2012_val_00000001.JPEG.npy", "ILSVRC2012_val_00000003.JPEG.npy"} {
		if st, err := os.Stat(filepath.Join(cache, n)); err != nil || st.Size() != 3*224*224*4+128 {
			t.Fatalf("%s: %v", n, err)
		}
	}
}

// The run flags parse into typed Options once (scenario and mode through
// loadgen's parsers) and are checked against the benchmark.
func TestRunFlagsParseAndValidate(t *testing.T) {
	b, ok := spec.Lookup("resnet50")
	if !ok {
		t.Fatal("resnet50 is not registered")
	}
	check := func(args ...string) (benchmark.Options, error) {
		fs := flag.NewFlagSet("run resnet50", flag.ContinueOnError)
		opts := benchFlags(fs, b, true)
		if err := parse(fs, args, io.Discard); err != nil {
			return benchmark.Options{}, err
		}
		o, err := opts()
		if err == nil {
			err = o.Validate(b)
		}
		return o, err
	}
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"defaults", nil, ""},
		{"lower-case scenario", []string{"--scenario", "single-stream"}, ""},
		{"unknown scenario", []string{"--scenario", "batch"}, "unknown scenario"},
		{"unknown mode", []string{"--mode", "fast"}, "unknown mode"},
		{"unknown backend", []string{"--backend", "rocm"}, `unknown backend "rocm"`},
		{"negative batch", []string{"--batch", "-1"}, "--batch -1"},
		{"no model", []string{"--model", ""}, "--model is required"},
		{"unknown model-name", []string{"--model-name", "bert"}, "--model-name"},
		{"missing user.conf", []string{"--user-conf", "/nonexistent/user.conf"}, "file not found"},
		{"endpoint without a remote backend", []string{"--endpoint", "127.0.0.1:8000"}, "--endpoint needs --backend kserve, openai or sglang"},
		{"remote backend without an endpoint", []string{"--backend", "kserve"}, "needs --endpoint"},
		{"openai with two endpoints", []string{"--backend", "openai", "--endpoint", "a:1", "--endpoint", "b:2"}, "takes one --endpoint"},
		{"unknown protocol", []string{"--backend", "kserve", "--endpoint", "a:1", "--protocol", "smtp"}, `unknown --protocol "smtp" (want one of http, grpc)`},
		{"protocol without kserve", []string{"--protocol", "grpc"}, "--protocol grpc needs --backend kserve"},
		{"protocol with openai", []string{"--backend", "openai", "--endpoint", "a:1", "--protocol", "grpc"}, "--protocol grpc needs --backend kserve"},
		{"grpc protocol", []string{"--backend", "kserve", "--endpoint", "a:1", "--protocol", "grpc"}, ""},
		{"empty api key variable", []string{"--backend", "openai", "--endpoint", "a:1", "--api-key-env", "MLPERF_TEST_NO_SUCH_VARIABLE"}, "is empty"},
		{"api key with kserve", []string{"--backend", "kserve", "--endpoint", "a:1", "--api-key-env", "HOME"}, "--api-key-env is sent only by --backend openai"},
	} {
		_, err := check(tc.args...)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !isUsage(err) {
			t.Errorf("%s: err %v, want a usage error with %q", tc.name, err, tc.err)
		}
	}
	o, err := check("--scenario", "singlestream", "--backend", "CUDA", "--mode", "acc")
	if err != nil || o.Scenario != loadgen.SingleStream || o.Mode != loadgen.AccuracyOnly || o.Backend != "cuda" || o.Workers != 2 || o.Batch != 1 {
		t.Fatalf("normalised %+v, %v", o, err)
	}
	o, err = check("--backend", "kserve", "--endpoint", "a:1", "--endpoint", "http://b:2", "--served-model", "rn50", "--model", "")
	if err != nil || !slices.Equal(o.Endpoints, []string{"a:1", "http://b:2"}) || o.ServedModel != "rn50" || !o.Remote() {
		t.Fatalf("remote options %+v, %v", o, err)
	}
	if o, _ := check(); o.Batch != 8 || o.ModelName != "resnet50" || o.Out != filepath.Join("out", "resnet50") {
		t.Fatalf("defaults %+v", o)
	}
}
