// Package yolo is the MLPerf Inference YOLOv11 object detection benchmark
// (yolo-95 / yolo-99: YOLO11-L on the 1,525-image "safe" subset of COCO
// val2017): the I/O contract of Ultralytics' ONNX export, the reference's
// preprocessing (Ultralytics' LetterBox), post-processing (Ultralytics'
// non_max_suppression and scale_boxes) and response encoding, and a
// synthetic-weights model of the same architecture.
//
// The reference (vision/classification_and_detection/yolo/yolo_loadgen.py
// of mlcommons/inference) calls YOLO(model).predict(path, conf=0.001) per
// image. Non-maximum suppression is not part of the exported graph
// (output0 is the raw [1, 84, 8400] prediction), so it runs here, in Go,
// after the network: see NMS.
package yolo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/loadgen"
)

// The contract of Ultralytics' ONNX export of a YOLO11 detection model
// (model.export(format="onnx"), imgsz 640, static shapes).
const (
	// inputName is the image input: float32 [1, 3, 640, 640], RGB in
	// [0, 1], letterboxed.
	inputName = "images"
	// outputName is the raw prediction: float32 [1, 84, 8400], per anchor
	// the box centre, width and height in input pixels and 80 class
	// scores (sigmoid).
	outputName = "output0"
	// inputSize is the side of the square network input, pixels.
	inputSize = 640
	// numClasses is the number of classes (COCO's 80).
	numClasses = 80
	// numAnchors is the number of predictions: 80² + 40² + 20² anchor
	// points at strides 8, 16 and 32.
	numAnchors = 8400
	// sampleLen is the number of float32 values of one preprocessed
	// image (3 × 640 × 640, CHW).
	sampleLen = 3 * inputSize * inputSize
	// outputLen is the number of values of one image's output0.
	outputLen = (4 + numClasses) * numAnchors
	// recordSize is the size in bytes of one detection in a response: 7
	// little-endian float32.
	recordSize = 28
)

// errContract is wrapped by errors about a model whose inputs or outputs
// are not those of the YOLO11 ONNX export.
var errContract = errors.New("yolo: model does not match the YOLO11 ONNX contract")

// checkContract validates a session's inputs and outputs against the
// export's contract: one input "images" float32 [1 3 640 640] (a symbolic
// batch is accepted and run with 1) and an output "output0" float32
// [1 84 8400] (symbolic dimensions accepted). A model with dynamic height
// and width (exported with dynamic=True) is refused: Ultralytics would
// letterbox it to the minimum rectangle instead, which this benchmark does
// not run.
func checkContract(inputs, outputs []backend.Info) error {
	fix := "give YOLO11-L exported by Ultralytics to ONNX at imgsz 640 without dynamic shapes or NMS (yolo export model=yolo11l.pt format=onnx imgsz=640), or --model synthetic"
	if len(inputs) != 1 || inputs[0].Name != inputName {
		return fmt.Errorf("%w: want exactly one input %q, model has %s; %s", errContract, inputName, describe(inputs), fix)
	}
	in := inputs[0]
	if in.DType != backend.Float32 || len(in.Shape) != 4 || in.Shape[1] != 3 || in.Shape[2] != inputSize || in.Shape[3] != inputSize || in.Shape[0] > 1 || in.Shape[0] == 0 {
		return fmt.Errorf("%w: input %q is %s %s, want float32 [1,3,%d,%d] (NCHW, one image); %s", errContract, inputName, in.DType, backend.FormatShape(in.Shape), inputSize, inputSize, fix)
	}
	var out *backend.Info
	for i := range outputs {
		if outputs[i].Name == outputName {
			out = &outputs[i]
		}
	}
	if out == nil {
		return fmt.Errorf("%w: no output %q among %s; %s", errContract, outputName, describe(outputs), fix)
	}
	want := []int64{1, 4 + numClasses, numAnchors}
	ok := out.DType == backend.Float32 && len(out.Shape) == 3
	for i := 0; ok && i < 3; i++ {
		ok = out.Shape[i] < 0 || out.Shape[i] == want[i]
	}
	if !ok {
		return fmt.Errorf("%w: output %q is %s %s, want float32 [1,%d,%d] (raw predictions, NMS not in the graph); %s", errContract, outputName, out.DType, backend.FormatShape(out.Shape), 4+numClasses, numAnchors, fix)
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
		s += fmt.Sprintf("%q %s %s", x.Name, x.DType, backend.FormatShape(x.Shape))
	}
	return s
}

// sampleFunc returns loaded sample i, or false if it is not loaded.
// harness.QSL's Sample method is one.
type sampleFunc func(i loadgen.SampleIndex) (sample, bool)

// Model runs YOLO11 on loaded samples, one image per engine call (the
// export's batch is 1), and post-processes each image as the reference's
// predictor does. It implements harness.Model and is safe for concurrent
// use (as the session is).
type Model struct {
	sess    backend.Session
	samples sampleFunc
	out     int // position of output0 in the outputs
	cfg     nmsConfig
	scratch sync.Pool // *NMSScratch
}

// New wraps a session after checking it against the contract. samples
// may be nil if only Detect is used. Post-processing uses referenceNMS.
func New(sess backend.Session, samples sampleFunc) (*Model, error) {
	if sess == nil {
		return nil, errors.New("yolo: nil session")
	}
	if err := checkContract(sess.Inputs(), sess.Outputs()); err != nil {
		return nil, err
	}
	m := &Model{sess: sess, samples: samples, cfg: referenceNMS}
	for i, o := range sess.Outputs() {
		if o.Name == outputName {
			m.out = i
		}
	}
	m.scratch.New = func() any { return new(nmsScratch) }
	return m, nil
}

// Raw runs the network on one preprocessed image (sampleLen values, only
// read) and returns output0 (outputLen values, channel-major).
func (m *Model) Raw(ctx context.Context, img []float32) ([]float32, error) {
	if len(img) != sampleLen {
		return nil, fmt.Errorf("yolo: image of %d values, want %d (3×%d×%d)", len(img), sampleLen, inputSize, inputSize)
	}
	outs, err := m.sess.Run(ctx, []backend.Tensor{{
		Name: inputName, DType: backend.Float32, Shape: []int64{1, 3, inputSize, inputSize}, Data: img,
	}})
	if err != nil {
		return nil, fmt.Errorf("yolo: %w", err)
	}
	if len(outs) <= m.out {
		return nil, fmt.Errorf("yolo: session returned %d outputs, want %q", len(outs), outputName)
	}
	p, ok := outs[m.out].Data.([]float32)
	if !ok || len(p) != outputLen {
		return nil, fmt.Errorf("yolo: output %q is %T of %d values, want %d float32 (1×%d×%d)", outputName, outs[m.out].Data, len(p), outputLen, 4+numClasses, numAnchors)
	}
	return p, nil
}

// Detect runs the network on sample s and returns its detections in the
// pixels of the s.Width×s.Height image, best first: NMS, then scaleBoxes.
func (m *Model) Detect(ctx context.Context, s sample) ([]detection, error) {
	p, err := m.Raw(ctx, s.Input)
	if err != nil {
		return nil, err
	}
	sc := m.scratch.Get().(*nmsScratch)
	dets, err := nms(nil, p, numClasses, numAnchors, m.cfg, sc)
	m.scratch.Put(sc)
	if err != nil {
		return nil, err
	}
	scaleBoxes(dets, inputSize, s.Width, s.Height)
	return dets, nil
}

// Predict implements harness.Model: each loaded sample of idx runs alone
// and its response is encodeResponse's. A sample that is not loaded
// fails on its own; an engine error fails the call.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	if m.samples == nil {
		return errors.New("yolo: model has no sample source")
	}
	for i, x := range idx {
		s, ok := m.samples(x)
		if !ok || len(s.Input) != sampleLen {
			out[i].Err = fmt.Errorf("yolo: sample %d not loaded", x)
			continue
		}
		dets, err := m.Detect(ctx, s)
		if err != nil {
			return err
		}
		if out[i].Data, err = encodeResponse(nil, int(x), dets, s.Width, s.Height); err != nil {
			return err
		}
	}
	return nil
}
