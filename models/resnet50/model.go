// Package resnet50 is the MLPerf Inference ResNet50-v1.5 image
// classification benchmark on ImageNet 2012: the official ONNX model's I/O
// contract, the reference's preprocessing and response encoding, a
// synthetic-weights model of the same architecture, and the wiring of data
// set, QSL, model and scorer for the mlperf command.
package resnet50

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/loadgen"
)

// The official ONNX model's tensor names (tf2onnx export of the MLPerf
// TensorFlow ResNet50 v1.5; the reference's resnet50-onnxruntime profile).
const (
	// InputName is the image input: float32 NCHW [N, 3, 224, 224].
	InputName = "input_tensor:0"
	// ArgMaxName is the predicted class, int64 [N], in the 1001-class
	// space whose class 0 is background.
	ArgMaxName = "ArgMax:0"
	// SoftmaxName is the class probabilities, float32 [N, 1001]. The
	// benchmark does not need it; models may omit it.
	SoftmaxName = "softmax_tensor:0"
	// classes is the size of the model's class space (ImageNet's 1000
	// classes plus background at index 0).
	classes = 1001
)

// errContract is wrapped by errors about a model whose inputs or outputs
// are not those of the official ResNet50 ONNX model.
var errContract = errors.New("resnet50: model does not match the ResNet50 contract")

// checkContract validates a session's inputs and outputs against the
// official model's contract before any run. It returns the model's fixed
// batch size, or 0 when the batch dimension is dynamic.
func checkContract(inputs, outputs []backend.Info) (fixedBatch int, err error) {
	fix := "give the official resnet50_v1.onnx (models/resnet50/download_model.sh) or build one with `mlperf model build resnet50`"
	in := findInfo(inputs, InputName)
	if in == nil || len(inputs) != 1 {
		return 0, fmt.Errorf("%w: want exactly one input %q, model has %s; %s", errContract, InputName, describe(inputs), fix)
	}
	if in.DType != backend.Float32 || len(in.Shape) != 4 || in.Shape[1] != 3 || in.Shape[2] != inputSize || in.Shape[3] != inputSize {
		return 0, fmt.Errorf("%w: input %q is %s %v, want float32 [N 3 %d %d] (NCHW); %s", errContract, InputName, in.DType, in.Shape, inputSize, inputSize, fix)
	}
	if n := in.Shape[0]; n > 0 {
		fixedBatch = int(n)
	}
	out := findInfo(outputs, ArgMaxName)
	if out == nil {
		return 0, fmt.Errorf("%w: no output %q among %s; %s", errContract, ArgMaxName, describe(outputs), fix)
	}
	if out.DType != backend.Int64 || len(out.Shape) < 1 || len(out.Shape) > 2 || (len(out.Shape) == 2 && out.Shape[1] != 1) {
		return 0, fmt.Errorf("%w: output %q is %s %v, want int64 [N]; %s", errContract, ArgMaxName, out.DType, out.Shape, fix)
	}
	return fixedBatch, nil
}

func findInfo(infos []backend.Info, name string) *backend.Info {
	for i := range infos {
		if infos[i].Name == name {
			return &infos[i]
		}
	}
	return nil
}

func describe(infos []backend.Info) string {
	if len(infos) == 0 {
		return "none"
	}
	s := ""
	for i, x := range infos {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q %s %v", x.Name, x.DType, x.Shape)
	}
	return s
}

// sampleFunc returns loaded sample i (SampleLen float32 values, NCHW without
// the batch dimension), or false if it is not loaded. harness.QSL's Sample
// method is one.
type sampleFunc func(i loadgen.SampleIndex) ([]float32, bool)

// Model runs ResNet50 on loaded samples. It implements harness.Model and
// is safe for concurrent use (as the session is).
type Model struct {
	sess       backend.Session
	samples    sampleFunc
	fixedBatch int
	argmax     int // position of ArgMax:0 in the session's outputs
	bufs       sync.Pool
}

// New wraps a session after checking it against the contract. samples
// gives the model its inputs (usually a QSL's Sample method); it may be
// nil if only Classify is used.
func New(sess backend.Session, samples sampleFunc) (*Model, error) {
	if sess == nil {
		return nil, errors.New("resnet50: nil session")
	}
	fixed, err := checkContract(sess.Inputs(), sess.Outputs())
	if err != nil {
		return nil, err
	}
	m := &Model{sess: sess, samples: samples, fixedBatch: fixed}
	for i, o := range sess.Outputs() {
		if o.Name == ArgMaxName {
			m.argmax = i
		}
	}
	return m, nil
}

// FixedBatch is the model's fixed batch size, or 0 if it is dynamic.
func (m *Model) FixedBatch() int { return m.fixedBatch }

// Classify runs the model on n images held back to back in batch
// (n × SampleLen float32 values, NCHW) and returns the raw ArgMax of each,
// in the 1001-class space. batch is only read, and not retained.
func (m *Model) Classify(ctx context.Context, batch []float32, n int) ([]int64, error) {
	if n < 1 || len(batch) != n*SampleLen {
		return nil, fmt.Errorf("resnet50: batch of %d values for %d images, want %d", len(batch), n, n*SampleLen)
	}
	run := n
	if m.fixedBatch > 0 {
		if n > m.fixedBatch {
			return nil, fmt.Errorf("resnet50: batch of %d images for a model with fixed batch size %d; use --batch %d", n, m.fixedBatch, m.fixedBatch)
		}
		if n < m.fixedBatch { // pad with zero images
			run = m.fixedBatch
			padded := make([]float32, run*SampleLen)
			copy(padded, batch)
			batch = padded
		}
	}
	outs, err := m.sess.Run(ctx, []backend.Tensor{{
		Name: InputName, DType: backend.Float32,
		Shape: []int64{int64(run), 3, inputSize, inputSize}, Data: batch,
	}})
	if err != nil {
		return nil, fmt.Errorf("resnet50: %w", err)
	}
	if len(outs) <= m.argmax {
		return nil, fmt.Errorf("resnet50: session returned %d outputs, want %q at position %d", len(outs), ArgMaxName, m.argmax)
	}
	am, ok := outs[m.argmax].Data.([]int64)
	if !ok || len(am) < n {
		return nil, fmt.Errorf("resnet50: output %q holds %T of length %d, want []int64 of at least %d", ArgMaxName, outs[m.argmax].Data, lenAny(outs[m.argmax].Data), n)
	}
	return am[:n:n], nil
}

func lenAny(v any) int {
	switch x := v.(type) {
	case []int64:
		return len(x)
	case []float32:
		return len(x)
	}
	return -1
}

// Predict implements harness.Model: it gathers the loaded samples of idx
// into one batch (a single sample is passed without copying), runs the
// model and writes each response, the reference's ArgMax − 1 as one
// little-endian float32 (EncodeResponse). A sample that is not loaded
// fails on its own; the others still run.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	if m.samples == nil {
		return errors.New("resnet50: model has no sample source")
	}
	ok := make([]int, 0, len(idx)) // positions in idx of loaded samples
	var single []float32
	for i, x := range idx {
		s, loaded := m.samples(x)
		if !loaded || len(s) != SampleLen {
			out[i].Err = fmt.Errorf("resnet50: sample %d not loaded", x)
			continue
		}
		ok = append(ok, i)
		single = s
	}
	if len(ok) == 0 {
		return nil
	}
	batch := single
	var pooled *[]float32
	if len(ok) > 1 {
		pooled = m.buffer(len(ok))
		batch = *pooled
		for k, i := range ok {
			s, _ := m.samples(idx[i])
			copy(batch[k*SampleLen:(k+1)*SampleLen], s)
		}
	}
	labels, err := m.Classify(ctx, batch, len(ok))
	if pooled != nil {
		m.bufs.Put(pooled)
	}
	if err != nil {
		return err
	}
	data := make([]byte, 0, responseSize*len(ok))
	for k, i := range ok {
		data = encodeResponse(data, labels[k])
		out[i].Data = data[k*responseSize : (k+1)*responseSize : (k+1)*responseSize]
	}
	return nil
}

// buffer returns a pooled batch buffer of n samples.
func (m *Model) buffer(n int) *[]float32 {
	p, _ := m.bufs.Get().(*[]float32)
	if p == nil || cap(*p) < n*SampleLen {
		b := make([]float32, n*SampleLen)
		return &b
	}
	*p = (*p)[:n*SampleLen]
	return p
}

// Warmup runs sample 0-like input (zeros) count times at batch size n, as
// the reference predicts one sample five times before the test.
func (m *Model) Warmup(ctx context.Context, n, count int) error {
	batch := make([]float32, max(n, 1)*SampleLen)
	for range count {
		if _, err := m.Classify(ctx, batch, max(n, 1)); err != nil {
			return fmt.Errorf("resnet50: warm-up: %w", err)
		}
	}
	return nil
}
