// Package unet3d is the MLPerf Inference 3D-UNet benchmark on KiTS19: the
// official ONNX model's I/O contract, the reference's sliding-window
// inference with its Gaussian importance map, a synthetic-weights model of
// the same architecture, and the benchmark descriptor (`mlperf run
// unet3d`, mlperf.conf model 3d-unet) with the kits19 data set commands.
package unet3d

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/loadgen"
)

// errContract is wrapped by errors about a model whose inputs or outputs
// are not those of the official 3D-UNet ONNX files.
var errContract = errors.New("unet3d: model does not match the 3D-UNet contract")

// checkContract validates a session against the official contract (input
// "input" float32 [N,1,128,128,128], output "output" float32
// [N,3,128,128,128]) and returns the fixed batch size, or 0 when the
// batch dimension is dynamic.
func checkContract(inputs, outputs []backend.Info) (fixedBatch int, err error) {
	fix := "give 3dunet_kits19_128x128x128.onnx or its _dynbatch variant (models/unet3d/download_model.sh) or use --model synthetic"
	want := func(kind string, infos []backend.Info, name string, ch int64) (int64, error) {
		for _, x := range infos {
			if x.Name != name {
				continue
			}
			ok := x.DType == backend.Float32 && len(x.Shape) == 5
			for i, d := range []int64{-2, ch, window, window, window} {
				if ok && i > 0 && x.Shape[i] >= 0 && x.Shape[i] != d {
					ok = false
				}
			}
			if !ok {
				return 0, fmt.Errorf("%w: %s %q is %s %v, want float32 [N %d %d %d %d]; %s", errContract, kind, name, x.DType, x.Shape, ch, window, window, window, fix)
			}
			return x.Shape[0], nil
		}
		return 0, fmt.Errorf("%w: no %s %q among %v; %s", errContract, kind, name, names(infos), fix)
	}
	if len(inputs) != 1 {
		return 0, fmt.Errorf("%w: want exactly one input %q, model has %v; %s", errContract, inputName, names(inputs), fix)
	}
	nIn, err := want("input", inputs, inputName, 1)
	if err != nil {
		return 0, err
	}
	nOut, err := want("output", outputs, outputName, classes)
	if err != nil {
		return 0, err
	}
	if nIn > 0 && nOut > 0 && nIn != nOut {
		return 0, fmt.Errorf("%w: input batch %d differs from output batch %d", errContract, nIn, nOut)
	}
	return int(max(nIn, 0)), nil
}

func names(infos []backend.Info) []string {
	var n []string
	for _, x := range infos {
		n = append(n, fmt.Sprintf("%s %s %v", x.Name, x.DType, x.Shape))
	}
	return n
}

// sampleFunc returns a loaded preprocessed case (D, H, W float32), or false.
type sampleFunc func(i loadgen.SampleIndex) (kits19.Volume[float32], bool)

// Model runs the sliding window over loaded cases. It implements
// harness.Model and is safe for concurrent use (as the session is).
type Model struct {
	sess       backend.Session
	samples    sampleFunc
	batch      int // windows per session run
	fixedBatch int
	outIdx     int

	// busy and wall accumulate the session's run time and Predict's wall
	// time, in nanoseconds, for Busy.
	busy, wall atomic.Int64
}

// New wraps a session after checking the contract. batch is the number of
// windows per session run (a fixed-batch model caps it).
func New(sess backend.Session, samples sampleFunc, batch int) (*Model, error) {
	if sess == nil {
		return nil, errors.New("unet3d: nil session")
	}
	fixed, err := checkContract(sess.Inputs(), sess.Outputs())
	if err != nil {
		return nil, err
	}
	batch = max(batch, 1)
	if fixed > 0 {
		batch = fixed
	}
	m := &Model{sess: sess, samples: samples, batch: batch, fixedBatch: fixed}
	for i, o := range sess.Outputs() {
		if o.Name == outputName {
			m.outIdx = i
		}
	}
	return m, nil
}

// WindowBatch is the number of windows per session run.
func (m *Model) WindowBatch() int { return m.batch }

// Busy reports the summed session run time and the summed Predict wall
// time so far: their ratio is how busy the harness keeps the engine.
func (m *Model) Busy() (session, predict time.Duration) {
	return time.Duration(m.busy.Load()), time.Duration(m.wall.Load())
}

// Predict implements harness.Model: each sample is one case, segmented
// with Segment; its response is the D·H·W uint8 label volume.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	start := time.Now()
	defer func() { m.wall.Add(int64(time.Since(start))) }()
	for i, x := range idx {
		v, ok := m.samples(x)
		if !ok {
			out[i].Err = fmt.Errorf("unet3d: sample %d not loaded", x)
			continue
		}
		l, err := m.Segment(ctx, v)
		if err != nil {
			return err
		}
		out[i].Data = l
	}
	return nil
}

// run runs one batch of n windows held in in (batch × WindowVoxels; the
// tail beyond n is ignored) and returns the logits of the n windows.
func (m *Model) run(ctx context.Context, in []float32, n int) ([]float32, error) {
	run := n
	if m.fixedBatch > 0 {
		run = m.fixedBatch
	}
	t0 := time.Now()
	outs, err := m.sess.Run(ctx, []backend.Tensor{{
		Name: inputName, DType: backend.Float32,
		Shape: []int64{int64(run), 1, window, window, window}, Data: in[:run*windowVoxels],
	}})
	m.busy.Add(int64(time.Since(t0)))
	if err != nil {
		return nil, fmt.Errorf("unet3d: %w", err)
	}
	if len(outs) <= m.outIdx {
		return nil, fmt.Errorf("unet3d: session returned %d outputs, want %q", len(outs), outputName)
	}
	y, ok := outs[m.outIdx].Data.([]float32)
	if !ok || len(y) < n*classes*windowVoxels {
		return nil, fmt.Errorf("unet3d: output %q holds %T, want %d float32 logits", outputName, outs[m.outIdx].Data, n*classes*windowVoxels)
	}
	return y[:n*classes*windowVoxels], nil
}

// Segment runs the reference's sliding window over one preprocessed case
// and returns its labels (uint8, C order). Windows go through the model
// WindowBatch at a time; while the engine runs one batch, the previous
// batch's logits are accumulated and the next batch's windows extracted,
// so the engine waits only for the first extraction and the last
// accumulation.
func (m *Model) Segment(ctx context.Context, v kits19.Volume[float32]) ([]uint8, error) {
	if len(v.Data) != v.Shape[0]*v.Shape[1]*v.Shape[2] {
		return nil, fmt.Errorf("unet3d: volume %v with %d voxels", v.Shape, len(v.Data))
	}
	wins, err := windows(v.Shape)
	if err != nil {
		return nil, err
	}
	acc := newAccumulator(v.Shape)
	size := m.batch
	if m.fixedBatch > 0 {
		size = m.fixedBatch
	}
	bufs := [2][]float32{make([]float32, size*windowVoxels), make([]float32, size*windowVoxels)}
	type result struct {
		logits []float32
		err    error
	}
	fill := func(buf []float32, first int) int {
		n := min(m.batch, len(wins)-first)
		for k := range n {
			extract(buf[k*windowVoxels:], v.Data, v.Shape, wins[first+k])
		}
		return n
	}
	n := fill(bufs[0], 0)
	var pending []float32 // logits waiting for accumulation
	pendingAt := 0
	for first, b := 0, 0; n > 0; b = 1 - b {
		done := make(chan result, 1)
		go func(buf []float32, n int) {
			y, err := m.run(ctx, buf, n)
			done <- result{y, err}
		}(bufs[b], n)
		if pending != nil {
			for k := range len(pending) / (classes * windowVoxels) {
				acc.Add(pending[k*classes*windowVoxels:], wins[pendingAt+k])
			}
		}
		next := 0
		if first+n < len(wins) {
			next = fill(bufs[1-b], first+n)
		}
		r := <-done
		if r.err != nil {
			return nil, r.err
		}
		pending, pendingAt = r.logits, first
		first, n = first+n, next
	}
	for k := range len(pending) / (classes * windowVoxels) {
		acc.Add(pending[k*classes*windowVoxels:], wins[pendingAt+k])
	}
	return acc.Labels(), nil
}

// RawCase runs the engine alone over the windows of one case (its first
// windows' batch, repeated as many times as the case has batches), for
// `mlperf perf`: the session time of a case without the window
// extraction and accumulation.
func (m *Model) RawCase(ctx context.Context, v kits19.Volume[float32], buf []float32) ([]float32, error) {
	wins, err := windows(v.Shape)
	if err != nil {
		return buf, err
	}
	size := m.batch
	if m.fixedBatch > 0 {
		size = m.fixedBatch
	}
	if len(buf) < size*windowVoxels {
		buf = make([]float32, size*windowVoxels)
	}
	n := min(m.batch, len(wins))
	for k := range n {
		extract(buf[k*windowVoxels:], v.Data, v.Shape, wins[k])
	}
	for first := 0; first < len(wins); first += m.batch {
		if _, err := m.run(ctx, buf, min(m.batch, len(wins)-first)); err != nil {
			return buf, err
		}
	}
	return buf, nil
}
