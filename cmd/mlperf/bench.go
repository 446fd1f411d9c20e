package main

// The commands that are generic over the benchmark registry: run, perf,
// accuracy <benchmark>, model build, dataset synth|verify|preprocess and
// list. A benchmark adds no line here: it registers its descriptor in
// package benchmark/spec (see benchmarks.go).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/internal/argcheck"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/kserve"
)

func init() {
	handle("run", "run a benchmark through the loadgen: run <benchmark> [flags] (see mlperf list)", runCmd)
	handle("perf", "raw engine throughput vs the same through full Offline runs: perf <benchmark> (last line ratio=harness/raw)", perfCmd)
	handle("model build", "write a benchmark's synthetic model (official contract, seeded weights): model build <benchmark> -o FILE", modelBuildCmd)
	handle("dataset synth", "write a small data set in the real on-disk format: dataset synth <dataset> -o PATH", datasetCmd("synth"))
	handle("dataset verify", "check a data set: dataset verify <dataset> --data PATH", datasetCmd("verify"))
	handle("dataset preprocess", "preprocess a data set as the reference's harness reads it: dataset preprocess <dataset> --data PATH", datasetCmd("preprocess"))
	handle("serve", "serve a benchmark's model over KServe v2 REST and gRPC on one port (and /v1/completions and /v1/chat/completions for the LLMs): serve <benchmark> --listen ADDR", serveCmd)
	handle("list", "list the registered benchmarks (scenarios, data set, synthetic models) and data sets", listCmd)
}

// benchmarkArg takes the benchmark name off args; with none or an unknown
// one it lists the registered benchmarks in a usage error.
func benchmarkArg(cmd string, args []string) (*spec.Benchmark, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, nil, usageError("want %s <benchmark>, one of %s (see mlperf list)", cmd, strings.Join(spec.Names(), ", "))
	}
	b, ok := spec.Lookup(args[0])
	if !ok {
		return nil, nil, usageError("%v", spec.Unknown(args[0]))
	}
	return b, args[1:], nil
}

// optionFlags registers a benchmark's or data set's own flags; the
// returned func collects their values and checks that the side files
// `make setup` installs are there when a default names one
// (spec.CheckDeps).
func optionFlags(fs *flag.FlagSet, opts []spec.Option) func() (spec.Extra, error) {
	values := registerOptions(fs, opts)
	return func() (spec.Extra, error) {
		e := values()
		return e, spec.CheckDeps(opts, e)
	}
}

// registerOptions registers a benchmark's or data set's own flags; the
// returned func collects their values.
func registerOptions(fs *flag.FlagSet, opts []spec.Option) func() spec.Extra {
	vals := map[string]flag.Getter{}
	for _, o := range opts {
		if o.Bool {
			fs.Bool(o.Name, o.Default == "true", o.Usage)
		} else {
			fs.String(o.Name, o.Default, o.Usage)
		}
		vals[o.Name] = fs.Lookup(o.Name).Value.(flag.Getter)
	}
	return func() spec.Extra {
		e := spec.Extra{}
		for k, v := range vals {
			e[k] = v.String()
		}
		return e
	}
}

// modeAliases are the short mode spellings the command accepts besides
// loadgen.ParseMode's.
var modeAliases = map[string]string{"perf": "performance", "acc": "accuracy", "findpeakperf": "find-peak"}

// benchFlags registers the flags of run (withScenario) and perf on fs, with
// b's defaults; the returned func parses the typed Options from them.
func benchFlags(fs *flag.FlagSet, b *spec.Benchmark, withScenario bool) func() (benchmark.Options, error) {
	o := benchmark.Options{}
	scenario, mode, round := "Offline", "performance", ""
	minDur := argcheck.Duration{Name: "--duration", Unit: time.Millisecond, AllowZero: true}
	timeout := argcheck.Duration{Name: "--completion-timeout", Min: time.Second, AllowZero: true}
	if withScenario {
		fs.StringVar(&scenario, "scenario", scenario, "LoadGen scenario: SingleStream, MultiStream, Server or Offline")
		fs.StringVar(&mode, "mode", mode, "performance, accuracy, submission (accuracy then performance) or find-peak")
		fs.Var(&minDur, "duration", "minimum run duration, overriding the confs' min_duration (e.g. 10s, whole milliseconds; 0: keep)")
		fs.StringVar(&round, "round", "", "submission round whose mlperf.conf seeds the run uses: "+strings.Join(check.RoundNames(), ", ")+" (\"\": the embedded mlperf.conf's, "+check.Newest+"'s)")
		fs.Var(&timeout, "completion-timeout", "how long the loadgen waits without any completion before it ends the run INVALID (e.g. 30m; 0: derived from the scenario's latency bound)")
	}
	modelUsage := "model file (.onnx), or synthetic (full size, seeded weights) or synthetic:SIZE (" + strings.Join(b.SizeNames(), ", ") + ")"
	if b.RemoteOnly != "" {
		modelUsage = "not used: " + b.Name + " runs on the serving engines of --endpoint (--served-model names their model)"
	}
	fs.StringVar(&o.Model, "model", b.Model.Default, modelUsage)
	fs.StringVar(&o.ModelName, "model-name", b.ConfNames[0], "model name in mlperf.conf / user.conf: "+strings.Join(b.ConfNames, ", "))
	fs.StringVar(&o.Data, "data", "synthetic", "data set folder or file, or synthetic (a small generated data set in the real format)")
	fs.StringVar(&o.Backend, "backend", "cpu", "execution provider ("+strings.Join(benchmark.Backends, ", ")+") or remote engine: kserve (Open Inference Protocol over REST or gRPC, tensor models), openai (/v1/completions and /v1/chat/completions, decoders) or sglang (SGLang's /generate, decoders)")
	remoteFlags(fs, &o)
	fs.IntVar(&o.Device, "device", 0, "GPU id for cuda / tensorrt")
	fs.Func("ep-option", "KEY=VALUE for the cuda or tensorrt execution provider, as ONNX Runtime takes it (repeatable), e.g. gpu_mem_limit=BYTES, arena_extend_strategy=kSameAsRequested, cudnn_conv_algo_search=HEURISTIC, use_tf32=0", func(s string) error {
		if o.ProviderOptions == nil {
			o.ProviderOptions = map[string]string{}
		}
		return keyValues(o.ProviderOptions).Set(s)
	})
	fs.IntVar(&o.Threads, "threads", 0, "inference engine threads (0: all cores)")
	fs.IntVar(&o.Workers, "workers", 0, "concurrent inference calls (0: 1 on cpu, 2 on a GPU)")
	fs.IntVar(&o.Batch, "batch", 0, "most samples per inference call (0: the scenario's default)")
	fs.StringVar(&o.UserConf, "user-conf", "", "user.conf with this system's settings (read after mlperf.conf, as LoadGen does)")
	fs.StringVar(&o.AuditConf, "audit-conf", "", "audit.config for compliance tests")
	fs.StringVar(&o.Out, "out", filepath.Join("out", b.Name), "folder for mlperf_log_summary.txt, mlperf_log_detail.txt, mlperf_log_accuracy.json")
	fs.StringVar(&o.Cache, "cache", "", "folder of preprocessed samples (<sample path>.npy): read if present, written otherwise")
	fs.IntVar(&o.Count, "count", 0, "use only the first N samples of the data set (0: all)")
	fs.IntVar(&o.MinQueries, "min-queries", 0, "minimum query count, overriding the confs' min_query_count (0: keep)")
	fs.Float64Var(&o.QPS, "qps", 0, "Server target qps / Offline expected qps, overriding user.conf (0: keep)")
	extra := optionFlags(fs, b.Options)
	return func() (benchmark.Options, error) {
		sc, err := loadgen.ParseScenario(strings.NewReplacer("-", "", "_", "").Replace(scenario))
		if err != nil {
			return o, usageError("unknown scenario %q; want SingleStream, MultiStream, Server or Offline", scenario)
		}
		if a, ok := modeAliases[strings.ToLower(mode)]; ok {
			mode = a
		}
		m, err := loadgen.ParseMode(mode)
		if err != nil {
			return o, usageError("unknown mode %q; want performance, accuracy, submission or find-peak", mode)
		}
		e, err := extra()
		// A remote-only benchmark on a local backend is refused by
		// Validate, which says why: its side files are no matter then.
		if err != nil && (b.RemoteOnly == "" || o.Remote()) {
			return o, err
		}
		o.Scenario, o.Mode, o.Extra = sc, m, e
		o.Duration, o.CompletionTimeout = minDur.D, timeout.D
		if round != "" {
			r, err := check.LookupRound(round)
			if err != nil {
				return o, usageError("--round: %v", err)
			}
			o.Seeds = &r.Seeds
			o.AccuracyFiles = r.AccuracyFilesOf(b.CheckerIDs)
		}
		return o, nil
	}
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, o, _, err := parseBenchFlags("run", args, stdout, stderr)
	if err != nil {
		return err
	}
	_, err = benchmark.Run(ctx, b, o, stdout, stderr)
	return err
}

func perfCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, o, d, err := parseBenchFlags("perf", args, stdout, stderr)
	if err != nil {
		return err
	}
	_, err = benchmark.Perf(ctx, b, o, d, stdout, stderr)
	return err
}

// parseBenchFlags parses the arguments of `mlperf run` or `mlperf perf`
// (cmd): the benchmark, then its flags. It returns perf's --duration
// (what each side is measured for) too.
func parseBenchFlags(cmd string, args []string, stdout, stderr io.Writer) (*spec.Benchmark, benchmark.Options, time.Duration, error) {
	b, args, err := benchmarkArg(cmd, args)
	if err != nil {
		if cmd == "run" {
			listBenchmarks(stderr)
		}
		return nil, benchmark.Options{}, 0, err
	}
	fs := flag.NewFlagSet(cmd+" "+b.Name, flag.ContinueOnError)
	opts := benchFlags(fs, b, cmd == "run")
	d := &argcheck.Duration{Name: "--duration", D: 10 * time.Second}
	if cmd == "perf" {
		fs.Var(d, "duration", "how long each side (raw and harness) is measured in all, over the alternating rounds")
		fs.Lookup("out").DefValue = filepath.Join("out", b.Name+"-perf")
		fs.Set("out", filepath.Join("out", b.Name+"-perf"))
	}
	if err := parse(fs, args, stdout); err != nil {
		return nil, benchmark.Options{}, 0, err
	}
	o, err := opts()
	if err != nil {
		return nil, benchmark.Options{}, 0, err
	}
	return b, o, d.D, nil
}

// accuracyBenchmark is `mlperf accuracy <benchmark>`: score an accuracy
// log as the benchmark's reference script does.
func accuracyBenchmark(ctx context.Context, b *spec.Benchmark, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy "+b.Name, flag.ContinueOnError)
	req := &benchmark.AccuracyRequest{Stderr: stderr}
	fs.StringVar(&req.Log, "log", "", "mlperf_log_accuracy.json (required)")
	fs.StringVar(&req.Data, "data", "", "the data set the run used (folder or file, or synthetic) (required)")
	fs.IntVar(&req.Count, "count", 0, "the --count of the run (0: the whole data set)")
	if len(b.ConfNames) > 1 {
		fs.StringVar(&req.ModelName, "model-name", "", "the run's --model-name ("+strings.Join(b.ConfNames, ", ")+"; \"\": "+b.ConfNames[0]+")")
	}
	fs.StringVar(&req.Model, "model", "", "the run's --model; synthetic or synthetic:SIZE labels the score as not meaningful")
	fs.StringVar(&req.Out, "out", "", "also write the score line(s) to this accuracy.txt")
	fs.StringVar(&req.HashLog, "hash", "", "with --out: append 'hash=<sha256 of this file>' as truncate_accuracy_log.py does")
	fs.StringVar(&req.CheckerID, "benchmark", "", "judge the score against this variant's submission-checker targets ("+strings.Join(b.CheckerIDs, ", ")+"); exit status 1 if it fails")
	fs.StringVar(&req.DType, "dtype", "", "response element type of the log (\"\": the reference's)")
	extra := optionFlags(fs, b.Options)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if req.Log == "" || req.Data == "" {
		return usageError("--log FILE and --data PATH are required (the data set the run used)")
	}
	if req.Count < 0 {
		return usageError("--count takes a non-negative value")
	}
	e, err := extra()
	if err != nil {
		return err
	}
	req.Extra = e
	_, err = benchmark.Accuracy(ctx, b, req, stdout)
	return err
}

func modelBuildCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, args, err := benchmarkArg("model build", args)
	if err != nil {
		return err
	}
	if !b.BuildsModels() {
		return fmt.Errorf("%s: no synthetic model in this build", b.Name)
	}
	fs := flag.NewFlagSet("model build "+b.Name, flag.ContinueOnError)
	var sizes []string
	for _, s := range b.Model.Sizes {
		sizes = append(sizes, s.Name+" ("+s.Summary+")")
	}
	def := b.Model.Sizes[0].Name
	if b.Model.BuildSize != "" {
		def = b.Model.BuildSize
	}
	size := fs.String("size", def, "model size: "+strings.Join(sizes, ", "))
	out := fs.String("o", "", "output .onnx file (required); large weights go to FILE.data beside it")
	seed := fs.Uint64("seed", b.Model.Seed, "weight seed (same size and seed, same bytes)")
	_, hasGGUF := b.Driver.(spec.GGUFBuilder)
	format := "onnx"
	var options func() (spec.Extra, error)
	if hasGGUF {
		fs.StringVar(&format, "format", format, "onnx, or gguf: the same weights as a llama.cpp GGUF (ollama, llama.cpp-based engines)")
		options = optionFlags(fs, b.Options)
	}
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	var extra spec.Extra
	if options != nil {
		if extra, err = options(); err != nil {
			return err
		}
	}
	f, err := benchmark.WriteModel(b, *out, format, *size, *seed, extra)
	if err != nil {
		return err
	}
	as := ""
	if format == "gguf" {
		as = " as GGUF"
	}
	fmt.Fprintf(stdout, "wrote the synthetic %s (%s, seed %d)%s to %s, %.1f MB\n", b.Name, *size, *seed, as, strings.Join(f.Files, " + "), float64(f.Bytes)/1e6)
	return nil
}

// datasetCmd returns the handler of `dataset <verb> <dataset>`.
func datasetCmd(verb string) handler {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return usageError("want dataset %s <dataset>, one of %s (see mlperf list)", verb, strings.Join(spec.DatasetNames(), ", "))
		}
		d, ok := spec.LookupDataset(args[0])
		if !ok {
			return usageError("unknown data set %q; want one of %s", args[0], strings.Join(spec.DatasetNames(), ", "))
		}
		run := map[string]func(*spec.DatasetRequest) error{"synth": d.Synth, "verify": d.Verify, "preprocess": d.Preprocess}[verb]
		if run == nil {
			return usageError("data set %s has no %s command", d.Name, verb)
		}
		fs := flag.NewFlagSet("dataset "+verb+" "+d.Name, flag.ContinueOnError)
		req := &spec.DatasetRequest{Stdout: stdout, Stderr: stderr, Ctx: ctx,
			Progress: func(what, unit string) spec.Progress { return benchmark.NewProgress(stderr, what, unit) }}
		fs.StringVar(&req.Out, "o", "", "output folder or file (synth: required; preprocess: default beside the data)")
		fs.StringVar(&req.Data, "data", "", "the data set folder or file (verify, preprocess: required)")
		n := fs.Int("n", 0, "synth: samples to write (0: the data set's default); verify: expected sample count")
		fs.Uint64Var(&req.Seed, "seed", 0, "synth: content seed (0: the data set's default; same n and seed, same bytes)")
		fs.IntVar(&req.Count, "count", 0, "preprocess: only the first N samples (0: all)")
		fs.IntVar(&req.Workers, "workers", 0, "samples processed in parallel (0: all cores)")
		extra := optionFlags(fs, d.Options)
		if err := parse(fs, args[1:], stdout); err != nil {
			return err
		}
		fs.Visit(func(f *flag.Flag) { req.NSet = req.NSet || f.Name == "n" })
		switch {
		case verb == "synth" && req.Out == "":
			return usageError("-o PATH is required")
		case verb != "synth" && req.Data == "":
			return usageError("--data PATH is required")
		case *n < 0:
			return usageError("-n %d: want a non-negative count", *n)
		}
		if verb != "synth" {
			if err := d.CheckData(req.Data); err != nil {
				return err
			}
		} else if st, err := os.Stat(req.Out); err == nil && !st.IsDir() && !d.DataFile {
			return fmt.Errorf("%s: -o %s is a file; the data set is a folder: give a new or empty folder", d.Name, req.Out)
		}
		e, err := extra()
		if err != nil {
			return err
		}
		req.N, req.Extra = *n, e
		return run(req)
	}
}

func listCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usageError("list takes no arguments")
	}
	listBenchmarks(stdout)
	fmt.Fprintln(stdout, "\ndata sets:")
	for _, d := range spec.AllDatasets() {
		var verbs []string
		for _, v := range []struct {
			name string
			ok   bool
		}{{"synth", d.Synth != nil}, {"verify", d.Verify != nil}, {"preprocess", d.Preprocess != nil}} {
			if v.ok {
				verbs = append(verbs, v.name)
			}
		}
		fmt.Fprintf(stdout, "  %-12s %s [%s]\n", d.Name, d.Summary, strings.Join(verbs, ", "))
	}
	return nil
}

// listBenchmarks prints every registered benchmark with its scenarios,
// data set and synthetic model sizes.
func listBenchmarks(w io.Writer) {
	fmt.Fprintln(w, "benchmarks:")
	for _, b := range spec.All() {
		sc := make([]string, len(b.Scenarios))
		for i, s := range b.Scenarios {
			sc[i] = s.String()
		}
		fmt.Fprintf(w, "  %-12s %s\n", b.Name, b.Summary)
		if b.RemoteOnly != "" {
			fmt.Fprintf(w, "  %-12s scenarios %s; data set %s; runs only against a serving engine (--backend openai or sglang)\n", "", strings.Join(sc, ", "), b.Dataset)
		} else {
			fmt.Fprintf(w, "  %-12s scenarios %s; data set %s; synthetic model sizes %s (default --model %s)\n", "", strings.Join(sc, ", "), b.Dataset, strings.Join(b.SizeNames(), ", "), b.Model.Default)
		}
		fmt.Fprintf(w, "  %-12s mlperf.conf %s; checker %s", "", strings.Join(b.ConfNames, ", "), strings.Join(b.CheckerIDs, ", "))
		if len(b.Compliance) > 0 {
			fmt.Fprintf(w, "; compliance %s", strings.Join(b.Compliance, ", "))
		}
		fmt.Fprintln(w)
	}
}

// isUsage reports an error about the command line (exit status 2)
func isUsage(err error) bool {
	return errors.Is(err, errUsage) || errors.Is(err, spec.ErrUsage)
}

// remoteFlags registers on fs the flags of a run on remote serving
// engines into o: --endpoint (repeatable), --prompt-form, --protocol,
// --served-model and --api-key-env. Every command that runs a benchmark
// (run, perf, submission, compliance) takes them.
func remoteFlags(fs *flag.FlagSet, o *benchmark.Options) {
	fs.Func("endpoint", "with --backend kserve|openai|sglang: a serving engine's host:port or URL (repeat for several: kserve nodes in turn, decoder replicas by fewest requests in flight)", func(v string) error { o.Endpoints = append(o.Endpoints, v); return nil })
	fs.StringVar(&o.PromptForm, "prompt-form", "", "with --backend openai|sglang: send prompts as token ids, as text, or auto (ids where every endpoint takes them, else text; \"\": auto)")
	fs.StringVar(&o.Protocol, "protocol", "", "with --backend kserve: the Open Inference Protocol transport, "+strings.Join(kserve.Protocols, " or ")+" (\"\": http, REST)")
	fs.StringVar(&o.ServedModel, "served-model", "", "the remote engine's name of the model (\"\": the benchmark's name)")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", "", "environment variable holding a bearer token for the remote engine")
}
