package benchmark

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// PerfRounds is how many times Perf alternates between the raw
// measurement and the harness run: alternating in rounds cancels a drift
// in the machine's speed (other load, thermal limits) that a single
// before/after pair would put on one side only.
const PerfRounds = 4

// PerfSide measures one side for about d and returns the samples done and
// the time they took.
type PerfSide func(ctx context.Context, d time.Duration, expectedQPS float64) (samples int64, elapsed time.Duration, err error)

// PerfResult is what Perf measured, in samples per second.
type PerfResult struct {
	Raw, Harness float64
}

// Ratio is harness throughput over raw throughput.
func (r PerfResult) Ratio() float64 { return r.Harness / r.Raw }

// Perf measures b's engine alone (Instance.Raw) against the same model
// through full loadgen Offline performance runs, each for about d in all,
// alternating in PerfRounds rounds. It prints each round on stderr and
// then, on stdout, the raw and harness throughputs and `ratio=` as the
// last line.
func Perf(ctx context.Context, b *Benchmark, o Options, d time.Duration, stdout, stderr io.Writer) (PerfResult, error) {
	if d <= 0 {
		return PerfResult{}, fmt.Errorf("%s: perf --duration %v: want a positive duration (e.g. 10s)", b.Name, d)
	}
	o.Scenario, o.Mode = loadgen.Offline, loadgen.PerformanceOnly
	env, err := NewEnv(b, o, stderr)
	if err != nil {
		return PerfResult{}, err
	}
	stderr = env.Stderr
	inst, sut, closeAll, err := open(ctx, env)
	if err != nil {
		return PerfResult{}, err
	}
	defer closeAll()
	if inst.Raw == nil {
		return PerfResult{}, fmt.Errorf("%s: perf is not available for this model", b.Name)
	}
	raw := func(ctx context.Context, d time.Duration, _ float64) (int64, time.Duration, error) {
		return inst.Raw(ctx, d)
	}
	viaHarness := func(ctx context.Context, d time.Duration, qps float64) (int64, time.Duration, error) {
		return OfflineRun(ctx, env, sut, inst.QSL, d, qps)
	}
	if inst.Describe != "" {
		fmt.Fprintln(stderr, inst.Describe)
	}
	fmt.Fprintf(stderr, "perf: raw %s engine calls vs loadgen Offline runs, batch %d, %d worker(s), %v each, alternating in %d rounds\n", env.Backend, env.Batch, env.Workers, d, PerfRounds)
	r, err := PerfCompare(ctx, stderr, d, raw, viaHarness)
	if err != nil {
		return r, err
	}
	fmt.Fprintf(stdout, "raw:     %.2f samples/s (batch %d, %d worker(s))\n", r.Raw, env.Batch, env.Workers)
	fmt.Fprintf(stdout, "harness: %.2f samples/s (loadgen Offline, logs in %s)\n", r.Harness, env.Out)
	fmt.Fprintf(stdout, "ratio=%.4f\n", r.Ratio())
	return r, nil
}

// PerfCompare measures raw and harness throughput in PerfRounds rounds of
// raw (d/rounds/2), harness (d/rounds), raw (d/rounds/2), so that each
// side gets about d in all, and prints each round on w.
func PerfCompare(ctx context.Context, w io.Writer, d time.Duration, raw, harness PerfSide) (PerfResult, error) {
	var rawN, harnessN int64
	var rawT, harnessT time.Duration
	sideRaw := func(d time.Duration) (float64, error) {
		n, el, err := raw(ctx, d, 0)
		if err != nil {
			return 0, fmt.Errorf("perf: raw run: %w", err)
		}
		if n <= 0 || el <= 0 {
			return 0, fmt.Errorf("perf: the raw side completed no sample in %v; give a longer --duration", d)
		}
		rawN, rawT = rawN+n, rawT+el
		return float64(n) / el.Seconds(), nil
	}
	per := d / PerfRounds
	for r := range PerfRounds {
		a, err := sideRaw(per / 2)
		if err != nil {
			return PerfResult{}, err
		}
		n, el, err := harness(ctx, per, float64(rawN)/rawT.Seconds())
		if err != nil {
			return PerfResult{}, err
		}
		if n <= 0 || el <= 0 {
			return PerfResult{}, fmt.Errorf("perf: the harness run completed no sample in %v; give a longer --duration", per)
		}
		harnessN, harnessT = harnessN+n, harnessT+el
		b, err := sideRaw(per / 2)
		if err != nil {
			return PerfResult{}, err
		}
		fmt.Fprintf(w, "perf: round %d/%d: raw %.2f, harness %.2f, raw %.2f samples/s\n", r+1, PerfRounds, a, float64(n)/el.Seconds(), b)
	}
	return PerfResult{Raw: float64(rawN) / rawT.Seconds(), Harness: float64(harnessN) / harnessT.Seconds()}, nil
}

// OfflineRun runs sut and qsl as an Offline performance run of about d
// with the query sized from expectedQPS, logging into env.Out, and returns
// the samples it completed and the time they took (LoadGen's max latency,
// the denominator of its samples per second).
func OfflineRun(ctx context.Context, env *Env, sut loadgen.SUT, qsl loadgen.QSL, d time.Duration, expectedQPS float64) (int64, time.Duration, error) {
	s, err := loadgen.LoadConfigs(env.ModelName, loadgen.Offline, loadgen.PerformanceOnly, "", "", "")
	if err != nil {
		return 0, 0, err
	}
	s.MinDurationMs = uint64(d / time.Millisecond)
	s.MinQueryCount = 1
	// The floor sizes the query at about one sample per d, not one per
	// second: a model slower than 1 sample/s (RetinaNet or a large model
	// on a CPU) would otherwise get a query many times d long.
	s.OfflineExpectedQPS = max(expectedQPS, 1/max(d.Seconds(), 1e-3))
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = env.Out
	res, err := loadgen.Run(ctx, sut, qsl, s, logs)
	if err != nil {
		return 0, 0, err
	}
	if res.FailedSamples > 0 {
		return 0, 0, fmt.Errorf("the SUT failed %d samples (see %s)", res.FailedSamples, logs.OutDir)
	}
	return int64(res.SampleCount), time.Duration(res.Latency.Max), nil
}

// LoadBatches loads the first min(total, maxBatches×batch) samples of qsl
// and returns them as batches of batch samples (at least one batch; a
// short set is cycled to fill it), for a raw side that runs the engine on
// real loaded data. sample reads a loaded sample. The caller calls unload
// when it no longer needs the samples; the batches stay valid only until
// then for QSLs that reuse buffers.
func LoadBatches[T any](ctx context.Context, qsl loadgen.QSL, batch, maxBatches int, sample func(loadgen.SampleIndex) (T, bool)) (batches [][]T, unload func(), err error) {
	if batch < 1 {
		return nil, nil, fmt.Errorf("benchmark: batch %d: want at least 1", batch)
	}
	total := qsl.TotalSampleCount()
	nb := max(1, min(maxBatches, total/batch))
	idx := make([]loadgen.SampleIndex, 0, min(nb*batch, total))
	for i := range min(nb*batch, total) {
		idx = append(idx, loadgen.SampleIndex(i))
	}
	if err := qsl.LoadSamples(ctx, idx); err != nil {
		return nil, nil, err
	}
	unload = func() { qsl.UnloadSamples(context.WithoutCancel(ctx), idx) }
	batches = make([][]T, nb)
	for k := range batches {
		batches[k] = make([]T, batch)
		for j := range batch {
			i := idx[(k*batch+j)%len(idx)]
			x, ok := sample(i)
			if !ok {
				unload()
				return nil, nil, fmt.Errorf("benchmark: sample %d is not loaded after LoadSamples", i)
			}
			batches[k][j] = x
		}
	}
	return batches, unload, nil
}
