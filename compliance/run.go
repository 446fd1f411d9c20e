package compliance

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
)

// RunFlags registers on fs the flags that choose how a benchmark runs
// (model, data, engine, confs, scenario), with b's defaults; the returned
// func builds the benchmark.Options. It is for commands that run a
// benchmark on the user's behalf (compliance, submission); mode and output
// folder are theirs to set.
func RunFlags(fs *flag.FlagSet, b *spec.Benchmark) func() (benchmark.Options, error) {
	o := benchmark.Options{}
	scenario := "Offline"
	fs.StringVar(&scenario, "scenario", scenario, "LoadGen scenario: SingleStream, MultiStream, Server or Offline")
	fs.StringVar(&o.Model, "model", b.Model.Default, "model file (.onnx), or synthetic or synthetic:SIZE")
	fs.StringVar(&o.ModelName, "model-name", b.ConfNames[0], "model name in mlperf.conf / user.conf: "+strings.Join(b.ConfNames, ", "))
	fs.StringVar(&o.Data, "data", "synthetic", "data set folder or file, or synthetic")
	fs.StringVar(&o.Backend, "backend", "cpu", "execution provider: "+strings.Join(benchmark.Backends, ", "))
	fs.IntVar(&o.Device, "device", 0, "GPU id for cuda / tensorrt")
	fs.IntVar(&o.Threads, "threads", 0, "inference engine threads (0: all cores)")
	fs.IntVar(&o.Workers, "workers", 0, "concurrent inference calls (0: the backend's default)")
	fs.IntVar(&o.Batch, "batch", 0, "most samples per inference call (0: the scenario's default)")
	fs.StringVar(&o.UserConf, "user-conf", "", "user.conf with this system's settings")
	fs.IntVar(&o.Count, "count", 0, "use only the first N samples of the data set (0: all)")
	fs.DurationVar(&o.Duration, "duration", 0, "minimum run duration, overriding min_duration (0: keep)")
	fs.IntVar(&o.MinQueries, "min-queries", 0, "minimum query count, overriding min_query_count (0: keep)")
	fs.Float64Var(&o.QPS, "qps", 0, "Server target qps / Offline expected qps (0: keep)")
	vals := map[string]flag.Getter{}
	for _, opt := range b.Options {
		if opt.Bool {
			fs.Bool(opt.Name, opt.Default == "true", opt.Usage)
		} else {
			fs.String(opt.Name, opt.Default, opt.Usage)
		}
		vals[opt.Name] = fs.Lookup(opt.Name).Value.(flag.Getter)
	}
	return func() (benchmark.Options, error) {
		sc, err := loadgen.ParseScenario(scenario)
		if err != nil {
			return o, err
		}
		o.Scenario = sc
		o.Extra = spec.Extra{}
		for k, v := range vals {
			o.Extra[k] = v.String()
		}
		return o, nil
	}
}

// Run runs test for benchmark b with the options o: it writes the test's
// audit.config into work, runs the benchmark in performance mode there
// with it (LoadGen applies its "*" lines), and verifies the run against
// the submission's scenario folder results as run_verification.py does,
// making results/TEST0X. TEST06 runs the scenario of o. With work ""
// the logs go to a new folder in the system's temporary folder, named on
// stderr (not beside results: inside a results tree the checker would
// take a sibling folder for an unknown scenario).
//
// A results path that is not a folder is refused before the run, which
// takes minutes.
func Run(ctx context.Context, b *spec.Benchmark, test string, o benchmark.Options, results, work string, stdout, stderr io.Writer) (Result, error) {
	test = strings.ToUpper(test)
	if st, err := os.Stat(results); err != nil || !st.IsDir() {
		return Result{Test: test}, fmt.Errorf("compliance: --results %s is not a folder; give the submission's scenario folder, with accuracy/ and performance/run_1/ from earlier runs (mlperf submission writes them)", results)
	}
	if work == "" {
		d, err := os.MkdirTemp("", "mlperf-"+b.Name+"-"+test+"-")
		if err != nil {
			return Result{Test: test}, fmt.Errorf("compliance: %w", err)
		}
		work = d
		fmt.Fprintf(stderr, "compliance: %s run logs in %s\n", test, d)
	}
	if err := RunTest(ctx, b, test, o, work, stderr); err != nil {
		return Result{Test: test}, err
	}
	dtype := ""
	if test == "TEST06" {
		dtype = TEST06DType(b)
	}
	res, err := Verify(stdout, test, results, work, results, dtype, o.Scenario.String(), b.EOS)
	if err == nil && test == "TEST01" && !res.AccuracyPass {
		fmt.Fprintln(stderr, "compliance: TEST01's accuracy check failed; scoring the baseline and compliance logs (Part III)")
		if err := Fallback(filepath.Join(results, "TEST01"), filepath.Join(results, "accuracy", "mlperf_log_accuracy.json"), ScorerOf(ctx, b, o, stderr)); err != nil {
			return res, err
		}
	}
	return res, err
}

// ScorerOf scores accuracy logs as a run of b with the options o scores
// its own (benchmark.ScoreRun).
func ScorerOf(ctx context.Context, b *spec.Benchmark, o benchmark.Options, stderr io.Writer) Scorer {
	return func(log string) ([]string, error) {
		sc, err := benchmark.ScoreRun(ctx, b, o, log, stderr)
		if err != nil {
			return nil, err
		}
		return sc.Lines, nil
	}
}

// RunTest runs test's compliance run of b with the options o: it writes
// the test's audit.config into work and runs the benchmark in performance
// mode with it, its logs in work.
func RunTest(ctx context.Context, b *spec.Benchmark, test string, o benchmark.Options, work string, stderr io.Writer) error {
	test = strings.ToUpper(test)
	name := o.ModelName
	if name == "" {
		name = b.ConfNames[0]
	}
	audit, err := AuditConfig(test, RefName(b, name))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	auditPath := filepath.Join(work, "audit.config")
	if err := os.WriteFile(auditPath, []byte(audit), 0o644); err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	o.AuditConf, o.Out, o.Mode = auditPath, work, loadgen.PerformanceOnly
	if test == "TEST06" {
		conf, err := tokenLatencyConf(o, name, work)
		if err != nil {
			return err
		}
		o.UserConf = conf
	}
	if n := modelMinQueries(audit, name, o.Scenario.String()); n > 0 {
		// LoadGen applies only the "*" lines; the reference's SUTs read the
		// model's own lines (TEST04's min_query_count for sdxl and wan).
		o.MinQueries = n
	}
	if _, err := benchmark.Run(ctx, b, o, io.Discard, stderr); err != nil {
		return fmt.Errorf("compliance: %s run of %s: %w", test, b.Name, err)
	}
	return nil
}

// TEST06DType is the element type TEST06 reads b's responses as
// (run_verification.py's --dtype): the type of b's accuracy log, int32
// (the script's default) when b does not say.
func TEST06DType(b *spec.Benchmark) string {
	if b.LogShape != nil && b.LogShape.DType != "" {
		return string(b.LogShape.DType)
	}
	return "int32"
}

// tokenLatencyConf returns the user.conf of a TEST06 run of the model
// name. TEST06 checks the token count and first token LoadGen logs with
// each response, which it logs only with use_token_latencies; for a model
// whose mlperf.conf infers its token latencies instead (GPT-J) it writes
// work/user.conf, the run's user.conf with
// "<name>.*.use_token_latencies = 1" added, as a submitter's TEST06 run
// must set it. Otherwise it returns o's user.conf unchanged.
func tokenLatencyConf(o benchmark.Options, name, work string) (string, error) {
	o.ModelName = name
	s, err := benchmark.Settings(&o)
	if err != nil {
		return "", fmt.Errorf("compliance: TEST06 settings of %s: %w", name, err)
	}
	if s.UseTokenLatencies {
		return o.UserConf, nil
	}
	var conf []byte
	if o.UserConf != "" {
		if conf, err = os.ReadFile(o.UserConf); err != nil {
			return "", fmt.Errorf("compliance: %w", err)
		}
		if len(conf) > 0 && conf[len(conf)-1] != '\n' {
			conf = append(conf, '\n')
		}
	}
	conf = fmt.Appendf(conf, "# TEST06 checks the token counts and first tokens LoadGen logs only with use_token_latencies\n%s.*.use_token_latencies = 1\n", name)
	path := filepath.Join(work, "user.conf")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		return "", fmt.Errorf("compliance: %w", err)
	}
	return path, nil
}

// modelMinQueries returns the min_query_count an audit.config sets for
// model in scenario with a model-specific line (model.scenario.key or
// model.*.key), 0 if none.
func modelMinQueries(audit, model, scenario string) int {
	n := 0
	for _, line := range strings.Split(audit, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "=" {
			continue
		}
		for _, k := range []string{model + "." + scenario + ".min_query_count", model + ".*.min_query_count"} {
			if f[0] == k {
				if v, err := strconv.Atoi(f[2]); err == nil && (n == 0 || k == model+"."+scenario+".min_query_count") {
					n = v
				}
			}
		}
	}
	return n
}

// RefName maps a benchmark run as confName (one of its ConfNames) to its
// folder name under the reference's compliance/TEST01, the name its
// audit.config files are kept under (see AuditConfig).
func RefName(b *spec.Benchmark, confName string) string {
	switch {
	case strings.HasPrefix(confName, "3d-unet"), b.Name == "unet3d":
		return "3d-unet"
	case b.Name == "sdxl", strings.HasPrefix(confName, "stable-diffusion"):
		return "stable-diffusion-xl"
	case b.Name == "dlrm", strings.HasPrefix(confName, "dlrm"):
		return "dlrm-v2"
	case b.Name == "gptj", strings.HasPrefix(confName, "gpt"):
		return "gpt-j"
	}
	if _, ok := test01Targets[strings.ToLower(b.Name)]; ok {
		return b.Name
	}
	return confName
}
