// Package retinanet is the MLPerf Inference RetinaNet object detection
// benchmark on the OpenImages MLPerf subset: the official ONNX model's I/O
// contract, the reference's preprocessing and response encoding, a
// synthetic-weights model of the same architecture, and the benchmark
// descriptor the mlperf command runs.
package retinanet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/loadgen"
)

// The official ONNX model's tensor names (resnext50_32x4d_fpn.onnx from
// tools/retinanet_pytorch_to_onnx.py of mlcommons/inference; the
// reference's retinanet-onnxruntime profile).
const (
	// inputName is the image input: float32 [1, 3, 800, 800], RGB in
	// [0, 1].
	inputName = "images"
	// boxesName is the detections' boxes: float32 [K, 4], x1 y1 x2 y2 in
	// input pixels.
	boxesName = "boxes"
	// scoresName is their scores: float32 [K], decreasing.
	scoresName = "scores"
	// labelsName is their classes: int64 [K] in 0..NumClasses−1.
	labelsName = "labels"
	// inputSize is the side of the square network input, pixels.
	inputSize = 800
	// numClasses is the number of MLPerf OpenImages classes.
	numClasses = 264
	// sampleLen is the number of float32 values of one preprocessed
	// sample (3 × 800 × 800, CHW).
	sampleLen = 3 * inputSize * inputSize
	// recordSize is the size in bytes of one detection in a response:
	// 7 little-endian float32 [qsl_idx, ymin, xmin, ymax, xmax, score,
	// label].
	recordSize = 28
)

// sampleShape is the shape of one preprocessed sample as the reference's
// .npy cache stores it.
var sampleShape = []int{3, inputSize, inputSize}

// errContract is wrapped by errors about a model whose inputs or outputs
// are not those of the official RetinaNet ONNX model.
var errContract = errors.New("retinanet: model does not match the RetinaNet contract")

// checkContract validates a session's inputs and outputs against the
// official model's contract: one input "images" float32 [1 3 800 800]
// (a symbolic first dimension is accepted and run with 1) and outputs
// "boxes" float32 [K 4], "scores" float32 [K] and "labels" int64 [K].
func checkContract(inputs, outputs []backend.Info) error {
	fix := "give the official resnext50_32x4d_fpn.onnx (models/retinanet/download_model.sh) or --model synthetic"
	if len(inputs) != 1 || inputs[0].Name != inputName {
		return fmt.Errorf("%w: want exactly one input %q, model has %s; %s", errContract, inputName, describe(inputs), fix)
	}
	in := inputs[0]
	if in.DType != backend.Float32 || len(in.Shape) != 4 || in.Shape[1] != 3 || in.Shape[2] != inputSize || in.Shape[3] != inputSize {
		return fmt.Errorf("%w: input %q is %s %v, want float32 [1 3 %d %d] (NCHW); %s", errContract, inputName, in.DType, in.Shape, inputSize, inputSize, fix)
	}
	if in.Shape[0] > 1 {
		return fmt.Errorf("%w: input %q has batch size %d, but the detections carry no batch dimension, so the model must take one image (batch 1); %s", errContract, inputName, in.Shape[0], fix)
	}
	want := []struct {
		name string
		dt   backend.DType
		rank int
	}{{boxesName, backend.Float32, 2}, {scoresName, backend.Float32, 1}, {labelsName, backend.Int64, 1}}
	for _, w := range want {
		o := findInfo(outputs, w.name)
		if o == nil {
			return fmt.Errorf("%w: no output %q among %s; %s", errContract, w.name, describe(outputs), fix)
		}
		if o.DType != w.dt || len(o.Shape) != w.rank || (w.rank == 2 && o.Shape[1] != 4) {
			return fmt.Errorf("%w: output %q is %s %v, want %s of rank %d; %s", errContract, w.name, o.DType, o.Shape, w.dt, w.rank, fix)
		}
	}
	return nil
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

// detections are one image's model outputs, in the model's order.
type detections struct {
	Boxes  []float32 // K × [x1 y1 x2 y2], input pixels
	Scores []float32 // K
	Labels []int64   // K
}

// encodeResponse appends the reference's response for one image to dst:
// for each detection in order, stopping at the first whose score is below
// ScoreThresh, 7 little-endian float32 [qslIdx, y1/800, x1/800, y2/800,
// x2/800, score, label] (PostProcessOpenImagesRetinanet in
// vision/classification_and_detection/python/openimages.py of
// mlcommons/inference). No detection gives no bytes.
func encodeResponse(dst []byte, qslIdx int, d *detections) []byte {
	for i, s := range d.Scores {
		if s < scoreThresh {
			break
		}
		b := d.Boxes[4*i : 4*i+4]
		for _, v := range [7]float32{float32(qslIdx), b[1] / inputSize, b[0] / inputSize, b[3] / inputSize, b[2] / inputSize, s, float32(d.Labels[i])} {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	}
	return dst
}

// sampleFunc returns loaded sample i (SampleLen float32 values), or false if
// it is not loaded. harness.QSL's Sample method is one.
type sampleFunc func(i loadgen.SampleIndex) ([]float32, bool)

// Model runs RetinaNet on loaded samples, one image per engine call. It
// implements harness.Model and is safe for concurrent use (as the session
// is).
type Model struct {
	sess    backend.Session
	samples sampleFunc
	pos     [3]int // positions of boxes, scores, labels in the outputs
}

// New wraps a session after checking it against the contract. samples
// may be nil if only Detect is used.
func New(sess backend.Session, samples sampleFunc) (*Model, error) {
	if sess == nil {
		return nil, errors.New("retinanet: nil session")
	}
	if err := checkContract(sess.Inputs(), sess.Outputs()); err != nil {
		return nil, err
	}
	m := &Model{sess: sess, samples: samples}
	for i, o := range sess.Outputs() {
		switch o.Name {
		case boxesName:
			m.pos[0] = i
		case scoresName:
			m.pos[1] = i
		case labelsName:
			m.pos[2] = i
		}
	}
	return m, nil
}

// Detect runs the model on one preprocessed image (SampleLen values,
// only read) and returns its detections.
func (m *Model) Detect(ctx context.Context, img []float32) (*detections, error) {
	if len(img) != sampleLen {
		return nil, fmt.Errorf("retinanet: image of %d values, want %d (3×%d×%d)", len(img), sampleLen, inputSize, inputSize)
	}
	outs, err := m.sess.Run(ctx, []backend.Tensor{{
		Name: inputName, DType: backend.Float32, Shape: []int64{1, 3, inputSize, inputSize}, Data: img,
	}})
	if err != nil {
		return nil, fmt.Errorf("retinanet: %w", err)
	}
	if len(outs) <= max(m.pos[0], m.pos[1], m.pos[2]) {
		return nil, fmt.Errorf("retinanet: session returned %d outputs, want boxes, scores and labels", len(outs))
	}
	boxes, ok1 := outs[m.pos[0]].Data.([]float32)
	scores, ok2 := outs[m.pos[1]].Data.([]float32)
	labels, ok3 := outs[m.pos[2]].Data.([]int64)
	if !ok1 || !ok2 || !ok3 || len(boxes) != 4*len(scores) || len(labels) != len(scores) {
		return nil, fmt.Errorf("retinanet: outputs of %d boxes values, %d scores and %d labels (types %T, %T, %T) do not describe the same detections",
			len(boxes), len(scores), len(labels), outs[m.pos[0]].Data, outs[m.pos[1]].Data, outs[m.pos[2]].Data)
	}
	return &detections{Boxes: boxes, Scores: scores, Labels: labels}, nil
}

// Predict implements harness.Model: each loaded sample of idx runs alone
// (the model takes one image) and its response is EncodeResponse's. A
// sample that is not loaded fails on its own.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	if m.samples == nil {
		return errors.New("retinanet: model has no sample source")
	}
	for i, x := range idx {
		s, ok := m.samples(x)
		if !ok || len(s) != sampleLen {
			out[i].Err = fmt.Errorf("retinanet: sample %d not loaded", x)
			continue
		}
		d, err := m.Detect(ctx, s)
		if err != nil {
			return err
		}
		out[i].Data = encodeResponse(nil, int(x), d)
	}
	return nil
}
