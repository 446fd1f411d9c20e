package benchmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/internal/boundedread"
	"github.com/mlperf-go/inference/internal/hist"
	"github.com/mlperf-go/inference/internal/outlock"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// SyntheticNote is printed under a score from a synthetic model.
const SyntheticNote = "(synthetic weights: accuracy not meaningful)"

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
func SyntheticSize(b *spec.Benchmark, model string) (size string, ok bool, err error) {
	s := strings.ToLower(model)
	if s != "synthetic" && !strings.HasPrefix(s, "synthetic:") {
		return "", false, nil
	}
	if !b.BuildsModels() {
		return "", true, fmt.Errorf("%s: no synthetic model in this build", b.Name)
	}
	name, _ := strings.CutPrefix(s, "synthetic:")
	if name == "synthetic" || name == "full" {
		name = b.Model.Sizes[0].Name
	}
	names := b.SizeNames()
	if slices.Contains(names, name) {
		return name, true, nil
	}
	return "", true, spec.UsageError("%s: --model %s: no synthetic size %q; want synthetic or synthetic:SIZE with SIZE one of %s", b.Name, model, name, strings.Join(names, ", "))
}

// BuildModel writes b's synthetic model of a size and seed to path (see
// spec.ModelBuilder).
func BuildModel(b *spec.Benchmark, path, size string, seed uint64) error {
	mb, ok := b.Driver.(spec.ModelBuilder)
	if !ok || len(b.Model.Sizes) == 0 {
		return fmt.Errorf("%s: no synthetic model in this build", b.Name)
	}
	return mb.BuildModel(path, size, seed)
}

// ModelFile is what WriteModel wrote: the files and their total size.
type ModelFile struct {
	Files []string
	Bytes int64
}

// WriteModel is `mlperf model build`: it writes b's synthetic model of a
// size and seed to path, as ONNX (weights too large for one file going to
// path.data beside it) or, with format "gguf", as a llama.cpp GGUF of the
// same weights (b's driver a spec.GGUFBuilder, extra its options).
func WriteModel(b *spec.Benchmark, path, format, size string, seed uint64, extra spec.Extra) (ModelFile, error) {
	ext := ".onnx"
	switch format {
	case "onnx":
	case "gguf":
		ext = ".gguf"
		if _, ok := b.Driver.(spec.GGUFBuilder); !ok {
			return ModelFile{}, spec.UsageError("%s: --format gguf: this benchmark writes ONNX only", b.Name)
		}
	default:
		return ModelFile{}, spec.UsageError("--format %q: want onnx or gguf", format)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return ModelFile{}, spec.UsageError("-o %s is a folder; -o names the %s file to write, e.g. -o %s", path, ext, filepath.Join(path, "model"+ext))
	}
	if _, ok, err := SyntheticSize(b, "synthetic:"+size); err != nil || !ok {
		return ModelFile{}, spec.UsageError("--size %q: want one of %s", size, strings.Join(b.SizeNames(), ", "))
	}
	if format == "gguf" {
		if err := b.Driver.(spec.GGUFBuilder).BuildGGUF(path, size, seed, extra); err != nil {
			return ModelFile{}, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return ModelFile{}, err
		}
		return ModelFile{Files: []string{path}, Bytes: st.Size()}, nil
	}
	if err := BuildModel(b, path, size, seed); err != nil {
		return ModelFile{}, err
	}
	files, n, err := onnx.Files(path)
	return ModelFile{Files: files, Bytes: n}, err
}

// ResolveModel turns a --model value into a file: the given file, which
// must exist, or b's synthetic model of that size, built once (seed
// b.Model.Seed) into cacheDir/<name>-synthetic-<size>/model.onnx. It
// returns the path and the synthetic size ("" for a file).
func ResolveModel(b *spec.Benchmark, model, cacheDir string, stderr io.Writer) (path, size string, err error) {
	size, ok, err := SyntheticSize(b, model)
	if err != nil {
		return "", "", err
	}
	if !ok {
		if _, err := os.Stat(model); err != nil {
			return "", "", fmt.Errorf("%s: model file %s not found (download it with %s/download_model.sh, or use --model synthetic)", b.Name, model, b.Folder())
		}
		return model, "", nil
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
	if err := BuildModel(b, filepath.Join(tmp, "model.onnx"), size, b.Model.Seed); err != nil {
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

// setup is one run's set-up: the validated options, the resolved model,
// the engine that opens it, and the run's own measurements. It is what
// the Driver's requests are made from.
type setup struct {
	b         *spec.Benchmark
	o         Options
	modelPath string
	synthSize string
	cacheDir  string
	stdout    io.Writer
	stderr    io.Writer
	engine    *engine
	stats     runStats
	// lock holds the output folder for this run (nil without one).
	lock *outlock.Lock
}

// release gives up the output folder; call it when the run is done.
func (s *setup) release() { s.lock.Release() }

// newSetup validates o for b, makes the output folder and resolves (or
// builds) the model.
func newSetup(b *spec.Benchmark, o Options, stdout, stderr io.Writer) (*setup, error) {
	stderr = serialize(stderr)
	if stdout == nil {
		stdout = io.Discard
	}
	if err := o.Validate(b); err != nil {
		return nil, err
	}
	if strings.TrimSpace(o.Out) == "" {
		// The logs would land in the working folder.
		return nil, spec.UsageError("%s: --out is empty; name the folder for the run's logs (default out/%s)", b.Name, b.Name)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("%s: output folder: %w", b.Name, err)
	}
	s := &setup{b: b, o: o, cacheDir: CacheDir(), stdout: stdout, stderr: stderr}
	// Two runs into one folder would overwrite each other's logs.
	l, err := outlock.Acquire(o.Out)
	if err != nil {
		return nil, fmt.Errorf("%s: --out %s: %w", b.Name, o.Out, err)
	}
	s.lock = l
	ok := false
	defer func() {
		if !ok {
			s.release()
		}
	}()
	s.engine = &engine{s: s}
	if o.Remote() {
		// --model is not used: the model is the engine's.
		s.o.Model = fmt.Sprintf("%s served at %s", s.servedModel(), o.shownEndpoints())
		if o.Protocol == "grpc" {
			s.o.Model += " over gRPC"
		}
		ok = true
		return s, nil
	}
	path, size, err := ResolveModel(b, o.Model, s.cacheDir, stderr)
	if err != nil {
		return nil, err
	}
	s.modelPath, s.synthSize = path, size
	ok = true
	return s, nil
}

// openRequest is what the Driver's Open gets.
func (s *setup) openRequest() *spec.OpenRequest {
	return &spec.OpenRequest{
		RunOptions: s.o.runOptions(), Name: s.b.Name, Model: s.o.Model,
		ModelPath: s.modelPath, SyntheticSize: s.synthSize, ModelDesc: s.modelDesc(), CacheDir: s.cacheDir,
		Engine: s.engine, Progress: s.progress, Stdout: s.stdout, Stderr: s.stderr,
	}
}

// scoreRequest is what the Driver's Score gets for the run's log.
func (s *setup) scoreRequest(log string) *spec.ScoreRequest {
	return &spec.ScoreRequest{
		Log: log, Data: s.o.Data, Count: s.o.Count, ModelName: s.o.ModelName, Extra: s.o.Extra,
		ModelPath: s.modelPath, SyntheticSize: s.synthSize, Out: s.o.Out, CacheDir: s.cacheDir,
		AccuracyFiles: s.o.AccuracyFiles, Engine: s.engine, Stderr: s.stderr,
	}
}

// progress starts a progress line on the run's stderr.
func (s *setup) progress(what, unit string) spec.Progress { return NewProgress(s.stderr, what, unit) }

// opened is an opened benchmark: the Driver's Instance, the SUT the
// loadgen runs, and how perf calls the model directly.
type opened struct {
	inst *spec.Instance
	sut  loadgen.SUT
	raw  harness.Model // nil: perf is not available
	stop func()
}

// open calls the Driver's Open, checks and warms up a tensor model and
// wraps it in the scenario's SUT.
func (s *setup) open(ctx context.Context) (*opened, error) {
	b := s.b
	inst, err := b.Driver.Open(ctx, s.openRequest())
	if err != nil {
		return nil, err
	}
	closeInst := func() {
		if inst.Close != nil {
			inst.Close()
		}
	}
	op := &opened{inst: inst, stop: closeInst}
	if err := s.checkBatchMemory(inst); err != nil {
		closeInst()
		return nil, err
	}
	switch {
	case inst.SUT != nil && inst.Model == nil:
		op.sut, op.raw = inst.SUT, inst.Raw
		if s.engine.remoteName != nil {
			op.sut = namedSUT{inst.SUT, s.engine.remoteName}
		}
		return op, nil
	case inst.Model != nil && inst.SUT == nil:
	default:
		closeInst()
		return nil, fmt.Errorf("%s: Open must set exactly one of Instance.Model and Instance.SUT", b.Name)
	}
	m := inst.Model
	if err := s.prepare(ctx, m, inst.Warmups); err != nil {
		closeInst()
		return nil, err
	}
	op.raw = m
	if len(s.stats.server.endpoints) > 0 {
		// Remote kserve: note which endpoint served each sample.
		m = endpointModel{m, &s.stats.sampleEP}
	}
	cfg := harness.PoolConfig{Batch: s.o.Batch, Workers: s.o.Workers}
	if s.o.Scenario == loadgen.Server || s.o.Scenario == loadgen.MultiStream {
		// Offline queues its one query whole: its waits are the run.
		cfg.QueueWait = &s.stats.queueWait
	}
	if s.o.Scenario == loadgen.Server {
		cfg.SendLag = &s.stats.sendLag
	}
	sut, closeSUT, err := harness.ForScenario(s.o.Scenario.String(), m, cfg)
	if err != nil {
		closeInst()
		return nil, err
	}
	if inst.FirstTokenBytes > 0 && s.o.Scenario != loadgen.Offline {
		sut = firstTokenSUT{sut, inst.FirstTokenBytes}
	}
	if s.engine.remoteName != nil {
		sut = namedSUT{sut, s.engine.remoteName}
	}
	op.sut, op.stop = sut, func() { closeSUT(); closeInst() }
	return op, nil
}

// checkBatchMemory refuses a --batch (times --workers, for a model the
// framework batches) whose samples cannot fit in memory at once, before
// the warm-up or the run allocates them: one sample takes inst.SampleBytes,
// or backend.WorkingFactor times the inputs and outputs of the sessions
// the Driver opened (with a remote text engine's bounded requests), on
// every backend. The message carries the arithmetic and the fix.
func (s *setup) checkBatchMemory(inst *spec.Instance) error {
	// A benchmark's own estimate is of a local engine (activations,
	// caches); a remote one holds only the requests here.
	per, how := inst.SampleBytes, "the benchmark's estimate of one sample's working memory"
	if per <= 0 || s.o.Remote() {
		per = satAdd(satMul(backend.WorkingFactor, s.engine.sampleIO), s.engine.sampleFixed)
		how = fmt.Sprintf("one sample taken as %d × its %s of inputs and outputs", backend.WorkingFactor, backend.FormatBytes(s.engine.sampleIO))
		if s.engine.sampleFixed > 0 {
			how = fmt.Sprintf("one request in flight holding up to %s of streamed text", backend.FormatBytes(s.engine.sampleFixed))
		}
	}
	if per <= 0 {
		return nil
	}
	n, what := s.o.Batch, fmt.Sprintf("--batch %d", s.o.Batch)
	switch {
	case inst.Model != nil && s.o.Workers > 1:
		n, what = s.o.Batch*s.o.Workers, fmt.Sprintf("--batch %d × --workers %d", s.o.Batch, s.o.Workers)
	case inst.Model == nil && s.o.Workers > s.o.Batch && s.engine.sampleFixed > 0:
		n, what = s.o.Workers, fmt.Sprintf("--workers %d", s.o.Workers) // requests in flight
	}
	if _, err := backend.CheckBatchMemory(what, n, per); err != nil {
		return spec.UsageError("%s: %v (%s); give a smaller --batch (or --workers)", s.b.Name, err, how)
	}
	return nil
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// prepare checks a model's fixed batch against --batch and warms it up
// with warmups calls of --batch samples.
func (s *setup) prepare(ctx context.Context, m harness.Model, warmups int) error {
	if f, ok := m.(spec.FixedBatcher); ok {
		if fixed := f.FixedBatch(); fixed > 0 && s.o.Batch > fixed {
			return spec.UsageError("%s: the model has a fixed batch size of %d; use --batch %d or less", s.b.Name, fixed, fixed)
		}
	}
	if w, ok := m.(spec.Warmer); ok && warmups > 0 {
		return w.Warmup(ctx, s.o.Batch, warmups)
	}
	return nil
}

// Run runs b end to end as o asks: resolve and open the model and data,
// run the loadgen, print the summary on stdout, and in accuracy and
// submission modes score the accuracy log, print the score and write
// accuracy.txt. Progress and notes go to stderr. It returns the loadgen
// result.
func Run(ctx context.Context, b *spec.Benchmark, o Options, stdout, stderr io.Writer) (*loadgen.Result, error) {
	s, err := newSetup(b, o, stdout, stderr)
	if err != nil {
		return nil, err
	}
	defer s.release()
	stdout, stderr = s.stdout, s.stderr // stdout may have been nil
	ls, err := Settings(&s.o)
	if err != nil {
		return nil, err
	}
	op, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	defer op.stop()
	inst := op.inst
	if inst.Describe != "" {
		fmt.Fprintln(stderr, inst.Describe)
	}
	if inst.QSL != nil && s.o.Count > inst.QSL.TotalSampleCount() {
		fmt.Fprintf(stderr, "%s: note: --count %d is more than the %d samples of the data set; all %d are used\n", b.Name, s.o.Count, inst.QSL.TotalSampleCount(), inst.QSL.TotalSampleCount())
	}
	if inst.QSL != nil {
		// A run the settings make long (Server at 0.0001 QPS, a day of
		// min_duration) keeps LoadGen's semantics, but says so up front.
		// --duration is a minimum: settings whose query count outlasts it
		// get a note naming the count and the setting to change.
		note := loadgen.DurationNote(ls, inst.QSL.TotalSampleCount(), inst.QSL.PerformanceSampleCount(), s.o.Duration)
		if note == "" {
			note = loadgen.LongRunNote(ls, inst.QSL.TotalSampleCount(), inst.QSL.PerformanceSampleCount(), 0)
		}
		if note != "" {
			fmt.Fprintf(stderr, "%s: %s\n", b.Name, note)
		}
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = s.o.Out
	logs.OnSeries = s.stats.reset
	extra := s.stats.extra(s.o.Scenario)
	logs.Extra = func(r *loadgen.Result) []loadgen.DetailEntry {
		return append(extra(r), loadgen.DetailEntry{Name: BenchmarkName, Value: map[string]any{"name": b.Name, "checker_ids": b.CheckerIDs}})
	}
	switch {
	case s.stats.llm != nil:
		for _, e := range s.stats.llm.EndpointStats() {
			logs.Endpoints = append(logs.Endpoints, e.Endpoint)
		}
		logs.EndpointOf = s.stats.sampleEP.of
	case len(s.stats.server.endpoints) > 0:
		for i := range s.stats.server.endpoints {
			logs.Endpoints = append(logs.Endpoints, s.stats.server.endpoints[i].name)
		}
		logs.EndpointOf = s.stats.sampleEP.of
	case s.o.Remote() && len(s.o.Endpoints) == 1:
		// One endpoint (openai) served every sample.
		logs.Endpoints = s.o.Endpoints
		logs.EndpointOf = func(loadgen.ResponseID) uint8 { return 0 }
	}
	logs.Monitor = &loadgen.Monitor{}
	// What is still in flight when the loadgen returns (after a
	// completion timeout, say) is cancelled then: the run does not wait
	// for a stalled engine's own time limit.
	runCtx, cancelRun := context.WithCancel(ctx)
	res, err := runWithProgress(stderr, logs.Monitor, s.o.Duration, func() (*loadgen.Result, error) {
		defer cancelRun()
		return loadgen.Run(runCtx, op.sut, inst.QSL, ls, logs)
	})
	if err != nil {
		return nil, err
	}
	summaryPath := filepath.Join(s.o.Out, "mlperf_log_summary.txt")
	switch summary, err := boundedread.File(summaryPath, "the summary log", maxSummaryBytes); {
	case err == nil:
		stdout.Write(summary)
	case !errors.Is(err, os.ErrNotExist):
		return res, fmt.Errorf("%s: reading back %s: %w", b.Name, summaryPath, err)
	}
	if ls.Mode == loadgen.AccuracyOnly || ls.Mode == loadgen.SubmissionRun {
		sc, err := Score(ctx, b, s.scoreRequest(filepath.Join(s.o.Out, AccuracyLogName)))
		if err != nil {
			return res, err
		}
		rec := Record{Name: b.Name, Out: filepath.Join(s.o.Out, "accuracy.txt"), Synthetic: s.synthSize != ""}
		if err := rec.Write(stdout, sc); err != nil {
			return res, err
		}
	}
	s.stats.reportIDs(stderr, b.Name)
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
		fmt.Fprintf(stderr, "%s %s: %s = %.4g (%s); logs in %s\n", s.o.ModelName, s.o.Scenario, name, v, valid, s.o.Out)
		s.stats.report(stderr, fmt.Sprintf("%s %s", s.o.ModelName, s.o.Scenario), res, s.o.Scenario)
	}
	return res, nil
}

// maxSummaryBytes bounds the summary log read back after a run (a few
// kB; a damaged file is not read whole).
const maxSummaryBytes = 1 << 20

// runWithProgress runs run while printing, every second, a progress line
// of the series mon follows (see statusOf), a warning line whenever the
// run is heading INVALID for a new reason, and once a note when at the
// rate so far the run lasts much longer than asked (the --duration, 0
// for none).
func runWithProgress(w io.Writer, mon *loadgen.Monitor, asked time.Duration, run func() (*loadgen.Result, error)) (*loadgen.Result, error) {
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		p := NewProgress(w, "running", "samples")
		t := time.NewTicker(time.Second)
		defer t.Stop()
		var (
			lat      hist.Hist
			lastWarn string
			warnedAt time.Duration
			noted    bool
			series   int // completions of the series the rate window holds
			window   []ratePoint
		)
		for {
			select {
			case <-stop:
				p.Done()
				return
			case <-t.C:
			}
			pr, ok := mon.Poll(lat.Record)
			if !ok {
				continue
			}
			if pr.Completed < series || (len(window) > 0 && pr.Elapsed < window[len(window)-1].at) {
				lat.Reset() // a new series (accuracy, then performance)
				window, lastWarn = nil, ""
			}
			series = pr.Completed
			window = append(window, ratePoint{pr.Elapsed, pr.Completed})
			for len(window) > 2 && pr.Elapsed-window[0].at > rateWindow {
				window = window[1:]
			}
			rate := 0.0
			if first := window[0]; pr.Elapsed > first.at && len(window) > 1 {
				rate = float64(pr.Completed-first.done) / (pr.Elapsed - first.at).Seconds()
			} else if pr.Elapsed > 0 {
				rate = float64(pr.Completed) / pr.Elapsed.Seconds()
			}
			st := statusOf(pr, &lat, rate)
			// A warning when its reasons change, and again every 30 s
			// while they last, with the figures of the moment.
			if st.warnKind != "" && (st.warnKind != lastWarn || pr.Elapsed-warnedAt >= 30*time.Second) {
				p.Note("WARNING: " + st.warning)
				warnedAt = pr.Elapsed
			}
			lastWarn = st.warnKind
			if n := lengthNote(st.length, pr.Elapsed, asked); n != "" && !noted && !pr.Accuracy {
				p.Note(n)
				noted = true
			}
			p.Show(st.line, false)
		}
	}()
	res, err := run()
	close(stop)
	<-finished
	return res, err
}

// ratePoint is a series' completions at a time, for the current rate.
type ratePoint struct {
	at   time.Duration
	done int
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
