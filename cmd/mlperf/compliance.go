package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/llama2"
)

func init() {
	handle("compliance test06", "TEST06 checks of an LLM accuracy log: first token, trailing EOS, token_count", complianceTEST06)
}

// complianceTEST06 is the log-only form `compliance test06 --log FILE
// --scenario S`; `compliance test06 <benchmark> ...` runs the test
// (compliance.Main).
func complianceTEST06(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return compliance.Main(ctx, append([]string{"test06"}, args...), stdout, stderr)
	}
	fs := flag.NewFlagSet("compliance test06", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json of the TEST06 run, or its folder (required)")
	scenario := fs.String("scenario", "", "the run's scenario (required): Offline skips the first-token check")
	out := fs.String("out", "", "folder to write TEST06/verify_accuracy.txt into (default: beside the log)")
	dtype := fs.String("dtype", "int32", "token id type: int32, int64")
	eos := fs.Int64("eos", llama2.EOS, "end-of-sequence id")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *logPath == "" || *scenario == "" {
		return usageError("--log and --scenario are required")
	}
	sc := *scenario
	if sc != "Interactive" {
		s, err := loadgen.ParseScenario(sc)
		if err != nil {
			return usageError("unknown scenario %q; want SingleStream, MultiStream, Server or Offline", sc)
		}
		sc = s.String()
	}
	if st, err := os.Stat(*logPath); err == nil && st.IsDir() {
		*logPath = filepath.Join(*logPath, "mlperf_log_accuracy.json")
	}
	if *out == "" {
		*out = filepath.Dir(*logPath)
	}
	dt, err := accuracy.ParseDType(*dtype)
	if err != nil {
		return usageError("%v", err)
	}
	return llama2.WriteTEST06(*logPath, sc, *out, dt, *eos, stdout, stderr)
}
