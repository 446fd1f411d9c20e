package benchmark

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// callLog is a model that records the samples of every Predict call in
// order; it fails sample fail (when ≥ 0).
type callLog struct {
	mu    sync.Mutex
	calls [][]loadgen.SampleIndex
	fail  int
}

func (m *callLog) Predict(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	m.mu.Lock()
	m.calls = append(m.calls, slices.Clone(idx))
	m.mu.Unlock()
	for i, s := range idx {
		out[i].Data = []byte{byte(s)}
		if int(s) == m.fail {
			out[i].Err = errors.New("bad sample")
		}
	}
	return nil
}

func (m *callLog) samples() []loadgen.SampleIndex {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Concat(m.calls...)
}

// replay runs the given order, batch samples a call, with each of its
// samples loaded once; a failed sample is an error.
func TestReplayRunsTheOrderInBatches(t *testing.T) {
	m := &callLog{fail: -1}
	q := &loadgentest.MemQSL{Total: 10, Performance: 10}
	order := []loadgen.SampleIndex{3, 1, 4, 1, 5, 9, 2, 6}
	n, el, err := replay(context.Background(), m, q, order, 3, 1)
	if err != nil || n != 8 || el <= 0 {
		t.Fatalf("replay = %d, %v, %v; want 8 samples", n, el, err)
	}
	want := [][]loadgen.SampleIndex{{3, 1, 4}, {1, 5, 9}, {2, 6}}
	if !slices.EqualFunc(m.calls, want, slices.Equal) {
		t.Errorf("calls %v, want %v", m.calls, want)
	}
	if loads := q.Loads(); len(loads) != 1 || !slices.Equal(loads[0], []loadgen.SampleIndex{1, 2, 3, 4, 5, 6, 9}) {
		t.Errorf("loads %v, want each sample of the order once", loads)
	}
	m = &callLog{fail: 5}
	if _, _, err := replay(context.Background(), m, q, order, 3, 2); err == nil || !strings.Contains(err.Error(), "sample 5: bad sample") {
		t.Errorf("a failed sample: %v", err)
	}
}

// TestReplayOfNoneAndOneSample: an empty order runs nothing; one sample is
// one call.
func TestReplayOfNoneAndOneSample(t *testing.T) {
	m := &callLog{fail: -1}
	q := &loadgentest.MemQSL{Total: 10, Performance: 10}
	if n, el, err := replay(context.Background(), m, q, nil, 3, 1); n != 0 || el != 0 || err != nil || len(m.calls) != 0 {
		t.Fatalf("empty order: %d, %v, %v, %d calls", n, el, err, len(m.calls))
	}
	if n, _, err := replay(context.Background(), m, q, []loadgen.SampleIndex{7}, 0, 0); n != 1 || err != nil || len(m.calls) != 1 || !slices.Equal(m.calls[0], []loadgen.SampleIndex{7}) {
		t.Fatalf("one sample: %d, %v, calls %v", n, err, m.calls)
	}
}

// Perf's raw side runs the same samples in the same order as the harness
// run of its round: in the first half of the rounds the harness goes
// first and the raw side replays its query; in the second the raw side
// replays the last harness query and the harness then runs that many
// samples, the same ones.
func TestPerfReplaysTheHarnessSamples(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	m := &callLog{fail: -1}
	open := driverOf(b).open
	driverOf(b).open = func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
		inst, err := open(ctx, r)
		if err == nil {
			inst.Model = m
		}
		return inst, err
	}
	var stdout, stderr bytes.Buffer
	o := Options{Model: "synthetic", Data: "synthetic", Backend: "cpu", Workers: 1, Batch: 3, Out: t.TempDir()}
	res, err := Perf(context.Background(), b, o, 40*time.Millisecond, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Perf: %v\n%s", err, stderr.String())
	}
	// At least two batches of --batch 3 per worker a side.
	if !strings.Contains(stderr.String(), "batch 3, 1 worker(s), at least 6 samples") {
		t.Errorf("stderr does not say the 6-sample floor:\n%s", stderr.String())
	}
	var sizes []int
	for _, l := range strings.Split(stderr.String(), "\n") {
		var r, rounds, n int
		var raw, h, ratio float64
		if _, err := fmt.Sscanf(l, "perf: round %d/%d: raw %g, harness %g samples/s over %d samples (ratio %g)", &r, &rounds, &raw, &h, &n, &ratio); err == nil {
			sizes = append(sizes, n)
		}
	}
	if len(sizes) != PerfRounds || len(res.Rounds) != PerfRounds {
		t.Fatalf("%d round lines, %d ratios, want %d:\n%s", len(sizes), len(res.Rounds), PerfRounds, stderr.String())
	}
	all := m.samples()
	next := func(n int) []loadgen.SampleIndex {
		if n > len(all) {
			t.Fatalf("the model saw %d samples fewer than the rounds say", n-len(all))
		}
		s := all[:n]
		all = all[n:]
		return s
	}
	// Rounds of the first half: harness, then the raw side replaying it.
	var h []loadgen.SampleIndex
	for r := 0; r < PerfRounds/2; r++ {
		h = next(sizes[r])
		if len(h) < PerfMinBatches*3 {
			t.Errorf("round %d: %d samples, want at least %d", r+1, len(h), PerfMinBatches*3)
		}
		if raw := next(sizes[r]); !slices.Equal(raw, h) {
			t.Errorf("round %d: raw side ran %v, harness %v", r+1, raw, h)
		}
	}
	// Of the second half: the raw side replaying the last harness query,
	// then the harness on as many samples, the same ones.
	for r := PerfRounds / 2; r < PerfRounds; r++ {
		if raw := next(len(h)); !slices.Equal(raw, h) {
			t.Errorf("round %d: raw side ran %v, the last harness query %v", r+1, raw, h)
		}
		if h2 := next(sizes[r]); !slices.Equal(h2, h) {
			t.Errorf("round %d: harness ran %v after the raw side's %v", r+1, h2, h)
		}
	}
	if len(all) != 0 {
		t.Errorf("%d samples beyond the rounds", len(all))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "ratio=") || !strings.Contains(stdout.String(), "rounds:  ratio ") {
		t.Errorf("stdout does not end in the spread and ratio= lines:\n%s", stdout.String())
	}
}

// TestPerfNeedsADirectlyCallableModel: an Instance that is only a SUT (a
// remote LLM, say) with no Raw model cannot be measured by perf.
func TestPerfNeedsADirectlyCallableModel(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	open := driverOf(b).open
	driverOf(b).open = func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
		inst, err := open(ctx, r)
		if err == nil {
			inst.SUT, inst.Model = &loadgentest.NullSUT{}, nil
		}
		return inst, err
	}
	o := Options{Model: "synthetic", Data: "synthetic", Backend: "cpu", Workers: 1, Batch: 3, Out: t.TempDir()}
	if _, err := Perf(context.Background(), b, o, 40*time.Millisecond, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "echo: perf is not available") {
		t.Errorf("SUT without Raw: %v", err)
	}
	driverOf(b).open = open
	if _, err := Perf(context.Background(), b, o, 20*time.Millisecond, nil, io.Discard); err != nil {
		t.Errorf("nil stdout: %v", err)
	}
	if _, err := Perf(context.Background(), b, o, 0, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "want a positive duration") {
		t.Errorf("zero duration: %v", err)
	}
}

func TestSideRate(t *testing.T) {
	for _, c := range []struct {
		s    side
		want float64
	}{
		{side{n: 3, el: time.Second}, 3},
		{side{n: 3, el: 1}, 3e9}, // one nanosecond is a measurement
		{side{n: 3}, 0},
		{side{n: 3, el: -1}, 0},
		{side{n: 1, el: time.Second}.add(side{n: 2, el: time.Second}), 1.5},
	} {
		if got := c.s.rate(); got != c.want {
			t.Errorf("%+v.rate() = %g, want %g", c.s, got, c.want)
		}
	}
}

// A run whose settings outlast --duration says so before it starts (here
// resnet50's Offline min_query_count of 24576 samples against a 100 ms
// --duration); with --min-queries bounding it, no note.
func TestRunNotesSettingsThatOutlastDuration(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	o := Options{Scenario: loadgen.Offline, Mode: loadgen.PerformanceOnly, Model: "synthetic", Data: "synthetic", Backend: "cpu", Out: t.TempDir(), Duration: 100 * time.Millisecond}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), b, o, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if s := stderr.String(); !strings.Contains(s, "echo: note: --duration 100 ms is a minimum: this Offline run issues 24576 samples") || !strings.Contains(s, "--min-queries") {
		t.Errorf("no note before a 24576-sample run:\n%s", s)
	}
	o.MinQueries, o.Out = 10, t.TempDir()
	stderr.Reset()
	if _, err := Run(context.Background(), b, o, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "note:") {
		t.Errorf("a note for a run --min-queries bounds:\n%s", stderr.String())
	}
}

// TestPerfHandsAWholeRoundToARawWholeModel: with Instance.RawWhole (an
// SUT that batches continuously) the raw side calls Raw once a round with
// all of the round's samples, in the harness run's order, not --batch
// samples a call; stdout says so.
func TestPerfHandsAWholeRoundToARawWholeModel(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	raw := &callLog{fail: -1}
	open := driverOf(b).open
	driverOf(b).open = func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
		inst, err := open(ctx, r)
		if err == nil {
			inst.SUT, inst.Model, inst.Raw, inst.RawWhole = &loadgentest.NullSUT{}, nil, raw, true
		}
		return inst, err
	}
	defer func() { driverOf(b).open = open }()
	var stdout, stderr bytes.Buffer
	o := Options{Model: "synthetic", Data: "synthetic", Backend: "cpu", Workers: 2, Batch: 3, Out: t.TempDir()}
	if _, err := Perf(context.Background(), b, o, 40*time.Millisecond, &stdout, &stderr); err != nil {
		t.Fatalf("Perf: %v\n%s", err, stderr.String())
	}
	if len(raw.calls) != PerfRounds {
		t.Fatalf("Raw was called %d times, want once a round (%d)", len(raw.calls), PerfRounds)
	}
	for r, c := range raw.calls {
		if len(c) < PerfMinBatches*3*2 {
			t.Errorf("round %d: Raw got %d samples in its one call, want the round's (at least %d)", r+1, len(c), PerfMinBatches*3*2)
		}
	}
	if !strings.Contains(stdout.String(), "the SUT's batcher called directly with each round's samples, batch 3") {
		t.Errorf("stdout does not say how the raw side was called:\n%s", stdout.String())
	}
}
