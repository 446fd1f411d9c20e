package benchmark

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/loadgen"
)

// SyntheticNote is printed under a score from a synthetic model.
const SyntheticNote = "(synthetic weights: accuracy not meaningful)"

// Backends are the execution providers a local run may ask for.
var Backends = []string{"cpu", "cuda", "tensorrt"}

// Validate checks o against b and fills the defaults that depend on the
// benchmark: Batch (DefaultBatch), Workers (1 on cpu, 2 on a GPU),
// ModelName (ConfNames[0]). The errors name the flag and the valid values.
func (o *Options) Validate(b *Benchmark) error {
	if !slices.Contains(b.Scenarios, o.Scenario) {
		return UsageError("%s: scenario %s is not one of this benchmark's (%s)", b.Name, o.Scenario, scenarioList(b.Scenarios))
	}
	o.Backend = strings.ToLower(o.Backend)
	if !slices.Contains(Backends, o.Backend) && !o.Remote() {
		return UsageError("%s: unknown backend %q; want %s", b.Name, o.Backend, strings.Join(append(slices.Clone(Backends), RemoteBackends...), ", "))
	}
	if err := o.checkRemote(b); err != nil {
		return err
	}
	if o.ModelName == "" {
		o.ModelName = b.ConfNames[0]
	} else if !slices.Contains(b.ConfNames, o.ModelName) {
		return UsageError("%s: --model-name %q: want one of %s", b.Name, o.ModelName, strings.Join(b.ConfNames, ", "))
	}
	switch {
	case o.Batch < 0:
		return UsageError("%s: --batch %d: want at least 1 (0: the scenario's default)", b.Name, o.Batch)
	case o.Threads < 0, o.Workers < 0, o.Count < 0, o.Device < 0, o.MinQueries < 0:
		return UsageError("%s: --threads, --workers, --count, --device and --min-queries take non-negative values", b.Name)
	case o.Duration < 0, o.QPS < 0:
		return UsageError("%s: --duration and --qps take non-negative values", b.Name)
	case math.IsNaN(o.QPS) || math.IsInf(o.QPS, 0):
		return UsageError("%s: --qps %v: want a finite number of queries per second (0: keep the confs' value)", b.Name, o.QPS)
	case o.Model == "" && !o.Remote():
		return UsageError("%s: --model is required (a .onnx file, synthetic or synthetic:SIZE)", b.Name)
	case o.Data == "":
		return UsageError("%s: --data is required (a data set folder or synthetic)", b.Name)
	}
	for _, p := range []struct{ flag, path string }{{"--user-conf", o.UserConf}, {"--audit-conf", o.AuditConf}} {
		if p.path == "" {
			continue
		}
		st, err := os.Stat(p.path)
		if err != nil {
			return UsageError("%s: %s %s: file not found", b.Name, p.flag, p.path)
		}
		if st.IsDir() {
			return UsageError("%s: %s %s is a folder; name the conf file itself", b.Name, p.flag, p.path)
		}
	}
	if d, ok := LookupDataset(b.Dataset); ok && b.Dataset != "" {
		if err := d.CheckData(o.Data); err != nil {
			return err
		}
	}
	if o.Cache != "" {
		if st, err := os.Stat(o.Cache); err == nil && !st.IsDir() {
			return UsageError("%s: --cache %s is a file; --cache names a folder of preprocessed samples (<sample>.npy; created if missing)", b.Name, o.Cache)
		}
	}
	if b.Check != nil {
		if err := b.Check(o); err != nil {
			return err
		}
	}
	if o.Remote() {
		// Requests in flight, and no batching in the QDL (a Network
		// division rule: the SUT node batches).
		if o.Workers == 0 {
			o.Workers = RemoteInFlight * len(o.Endpoints)
		}
		if o.Batch == 0 {
			o.Batch = 1
		}
	}
	if o.Workers == 0 {
		o.Workers = 1
		if o.Backend != "cpu" {
			o.Workers = 2
		}
	}
	if o.Batch == 0 {
		o.Batch = 1
		if b.DefaultBatch != nil {
			o.Batch = b.DefaultBatch(o.Scenario, o.Backend)
		}
	}
	return nil
}

func scenarioList(s []loadgen.Scenario) string {
	n := make([]string, len(s))
	for i, sc := range s {
		n[i] = sc.String()
	}
	return strings.Join(n, ", ")
}

// Settings builds the loadgen settings of a run: the embedded mlperf.conf
// (with the round's seeds when o.Seeds is set), then o.UserConf and
// o.AuditConf as LoadGen reads them, then the conveniences Duration,
// MinQueries and QPS.
func Settings(o *Options) (loadgen.Settings, error) {
	s, err := loadgen.LoadConfigs(o.ModelName, o.Scenario, o.Mode, "", o.UserConf, o.AuditConf)
	if err != nil {
		return s, err
	}
	if o.Seeds != nil {
		s.SetSeeds(*o.Seeds)
	}
	if o.Duration > 0 {
		s.MinDurationMs = uint64(o.Duration / time.Millisecond)
	}
	if o.MinQueries > 0 {
		s.MinQueryCount = uint64(o.MinQueries)
	}
	if o.QPS > 0 {
		s.ServerTargetQPS, s.OfflineExpectedQPS = o.QPS, o.QPS
	}
	if o.CompletionTimeout > 0 {
		s.CompletionTimeout = o.CompletionTimeout
	}
	return s, nil
}

// CacheDir is where generated inputs (synthetic models and data sets) are
// kept between runs: $MLPERF_CACHE_DIR, else mlperf-go in the user's cache
// folder, else .mlperf-cache in the working directory.
func CacheDir() string {
	if d := os.Getenv("MLPERF_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mlperf-go")
	}
	return ".mlperf-cache"
}

// SyntheticSize reports whether spec (a --model value) names one of b's
// synthetic models, and which size: "synthetic" is Sizes[0],
// "synthetic:NAME" the size NAME ("synthetic:full" is accepted for
// Sizes[0] too). An unknown size is an error.
func SyntheticSize(b *Benchmark, spec string) (size string, ok bool, err error) {
	s := strings.ToLower(spec)
	if s != "synthetic" && !strings.HasPrefix(s, "synthetic:") {
		return "", false, nil
	}
	if len(b.Model.Sizes) == 0 || b.Model.Build == nil {
		return "", true, fmt.Errorf("%s: no synthetic model in this build", b.Name)
	}
	name, _ := strings.CutPrefix(s, "synthetic:")
	if name == "synthetic" || name == "full" {
		name = b.Model.Sizes[0].Name
	}
	var names []string
	for _, z := range b.Model.Sizes {
		if z.Name == name {
			return name, true, nil
		}
		names = append(names, z.Name)
	}
	return "", true, UsageError("%s: --model %s: no synthetic size %q; want synthetic or synthetic:SIZE with SIZE one of %s", b.Name, spec, name, strings.Join(names, ", "))
}

// ResolveModel turns a --model value into a file: the given file, which
// must exist, or b's synthetic model of that size, built once (seed
// b.Model.Seed) into cacheDir/<name>-synthetic-<size>/model.onnx. It
// returns the path and the synthetic size ("" for a file).
func ResolveModel(b *Benchmark, spec, cacheDir string, stderr io.Writer) (path, size string, err error) {
	size, ok, err := SyntheticSize(b, spec)
	if err != nil {
		return "", "", err
	}
	if !ok {
		if _, err := os.Stat(spec); err != nil {
			return "", "", fmt.Errorf("%s: model file %s not found (download it with models/%s/download_model.sh, or use --model synthetic)", b.Name, spec, b.Name)
		}
		return spec, "", nil
	}
	dir := filepath.Join(cacheDir, fmt.Sprintf("%s-synthetic-%s", b.Name, size))
	path = filepath.Join(dir, "model.onnx")
	if _, err := os.Stat(path); err == nil {
		return path, size, nil
	}
	fmt.Fprintf(stderr, "%s: building the synthetic %s model (seeded random weights) into %s\n", b.Name, size, dir)
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", "", fmt.Errorf("%s: cache folder: %w", b.Name, err)
	}
	tmp, err := os.MkdirTemp(cacheDir, "."+filepath.Base(dir)+"-*")
	if err != nil {
		return "", "", fmt.Errorf("%s: cache folder: %w", b.Name, err)
	}
	defer os.RemoveAll(tmp)
	if err := b.Model.Build(filepath.Join(tmp, "model.onnx"), size, b.Model.Seed); err != nil {
		return "", "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(path); serr == nil { // another run built it meanwhile
			return path, size, nil
		}
		return "", "", fmt.Errorf("%s: %w", b.Name, err)
	}
	return path, size, nil
}

// NewEnv validates o for b, resolves the model, makes the output folder
// and returns the Env that Open works with.
func NewEnv(b *Benchmark, o Options, stderr io.Writer) (*Env, error) {
	stderr = serialize(stderr)
	if err := o.Validate(b); err != nil {
		return nil, err
	}
	if o.Out != "" {
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return nil, fmt.Errorf("%s: output folder: %w", b.Name, err)
		}
	}
	cache := CacheDir()
	if o.Remote() {
		// --model is not used: the model is the engine's.
		served := o.ServedModel
		if served == "" {
			served = b.Name
		}
		o.Model = fmt.Sprintf("%s served at %s", served, strings.Join(o.Endpoints, ", "))
		if o.Protocol == "grpc" {
			o.Model += " over gRPC"
		}
		return &Env{Options: o, Benchmark: b, CacheDir: cache, Stderr: stderr, Stdout: io.Discard}, nil
	}
	path, size, err := ResolveModel(b, o.Model, cache, stderr)
	if err != nil {
		return nil, err
	}
	return &Env{Options: o, Benchmark: b, ModelPath: path, SyntheticSize: size, CacheDir: cache, Stderr: stderr, Stdout: io.Discard}, nil
}

// OpenSession opens a model file with the run's engine settings
// (--backend, --device, --threads), fetching only outputs (nil: all).
// With --backend kserve it dials the --endpoint servers instead and path
// is not used.
func (e *Env) OpenSession(path string, outputs []string) (backend.Session, error) {
	switch e.Backend {
	case "kserve":
		return e.dialKServe()
	case "openai":
		return nil, UsageError("%s: --backend openai is not available for this benchmark: it drives greedy decoders over /v1/completions (llama2); tensor models take --backend kserve", e.Benchmark.Name)
	}
	s, err := ort.Open(path, ort.Options{
		Provider:       e.Backend,
		DeviceID:       e.Device,
		IntraOpThreads: e.Threads,
		Outputs:        outputs,
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// open runs b.Open and wraps a tensor model in the scenario's SUT.
func open(ctx context.Context, env *Env) (inst *Instance, sut loadgen.SUT, closeAll func(), err error) {
	b := env.Benchmark
	inst, err = b.Open(ctx, env)
	if err != nil {
		return nil, nil, nil, err
	}
	closeInst := func() {
		if inst.Close != nil {
			inst.Close()
		}
	}
	switch {
	case inst.SUT != nil && inst.Model == nil:
		if env.remoteName != nil {
			return inst, namedSUT{inst.SUT, env.remoteName}, closeInst, nil
		}
		return inst, inst.SUT, closeInst, nil
	case inst.Model != nil && inst.SUT == nil:
	default:
		closeInst()
		return nil, nil, nil, fmt.Errorf("%s: Open must set exactly one of Instance.Model and Instance.SUT", b.Name)
	}
	m := inst.Model
	if inst.Done == nil {
		c := &harness.Counter{Model: m}
		m, inst.Done = c, c.Done
	}
	cfg := harness.PoolConfig{Batch: env.Batch, Workers: env.Workers}
	if env.Scenario == loadgen.Server || env.Scenario == loadgen.MultiStream {
		// Offline queues its one query whole: its waits are the run.
		cfg.QueueWait = &env.runStats().queueWait
	}
	if env.Scenario == loadgen.Server {
		cfg.SendLag = &env.runStats().sendLag
	}
	s, closeSUT, err := harness.ForScenario(env.Scenario.String(), m, cfg)
	if err != nil {
		closeInst()
		return nil, nil, nil, err
	}
	if env.remoteName != nil {
		s = namedSUT{s, env.remoteName}
	}
	return inst, s, func() { closeSUT(); closeInst() }, nil
}

// Run runs b end to end as o asks: resolve and open the model and data,
// run the loadgen, print the summary on stdout, and in accuracy and
// submission modes score the accuracy log, print the score and write
// accuracy.txt. Progress and notes go to stderr. It returns the loadgen
// result.
func Run(ctx context.Context, b *Benchmark, o Options, stdout, stderr io.Writer) (*loadgen.Result, error) {
	env, err := NewEnv(b, o, stderr)
	if err != nil {
		return nil, err
	}
	env.Stdout, stderr = stdout, env.Stderr
	s, err := Settings(&env.Options)
	if err != nil {
		return nil, err
	}
	inst, sut, closeAll, err := open(ctx, env)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	if inst.Describe != "" {
		fmt.Fprintln(stderr, inst.Describe)
	}
	if inst.QSL != nil && env.Count > inst.QSL.TotalSampleCount() {
		fmt.Fprintf(stderr, "%s: note: --count %d is more than the %d samples of the data set; all %d are used\n", b.Name, env.Count, inst.QSL.TotalSampleCount(), inst.QSL.TotalSampleCount())
	}
	if inst.QSL != nil {
		// A run the settings make long (Server at 0.0001 QPS, a day of
		// min_duration) keeps LoadGen's semantics, but says so up front.
		if note := loadgen.LongRunNote(s, inst.QSL.TotalSampleCount(), inst.QSL.PerformanceSampleCount(), 0); note != "" {
			fmt.Fprintf(stderr, "%s: %s\n", b.Name, note)
		}
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = env.Out
	st := env.runStats()
	logs.OnSeries, logs.Extra = st.reset, st.extra(env.Scenario)
	res, err := runWithProgress(ctx, stderr, inst.Done, func() (*loadgen.Result, error) {
		return loadgen.Run(ctx, sut, inst.QSL, s, logs)
	})
	if err != nil {
		return nil, err
	}
	if summary, err := os.ReadFile(filepath.Join(env.Out, "mlperf_log_summary.txt")); err == nil {
		stdout.Write(summary)
	}
	if s.Mode == loadgen.AccuracyOnly || s.Mode == loadgen.SubmissionRun {
		logPath := filepath.Join(env.Out, "mlperf_log_accuracy.json")
		if err := checkLogShape(b, logPath, ""); err != nil {
			return res, err
		}
		var sc *Score
		if inst.Score != nil {
			sc, err = inst.Score(ctx, logPath)
		} else {
			sc, err = b.Score(ctx, &ScoreRequest{Log: logPath, Data: env.Data, Count: env.Count, Extra: env.Extra, CacheDir: env.CacheDir, Stderr: stderr})
		}
		if err != nil {
			return res, err
		}
		if err := accuracy.WriteAccuracyFile(filepath.Join(env.Out, "accuracy.txt"), sc.Lines, ""); err != nil {
			return res, err
		}
		fmt.Fprint(stdout, sc.text())
		if env.Synthetic() {
			fmt.Fprintln(stdout, SyntheticNote)
		}
	}
	if inst.After != nil {
		if err := inst.After(ctx, res); err != nil {
			return res, err
		}
	}
	if res.Mode != loadgen.AccuracyOnly {
		name, v := res.Metric()
		valid := "VALID"
		if !res.Valid {
			valid = "INVALID: " + strings.Join(res.InvalidReasons, "; ")
		}
		fmt.Fprintf(stderr, "%s %s: %s = %.4g (%s); logs in %s\n", env.ModelName, env.Scenario, name, v, valid, env.Out)
		st.report(stderr, fmt.Sprintf("%s %s", env.ModelName, env.Scenario), res, env.Scenario)
	}
	return res, nil
}

// text is what a score prints: Text, or the Lines.
func (s *Score) text() string {
	if s.Text != "" {
		if !strings.HasSuffix(s.Text, "\n") {
			return s.Text + "\n"
		}
		return s.Text
	}
	return strings.Join(s.Lines, "\n") + "\n"
}

// runWithProgress runs run while printing a progress line of done() every
// second on w (nothing when done is nil).
func runWithProgress(ctx context.Context, w io.Writer, done func() int64, run func() (*loadgen.Result, error)) (*loadgen.Result, error) {
	if done == nil {
		return run()
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		p := NewProgress(w, "running", "samples")
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				p.Done()
				return
			case <-t.C:
				p.Update(int(done()), 0)
			}
		}
	}()
	res, err := run()
	close(stop)
	<-finished
	return res, err
}

// DepsPath is where `make setup` installs a benchmark's side files (a
// vocabulary, a tokenizer), joined from elem: the first of the places
// package internal/deps searches ($MLPERF_DEPS, a clone's .deps, the
// executable's, the per-user folder) that has it, else the first place.
// Use it for an Option's Default with Option.Deps set.
func DepsPath(elem ...string) string {
	return deps.Path(path.Join(elem...))
}

// CheckDeps returns an error for each Option with Deps whose value in e
// is its default ("" counts as the default) and that is not installed:
// the error names every place searched once and the fix (`make setup`, or
// MLPERF_DEPS, or the flag).
func CheckDeps(opts []Option, e Extra) error {
	for _, o := range opts {
		if o.Deps == "" || (e[o.Name] != "" && e[o.Name] != o.Default) {
			continue
		}
		if _, err := deps.Find(o.Deps); err != nil {
			return fmt.Errorf("--%s: %w; or give --%s PATH", o.Name, err, o.Name)
		}
	}
	return nil
}

// CheckBatch returns a usage error when a model file fixes its batch
// dimension (fixed > 0) below --batch.
func (e *Env) CheckBatch(fixed int) error {
	if fixed > 0 && e.Batch > fixed {
		return UsageError("%s: the model has a fixed batch size of %d; use --batch %d or less", e.Benchmark.Name, fixed, fixed)
	}
	return nil
}

// Describe is the usual line about a tensor-model run: scenario, mode,
// model, backend, batch, workers and the data set's sample count.
func (e *Env) Describe(samples int) string {
	return fmt.Sprintf("%s: %s %s, model %s, %s backend, batch %d, %d worker(s), %d samples in the data set",
		e.Benchmark.Name, e.Scenario, e.Mode, e.Model, e.Backend, e.Batch, e.Workers, samples)
}

// FileIn resolves a data set argument that may name the file itself or a
// folder holding it under its conventional name.
func FileIn(path, name string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, name)
	}
	return path
}

// TensorModel is a model over one engine session that OpenTensorModel
// prepares: a harness.Model whose file may fix the batch dimension
// (FixedBatch > 0) and that warms up with count calls of n samples.
type TensorModel interface {
	harness.Model
	FixedBatch() int
	Warmup(ctx context.Context, n, count int) error
}

// OpenTensorModel opens env.ModelPath with the run's engine settings
// (fetching only outputs; nil: all), binds it with newModel, checks its
// fixed batch against --batch and warms it up with warmups calls of
// --batch samples. On an error the session is closed; otherwise the
// caller closes it.
func OpenTensorModel[M TensorModel](ctx context.Context, env *Env, outputs []string, warmups int, newModel func(backend.Session) (M, error)) (backend.Session, M, error) {
	var zero M
	sess, err := env.OpenSession(env.ModelPath, outputs)
	if err != nil {
		return nil, zero, err
	}
	m, err := newModel(sess)
	if err != nil {
		err = fmt.Errorf("%w (model %s)", err, env.ModelDesc())
	} else if err = env.CheckBatch(m.FixedBatch()); err == nil {
		err = m.Warmup(ctx, env.Batch, warmups)
	}
	if err != nil {
		sess.Close()
		return nil, zero, err
	}
	return sess, m, nil
}

// syncWriter serialises the writes of several goroutines (the run's
// progress line, the QSL's loading progress) to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// serialize returns w made safe for concurrent writes: an *os.File (whose
// writes already are, and which Progress checks for a terminal) or a
// syncWriter as it is, nil as io.Discard, anything else wrapped in a
// syncWriter.
func serialize(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	switch w.(type) {
	case *os.File, *syncWriter:
		return w
	}
	return &syncWriter{w: w}
}
