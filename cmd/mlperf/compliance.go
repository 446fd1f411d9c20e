package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/llama2"
)

func init() {
	handle("compliance", "run and verify a compliance test: compliance test01|test04|test06 <benchmark> --results DIR, compliance verify ..., compliance audit-config ...", complianceCmd)
	handle("compliance test06", "TEST06 checks of an LLM accuracy log: first token, trailing EOS, token_count", complianceTEST06)
}

// complianceTEST06 is the log-only form `compliance test06 --log FILE
// --scenario S`; `compliance test06 <benchmark> ...` runs the test
// (complianceCmd).
func complianceTEST06(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return complianceCmd(ctx, append([]string{"test06"}, args...), stdout, stderr)
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
	return llmbench.WriteTEST06(*logPath, sc, *out, dt, *eos, stdout, stderr)
}

// complianceCmd is `mlperf compliance`:
//
//	mlperf compliance test01|test04|test06 <benchmark> --results DIR [--work DIR] [run flags]
//	mlperf compliance verify test01|test04|test06 --results DIR --compliance DIR [--out DIR] [--dtype D] [--scenario S] [--eos N]
//	mlperf compliance audit-config test01|test04|test06 <benchmark>
//
// The first runs the test and verifies it into DIR/TEST0X; verify checks
// existing logs as run_verification.py; audit-config prints the file.
func complianceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const synopsis = "usage: mlperf compliance test01|test04|test06 <benchmark> --results DIR [flags]\n       mlperf compliance verify test01|test04|test06 --results DIR --compliance DIR [--out DIR]\n       mlperf compliance audit-config test01|test04|test06 <benchmark>"
	// usage prints the synopsis and says what is missing.
	usage := func(format string, a ...any) error {
		fmt.Fprintln(stderr, synopsis)
		return usageError("compliance: "+format, a...)
	}
	if len(args) == 0 {
		return usage("want a test (test01, test04 or test06), verify or audit-config")
	}
	switch strings.ToLower(args[0]) {
	case "audit-config":
		if len(args) < 3 {
			return usage("audit-config wants a test and a benchmark: mlperf compliance audit-config test01 resnet50")
		}
		name := args[2]
		if b, ok := spec.Lookup(name); ok {
			name = compliance.RefName(b, b.ConfNames[0])
		}
		s, err := compliance.AuditConfig(args[1], name)
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, s)
		return nil
	case "verify":
		if len(args) < 2 {
			return usage("verify wants a test: mlperf compliance verify test01 --results DIR --compliance DIR")
		}
		test := strings.ToUpper(args[1])
		fs := flag.NewFlagSet("compliance verify", flag.ContinueOnError)
		fs.SetOutput(stderr)
		results := fs.String("results", "", "the submission's scenario folder (with accuracy/ and performance/run_1/)")
		comp := fs.String("compliance", "", "the compliance run's log folder")
		out := fs.String("out", "", "folder to make TEST0X/ in (default: --results)")
		dtype := fs.String("dtype", "", "TEST01: response element type byte|float32|int32|int64 (default byte); TEST06: int32|int64|... (default int32)")
		scenario := fs.String("scenario", "", "TEST06: the run's scenario")
		eos := fs.Int64("eos", 2, "TEST06: end-of-sequence token id")
		if err := fs.Parse(args[2:]); err != nil {
			return err
		}
		if *results == "" && test != "TEST06" {
			return usage("verify %s: --results DIR is required (the submission's scenario folder, with accuracy/ and performance/run_1/)", test)
		}
		if *comp == "" {
			return usage("verify %s: --compliance DIR is required (the compliance run's log folder)", test)
		}
		if *out == "" {
			*out = *results
		}
		res, err := compliance.Verify(stdout, test, *results, *comp, *out, *dtype, *scenario, *eos)
		if err != nil {
			return err
		}
		if !res.Pass() {
			return fmt.Errorf("compliance: %s failed", test)
		}
		return nil
	case "test01", "test04", "test06":
		if len(args) < 2 {
			return usage("%s wants a benchmark: mlperf compliance %s resnet50 --results DIR", args[0], args[0])
		}
		b, ok := spec.Lookup(args[1])
		if !ok {
			return spec.Unknown(args[1])
		}
		test := strings.ToUpper(args[0])
		if !slices.ContainsFunc(b.Compliance, func(c string) bool { return strings.EqualFold(c, test) }) {
			fmt.Fprintf(stderr, "compliance: note: %s does not list %s among its compliance tests (%s)\n", b.Name, test, strings.Join(b.Compliance, ", "))
		}
		fs := flag.NewFlagSet("compliance "+args[0], flag.ContinueOnError)
		fs.SetOutput(stderr)
		results := fs.String("results", "", "the submission's scenario folder (accuracy/ and performance/run_1/ from earlier runs); TEST0X/ is made in it")
		work := fs.String("work", "", "folder for the compliance run's logs (default: a new folder in the system's temporary folder; TEST0X/ gets copies of what the checker reads)")
		opts := compliance.RunFlags(fs, b)
		if err := fs.Parse(args[2:]); err != nil {
			return err
		}
		if *results == "" {
			return usage("%s %s: --results DIR is required: the submission's scenario folder holding accuracy/ and performance/run_1/ of earlier runs (e.g. results/SYSTEM/%s/Offline); TEST0X/ is made in it", args[0], b.Name, b.Name)
		}
		o, err := opts()
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := compliance.Run(ctx, b, test, o, *results, *work, stdout, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s %s: %s in %s\n", b.Name, test, passText(res.Pass()), time.Since(start).Round(time.Second))
		if !res.Pass() {
			return fmt.Errorf("compliance: %s failed", test)
		}
		return nil
	}
	if strings.HasPrefix(strings.ToLower(args[0]), "test") {
		return usage("unknown compliance test %q: this suite runs test01, test04 and test06 (the tests the rounds' rules name for its benchmarks)", args[0])
	}
	return usage("unknown subcommand %q: want test01, test04, test06, verify or audit-config", args[0])
}

func passText(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
