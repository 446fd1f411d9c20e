package benchmark

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

// PerfRounds is how many rounds Perf measures, each a raw side and a
// harness side: the harness goes first in the first half, the raw side
// in the second, which cancels a drift in the machine's speed (other
// load, thermal limits) that a single before/after pair would put on one
// side only. The first round, sized before any rate is known, is the
// short one; the others run about the same samples.
const PerfRounds = 4

// PerfMinBatches is the fewest batches per worker each side of a round
// runs, so that a slow model is measured over whole batches rather than
// over a fixed time.
const PerfMinBatches = 2

// PerfResult is what Perf measured, in samples per second over all
// rounds, with each round's ratio.
type PerfResult struct {
	Raw, Harness float64
	// Rounds are the harness/raw ratios of the rounds.
	Rounds []float64
}

// Ratio is harness throughput over raw throughput.
func (r PerfResult) Ratio() float64 { return r.Harness / r.Raw }

// Spread is the lowest and highest round ratio.
func (r PerfResult) Spread() (lo, hi float64) {
	if len(r.Rounds) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(r.Rounds), slices.Max(r.Rounds)
}

// Perf measures b's model called directly (the raw side: the Instance's
// Model, or Raw, with --batch samples a call from --workers goroutines)
// against the same model through full loadgen Offline performance runs
// (the harness side), as a fair A/B: in each of PerfRounds rounds both
// sides run the same samples in the same order (the harness run's query,
// replayed; in a round the raw side opens, the harness then runs as many
// samples as it replayed, which LoadGen draws the same), at least
// PerfMinBatches batches per worker and about d/PerfRounds long. With
// Instance.RawWhole the raw side hands each round's samples to Raw in
// one call, as the Offline query hands them to the SUT. It
// prints each round on stderr and then, on stdout, the raw and harness
// throughputs, the spread of the round ratios and `ratio=` as the last
// line.
func Perf(ctx context.Context, b *spec.Benchmark, o Options, d time.Duration, stdout, stderr io.Writer) (PerfResult, error) {
	if d <= 0 {
		return PerfResult{}, fmt.Errorf("%s: perf --duration %v: want a positive duration (e.g. 10s)", b.Name, d)
	}
	o.Scenario, o.Mode = loadgen.Offline, loadgen.PerformanceOnly
	s, err := newSetup(b, o, stdout, stderr)
	if err != nil {
		return PerfResult{}, err
	}
	defer s.release()
	stdout, stderr = s.stdout, s.stderr // stdout may have been nil
	op, err := s.open(ctx)
	if err != nil {
		return PerfResult{}, err
	}
	defer op.stop()
	if op.raw == nil {
		return PerfResult{}, fmt.Errorf("%s: perf is not available for this model", b.Name)
	}
	if op.inst.Describe != "" {
		fmt.Fprintln(stderr, op.inst.Describe)
	}
	minSamples := PerfMinBatches * s.o.Batch * s.o.Workers
	fmt.Fprintf(stderr, "perf: the model called directly vs loadgen Offline runs of the same samples in the same order, batch %d, %d worker(s), at least %d samples and about %v a side, in %d rounds\n",
		s.o.Batch, s.o.Workers, minSamples, d/PerfRounds, PerfRounds)
	rec := &recorder{SUT: op.sut}
	// harnessSide runs a loadgen Offline query sized by qps (so that it
	// lasts about d/PerfRounds), or of exactly n samples when n > 0.
	harnessSide := func(qps float64, n int) (side, []loadgen.SampleIndex, error) {
		rec.reset()
		least := minSamples
		if n > 0 {
			qps, least = 0, n
		}
		done, el, err := offlineRun(ctx, s, rec, op.inst.QSL, d/PerfRounds, qps, least)
		if err != nil {
			return side{}, nil, fmt.Errorf("perf: harness run: %w", err)
		}
		return side{done, el}, rec.samples(), nil
	}
	rawSide := func(order []loadgen.SampleIndex) (side, error) {
		batch, workers := s.o.Batch, s.o.Workers
		if op.inst.RawWhole {
			batch, workers = len(order), 1
		}
		n, el, err := replay(ctx, op.raw, op.inst.QSL, order, batch, workers)
		if err != nil {
			return side{}, fmt.Errorf("perf: raw run: %w", err)
		}
		return side{n, el}, nil
	}
	var res PerfResult
	var rawAll, harnessAll side
	var order []loadgen.SampleIndex
	for r := range PerfRounds {
		var raw, h side
		if r < PerfRounds/2 {
			if h, order, err = harnessSide(harnessAll.rate(), 0); err == nil {
				raw, err = rawSide(order)
			}
		} else if raw, err = rawSide(order); err == nil {
			// As many samples as the raw side just ran: LoadGen draws the
			// same ones in the same order for the same count, so both
			// sides of the round run the same work (a continuous
			// batcher's throughput depends on how many sequences it has).
			h, order, err = harnessSide(0, len(order))
		}
		if err != nil {
			return res, err
		}
		if raw.n <= 0 || raw.el <= 0 || h.n <= 0 || h.el <= 0 {
			return res, fmt.Errorf("perf: round %d completed no sample; give a longer --duration", r+1)
		}
		rawAll, harnessAll = rawAll.add(raw), harnessAll.add(h)
		res.Rounds = append(res.Rounds, h.rate()/raw.rate())
		fmt.Fprintf(stderr, "perf: round %d/%d: raw %.2f, harness %.2f samples/s over %d samples (ratio %.4f)\n", r+1, PerfRounds, raw.rate(), h.rate(), h.n, h.rate()/raw.rate())
	}
	res.Raw, res.Harness = rawAll.rate(), harnessAll.rate()
	lo, hi := res.Spread()
	if op.inst.RawWhole {
		fmt.Fprintf(stdout, "raw:     %.2f samples/s (the SUT's batcher called directly with each round's samples, batch %d)\n", res.Raw, s.o.Batch)
	} else {
		fmt.Fprintf(stdout, "raw:     %.2f samples/s (the model called directly, batch %d, %d worker(s))\n", res.Raw, s.o.Batch, s.o.Workers)
	}
	fmt.Fprintf(stdout, "harness: %.2f samples/s (loadgen Offline, logs in %s)\n", res.Harness, s.o.Out)
	fmt.Fprintf(stdout, "rounds:  ratio %.4f to %.4f over %d rounds\n", lo, hi, len(res.Rounds))
	fmt.Fprintf(stdout, "ratio=%.4f\n", res.Ratio())
	return res, nil
}

// side is one measurement: samples done and the time they took.
type side struct {
	n  int64
	el time.Duration
}

func (s side) add(t side) side { return side{s.n + t.n, s.el + t.el} }

// rate is samples per second (0 before any measurement).
func (s side) rate() float64 {
	if s.el <= 0 {
		return 0
	}
	return float64(s.n) / s.el.Seconds()
}

// offlineRun runs sut and qsl as an Offline performance run of at least
// minSamples samples and about d, with the query sized from expectedQPS,
// logging into the run's folder, and returns the samples it completed and
// the time they took (LoadGen's max latency, the denominator of its
// samples per second).
func offlineRun(ctx context.Context, s *setup, sut loadgen.SUT, qsl loadgen.QSL, d time.Duration, expectedQPS float64, minSamples int) (int64, time.Duration, error) {
	ls, err := loadgen.LoadConfigs(s.o.ModelName, loadgen.Offline, loadgen.PerformanceOnly, "", "", "")
	if err != nil {
		return 0, 0, err
	}
	ls.MinDurationMs = uint64(d / time.Millisecond)
	// Offline's one query is max(min_query_count, 1.1 × min_duration ×
	// expected QPS) samples.
	ls.MinQueryCount = uint64(minSamples)
	ls.OfflineExpectedQPS = max(expectedQPS, 1/max(d.Seconds(), 1e-3))
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = s.o.Out
	res, err := loadgen.Run(ctx, sut, qsl, ls, logs)
	if err != nil {
		return 0, 0, err
	}
	if res.FailedSamples > 0 {
		return 0, 0, fmt.Errorf("the SUT failed %d samples (see %s)", res.FailedSamples, logs.OutDir)
	}
	return int64(res.SampleCount), time.Duration(res.Latency.Max), nil
}

// recorder passes queries to a SUT and keeps the sample indices issued,
// in order, so that perf's raw side can replay them.
type recorder struct {
	loadgen.SUT
	mu  sync.Mutex
	idx []loadgen.SampleIndex
}

// IssueQuery implements loadgen.SUT.
func (r *recorder) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	r.mu.Lock()
	for _, q := range samples {
		r.idx = append(r.idx, q.Index)
	}
	r.mu.Unlock()
	r.SUT.IssueQuery(ctx, samples, c)
}

// Name gives the loadgen the SUT's own name, as it would see it.
func (r *recorder) Name() string {
	if n, ok := r.SUT.(loadgen.Namer); ok {
		return n.Name()
	}
	return "GoSUT"
}

// Flush passes a flush on.
func (r *recorder) Flush() {
	if f, ok := r.SUT.(loadgen.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.idx = r.idx[:0]
	r.mu.Unlock()
}

func (r *recorder) samples() []loadgen.SampleIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.idx)
}

// replay loads the samples of order and runs m on them in that order,
// batch samples a Predict call, from workers goroutines each taking the
// next batch, without the loadgen or the harness; it returns the samples
// done and the time from the first call to the last completion. A sample
// the model fails is an error.
func replay(ctx context.Context, m harness.Model, qsl loadgen.QSL, order []loadgen.SampleIndex, batch, workers int) (int64, time.Duration, error) {
	if len(order) == 0 {
		return 0, 0, nil
	}
	batch, workers = max(batch, 1), max(workers, 1)
	set := slices.Clone(order)
	slices.Sort(set)
	set = slices.Compact(set)
	if err := qsl.LoadSamples(ctx, set); err != nil {
		return 0, 0, err
	}
	defer qsl.UnloadSamples(context.WithoutCancel(ctx), set)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			out := make([]loadgen.Response, batch)
			for ctx.Err() == nil {
				from := int(next.Add(int64(batch))) - batch
				if from >= len(order) {
					return
				}
				idx := order[from:min(from+batch, len(order))]
				out = out[:len(idx)]
				for i := range out {
					out[i] = loadgen.Response{ID: loadgen.ResponseID(from + i)}
				}
				if err := m.Predict(ctx, idx, out); err != nil {
					cancel(err)
					return
				}
				for i := range out {
					if out[i].Err != nil {
						cancel(fmt.Errorf("sample %d: %w", idx[i], out[i].Err))
						return
					}
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return 0, el, err
	}
	return int64(len(order)), el, nil
}
