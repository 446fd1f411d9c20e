package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	handle("compliance", "run and verify a compliance test: compliance test01|test04|test06|test07|test09 <benchmark> --results DIR, compliance verify ..., compliance audit-config ...", complianceCmd)
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
	eos := fs.Int64("eos", compliance.TEST06DefaultEOS, "end-of-sequence id (run_verification.py's default 2)")
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
	*logPath = compliance.AccuracyLogIn(*logPath)
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
//	mlperf compliance test01|test04|test06|test07|test09 <benchmark> --results DIR [--work DIR] [run flags]
//	mlperf compliance verify test01|test04|test06 --results DIR --compliance DIR [--out DIR] [--dtype D] [--scenario S] [--eos N]
//	mlperf compliance verify test07 <benchmark> --compliance DIR --out DIR [--audit-config F] [--accuracy-threshold X] [--score-pattern RE] [run flags]
//	mlperf compliance verify test09 --compliance DIR --out DIR [--audit-config F] [--min-output-tokens X] [--max-output-tokens Y]
//	mlperf compliance audit-config test01|test04|test06|test07|test09 <benchmark>
//
// The first runs the test and verifies it into DIR/TEST0X; verify checks
// existing logs as run_verification.py (TEST07 scoring them with the
// benchmark's accuracy script); audit-config prints the file.
func complianceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const synopsis = "usage: mlperf compliance test01|test04|test06|test07|test09 <benchmark> --results DIR [flags]\n       mlperf compliance verify test01|test04|test06 --results DIR --compliance DIR [--out DIR]\n       mlperf compliance verify test07 <benchmark> --compliance DIR --out DIR [--audit-config F] [--accuracy-threshold X] [run flags]\n       mlperf compliance verify test09 --compliance DIR --out DIR [--audit-config F] [--min-output-tokens X --max-output-tokens Y]\n       mlperf compliance audit-config test01|test04|test06|test07|test09 <benchmark>"
	// usage prints the synopsis and says what is missing.
	usage := func(format string, a ...any) error {
		fmt.Fprintln(stderr, synopsis)
		return usageError("compliance: "+format, a...)
	}
	if len(args) == 0 {
		return usage("want a test (test01, test04, test06, test07 or test09), verify or audit-config")
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
		if test == "TEST07" || test == "TEST09" {
			return complianceVerify0709(ctx, test, args[2:], stdout, stderr, usage)
		}
		fs := flag.NewFlagSet("compliance verify", flag.ContinueOnError)
		fs.SetOutput(stderr)
		results := fs.String("results", "", "the submission's scenario folder (with accuracy/ and performance/run_1/)")
		comp := fs.String("compliance", "", "the compliance run's log folder")
		out := fs.String("out", "", "folder to make TEST0X/ in (default: --results)")
		dtype := fs.String("dtype", "", "TEST01: response element type byte|float32|int32|int64 (default byte); TEST06: int32|int64|... (default int32)")
		scenario := fs.String("scenario", "", "TEST06: the run's scenario")
		eos := fs.Int64("eos", compliance.TEST06DefaultEOS, "TEST06: end-of-sequence token id")
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
	case "test01", "test04", "test06", "test07", "test09":
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
		opts := complianceRunFlags(fs, b)
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
		fmt.Fprintf(stderr, "%s %s: %s in %s\n", b.Name, test, res.Verdict(), time.Since(start).Round(time.Second))
		if !res.Pass() {
			return fmt.Errorf("compliance: %s failed", test)
		}
		return nil
	}
	if strings.HasPrefix(strings.ToLower(args[0]), "test") {
		return usage("unknown compliance test %q: this suite runs test01, test04, test06, test07 and test09 (the tests the rounds' rules name for its benchmarks)", args[0])
	}
	return usage("unknown subcommand %q: want test01, test04, test06, test07, test09, verify or audit-config", args[0])
}

// complianceVerify0709 is `mlperf compliance verify test07 <benchmark>
// ...` and `mlperf compliance verify test09 ...`: run_verification.py of
// compliance/TEST07 and TEST09 on an existing compliance run's folder.
func complianceVerify0709(ctx context.Context, test string, args []string, stdout, stderr io.Writer, usage func(string, ...any) error) error {
	var b *spec.Benchmark
	if test == "TEST07" {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return usage("verify test07 wants the benchmark whose accuracy script scores the log: mlperf compliance verify test07 gpt-oss-120b --compliance DIR --out DIR")
		}
		var ok bool
		if b, ok = spec.Lookup(args[0]); !ok {
			return spec.Unknown(args[0])
		}
		args = args[1:]
	}
	fs := flag.NewFlagSet("compliance verify "+strings.ToLower(test), flag.ContinueOnError)
	fs.SetOutput(stderr)
	comp := fs.String("compliance", "", "the compliance run's log folder (mlperf_log_accuracy.json)")
	out := fs.String("out", "", "the scenario folder to make "+test+"/ in")
	audit := fs.String("audit-config", "", "audit.config with the test's thresholds (default: the one in --compliance, which mlperf compliance writes there)")
	var threshold, minT, maxT floatFlag
	pattern := ""
	var opts func() (benchmark.Options, error)
	if test == "TEST07" {
		fs.Var(&threshold, "accuracy-threshold", "the score to reach, overriding the audit.config's")
		fs.StringVar(&pattern, "score-pattern", compliance.DefaultScorePattern, "regular expression whose first group is the score in the accuracy script's output")
		opts = complianceRunFlags(fs, b)
	} else {
		fs.Var(&minT, "min-output-tokens", "lowest mean output length, overriding the audit.config's")
		fs.Var(&maxT, "max-output-tokens", "highest mean output length, overriding the audit.config's")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *comp == "" || *out == "" {
		return usage("verify %s: --compliance DIR (the run's logs) and --out DIR (the scenario folder) are required", strings.ToLower(test))
	}
	if *audit == "" {
		*audit = compliance.DefaultAuditConfig(*comp)
	}
	var res compliance.Result
	var err error
	if test == "TEST07" {
		o, oerr := opts()
		if oerr != nil {
			return oerr
		}
		o = compliance.WithTestOptions(b, test, o)
		res, err = compliance.VerifyTEST07(stdout, *comp, *out, compliance.TEST07Options{
			AuditConfig: *audit, Threshold: threshold.v, ScorePattern: pattern,
			Score: compliance.PrintoutOf(ctx, b, o, stderr), Command: "mlperf accuracy " + b.Name + " (in process)"})
	} else {
		res, err = compliance.VerifyTEST09(stdout, *comp, *out, compliance.TEST09Options{AuditConfig: *audit, Min: minT.v, Max: maxT.v})
	}
	if err != nil {
		return err
	}
	if !res.Pass() {
		return fmt.Errorf("compliance: %s failed", test)
	}
	return nil
}

// floatFlag is an optional float flag (nil when not given).
type floatFlag struct{ v *float64 }

func (f *floatFlag) String() string {
	if f.v == nil {
		return ""
	}
	return fmt.Sprint(*f.v)
}

func (f *floatFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %q", s)
	}
	f.v = &v
	return nil
}

// complianceRunFlags registers on fs the flags that choose how a benchmark runs
// (model, data, engine, confs, scenario), with b's defaults; the returned
// func builds the benchmark.Options. It is for commands that run a
// benchmark on the user's behalf (compliance, submission); mode and output
// folder are theirs to set.
func complianceRunFlags(fs *flag.FlagSet, b *spec.Benchmark) func() (benchmark.Options, error) {
	o := benchmark.Options{}
	scenario := "Offline"
	fs.StringVar(&scenario, "scenario", scenario, "LoadGen scenario: SingleStream, MultiStream, Server or Offline")
	fs.StringVar(&o.Model, "model", b.Model.Default, "model file (.onnx), or synthetic or synthetic:SIZE")
	fs.StringVar(&o.ModelName, "model-name", b.ConfNames[0], "model name in mlperf.conf / user.conf: "+strings.Join(b.ConfNames, ", "))
	fs.StringVar(&o.Data, "data", "synthetic", "data set folder or file, or synthetic")
	fs.StringVar(&o.Backend, "backend", "cpu", "execution provider ("+strings.Join(benchmark.Backends, ", ")+") or remote engine: kserve, openai or sglang (with --endpoint)")
	remoteFlags(fs, &o)
	fs.IntVar(&o.Device, "device", 0, "GPU id for cuda / tensorrt")
	fs.IntVar(&o.Threads, "threads", 0, "inference engine threads (0: all cores)")
	fs.IntVar(&o.Workers, "workers", 0, "concurrent inference calls (0: the backend's default)")
	fs.IntVar(&o.Batch, "batch", 0, "most samples per inference call (0: the scenario's default)")
	fs.StringVar(&o.UserConf, "user-conf", "", "user.conf with this system's settings")
	fs.IntVar(&o.Count, "count", 0, "use only the first N samples of the data set (0: all)")
	fs.DurationVar(&o.Duration, "duration", 0, "minimum run duration, overriding min_duration (0: keep)")
	fs.IntVar(&o.MinQueries, "min-queries", 0, "minimum query count, overriding min_query_count (0: keep)")
	fs.Float64Var(&o.QPS, "qps", 0, "Server target qps / Offline expected qps (0: keep)")
	extra := registerOptions(fs, b.Options)
	return func() (benchmark.Options, error) {
		sc, err := loadgen.ParseScenario(scenario)
		if err != nil {
			return o, err
		}
		o.Scenario, o.Extra = sc, extra()
		return o, nil
	}
}
