package compliance

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/internal/boundedread"
	"github.com/mlperf-go/inference/loadgen"
)

// Run runs test for benchmark b with the options o: it writes the test's
// audit.config into work, runs the benchmark in performance mode there
// with it (LoadGen applies its "*" lines), and verifies the run against
// the submission's scenario folder results as run_verification.py does,
// making results/TEST0X. TEST06 runs the scenario of o; TEST07 and TEST09
// are verified with the benchmark (VerifyRun), TEST07 on its own
// compliance data set. With work ""
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
	if test == "TEST07" || test == "TEST09" {
		return VerifyRun(ctx, b, test, o, work, results, stdout, stderr)
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

// VerifyRun verifies a TEST07 or TEST09 run of b with the options o,
// whose logs and audit.config (RunTest writes them) are in work, into
// out/TEST0X: TEST07 scores the log with b's scorer on the test's own
// data set (PrintoutOf), TEST09 counts its output lengths; the
// thresholds are the audit.config's.
func VerifyRun(ctx context.Context, b *spec.Benchmark, test string, o benchmark.Options, work, out string, stdout, stderr io.Writer) (Result, error) {
	audit := filepath.Join(work, "audit.config")
	switch strings.ToUpper(test) {
	case "TEST07":
		o = WithTestOptions(b, "TEST07", o)
		cmd := "mlperf accuracy " + b.Name + " --log " + filepath.Join(work, "mlperf_log_accuracy.json")
		if o.Data != "" {
			cmd += " --data " + o.Data
		}
		for _, k := range sortedKeys(o.Extra) {
			if v := o.Extra[k]; v != "" {
				cmd += " --" + k + " " + v
			}
		}
		return VerifyTEST07(stdout, work, out, TEST07Options{AuditConfig: audit, Score: PrintoutOf(ctx, b, o, stderr), Command: cmd})
	case "TEST09":
		return VerifyTEST09(stdout, work, out, TEST09Options{AuditConfig: audit})
	}
	return Result{Test: test}, fmt.Errorf("compliance: VerifyRun verifies TEST07 and TEST09, not %s", test)
}

// RunVerified runs test's compliance run of b (RunTest, logs in work) and
// verifies it (VerifyRun) into work/verified; it returns the verified
// folder work/verified/TEST0X, ready to be copied into a submission. For
// TEST07 and TEST09, whose verification needs the benchmark.
func RunVerified(ctx context.Context, b *spec.Benchmark, test string, o benchmark.Options, work string, stderr io.Writer) (string, Result, error) {
	test = strings.ToUpper(test)
	if err := RunTest(ctx, b, test, o, work, stderr); err != nil {
		return "", Result{Test: test}, err
	}
	out := filepath.Join(work, "verified")
	res, err := VerifyRun(ctx, b, test, o, work, out, stderr, stderr)
	if err != nil {
		return "", res, err
	}
	if !res.Pass() {
		fmt.Fprintf(stderr, "compliance: %s of %s failed (see %s)\n", test, b.Name, filepath.Join(out, test))
	}
	return filepath.Join(out, test), res, nil
}

// SelfVerified reports whether a test is verified by RunVerified (it
// needs the benchmark) rather than by Verify against the results.
func SelfVerified(test string) bool {
	t := strings.ToUpper(test)
	return t == "TEST07" || t == "TEST09"
}

// WithTestOptions returns o with the benchmark options test's run sets
// for b (TEST07 of gpt-oss-120b: its GPQA compliance set).
func WithTestOptions(b *spec.Benchmark, test string, o benchmark.Options) benchmark.Options {
	extra := testExtra[strings.ToUpper(test)][auditFolder(b.Name)]
	if len(extra) == 0 {
		return o
	}
	e := spec.Extra{}
	for k, v := range o.Extra {
		e[k] = v
	}
	for k, v := range extra {
		e[k] = v
	}
	o.Extra = e
	return o
}

func sortedKeys(m spec.Extra) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// PrintoutOf scores accuracy logs as a run of b with the options o scores
// its own, returning what the reference's accuracy script prints (the
// score's Text, else its accuracy.txt lines).
func PrintoutOf(ctx context.Context, b *spec.Benchmark, o benchmark.Options, stderr io.Writer) Scorer {
	return func(log string) ([]string, error) {
		sc, err := benchmark.ScoreRun(ctx, b, o, log, stderr)
		if err != nil {
			return nil, err
		}
		if sc.Text != "" {
			return strings.Split(strings.TrimSuffix(sc.Text, "\n"), "\n"), nil
		}
		return sc.Lines, nil
	}
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
	o = WithTestOptions(b, test, o)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	auditPath := filepath.Join(work, "audit.config")
	if err := os.WriteFile(auditPath, []byte(audit), 0o644); err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	o.AuditConf, o.Out, o.Mode = auditPath, work, loadgen.PerformanceOnly
	conf, err := testUserConf(o, test, audit, name, work)
	if err != nil {
		return err
	}
	o.UserConf = conf
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

// TEST06DefaultEOS is the end-of-sequence id TEST06's run_verification.py
// counts unless told otherwise (its -e default, Llama 2's </s>).
const TEST06DefaultEOS int64 = 2

// TEST06DType is the element type TEST06 reads b's responses as
// (run_verification.py's --dtype): the type of b's accuracy log, int32
// (the script's default) when b does not say.
func TEST06DType(b *spec.Benchmark) string {
	if b.LogShape != nil && b.LogShape.DType != "" {
		return string(b.LogShape.DType)
	}
	return "int32"
}

// testUserConf returns the user.conf of a compliance run of the model
// name with the audit.config audit: o's user.conf, with lines added
// (into work/user.conf) where the test needs LoadGen settings that
// neither the audit.config's "*" lines nor mlperf.conf give it:
//   - TEST06 checks the token count and first token LoadGen logs with
//     each response, which it logs only with use_token_latencies: for a
//     model whose mlperf.conf infers its token latencies instead (GPT-J),
//     "<name>.*.use_token_latencies = 1", as a submitter's TEST06 run
//     must set it;
//   - an audit.config with performance_issue_unique (TEST07, TEST09) is
//     one pass over its whole set, whose size is its min_query_count
//     (990 for TEST07's compliance set, 6396 for TEST09): Offline then
//     issues performance_sample_count samples, so mlperf.conf's override
//     (6396 for gpt-oss-120b) would ask more of TEST07's 990 than can be
//     loaded and LoadGen would generate no query.
//     "<name>.*.performance_sample_count_override = <min_query_count>"
//     makes the loaded set the test's set, as its README means ("log ALL
//     samples"), unless o's user.conf sets the override itself (a smaller
//     set than the reference's).
//
// With nothing to add it returns o's user.conf unchanged.
func testUserConf(o benchmark.Options, test, audit, name, work string) (string, error) {
	var add []string
	if test == "TEST06" {
		o.ModelName = name
		s, err := benchmark.Settings(&o)
		if err != nil {
			return "", fmt.Errorf("compliance: TEST06 settings of %s: %w", name, err)
		}
		if !s.UseTokenLatencies {
			add = append(add, "# TEST06 checks the token counts and first tokens LoadGen logs only with use_token_latencies",
				name+".*.use_token_latencies = 1")
		}
	}
	if n := auditValue(audit, "*.*.min_query_count"); n != "" && auditValue(audit, "*.*.performance_issue_unique") == "1" {
		own, err := userSetsSampleCount(o, name)
		if err != nil {
			return "", err
		}
		if !own {
			add = append(add, "# "+test+" is one pass (performance_issue_unique) over its whole set of min_query_count samples",
				name+".*.performance_sample_count_override = "+n)
		}
	}
	if len(add) == 0 {
		return o.UserConf, nil
	}
	var conf []byte
	if o.UserConf != "" {
		var err error
		if conf, err = boundedread.File(o.UserConf, "--user-conf", loadgen.MaxConfBytes); err != nil {
			return "", fmt.Errorf("compliance: %w", err)
		}
		if len(conf) > 0 && conf[len(conf)-1] != '\n' {
			conf = append(conf, '\n')
		}
	}
	conf = append(conf, strings.Join(add, "\n")+"\n"...)
	path := filepath.Join(work, "user.conf")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		return "", fmt.Errorf("compliance: %w", err)
	}
	return path, nil
}

// userSetsSampleCount reports whether o's user.conf changes the model
// name's performance_sample_count_override from mlperf.conf's.
func userSetsSampleCount(o benchmark.Options, name string) (bool, error) {
	if o.UserConf == "" {
		return false, nil
	}
	o.ModelName = name
	with, err := benchmark.Settings(&o)
	if err != nil {
		return false, fmt.Errorf("compliance: settings of %s: %w", name, err)
	}
	o.UserConf = ""
	without, err := benchmark.Settings(&o)
	if err != nil {
		return false, fmt.Errorf("compliance: settings of %s: %w", name, err)
	}
	return with.PerformanceSampleCountOverride != without.PerformanceSampleCountOverride, nil
}

// auditValue returns the value of key ("*.*.min_query_count") in an
// audit.config, "" if it has no such line.
func auditValue(audit, key string) string {
	v := ""
	for _, line := range strings.Split(audit, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == key && f[1] == "=" {
			v = f[2]
		}
	}
	return v
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
	case b.Name == "gptj", strings.HasPrefix(confName, "gptj"), strings.HasPrefix(confName, "gpt-j"):
		return "gpt-j"
	}
	if _, ok := test01Targets[strings.ToLower(b.Name)]; ok {
		return b.Name
	}
	return confName
}
