package kserve

import (
	"fmt"
	"math"
	"strings"

	"github.com/mlperf-go/inference/backend"
)

// This file holds the bounds both ends put on what crosses the network:
// a served model accepts requests no larger than its inputs at the
// node's batch limit (plus room for the JSON header), and a client
// accepts answers no larger than the model's outputs for the batch it
// sent. Every size is derived from the model's contract before anything
// is read, so a peer's claim (a Content-Length, a chunked body, a shape)
// never decides how much is allocated.

const (
	// HeaderMargin is the room, in bytes, for the JSON header of a
	// request or an answer that carries its tensors as binary data: a
	// ResNet50 request's header is about 200 bytes, an answer's with
	// timings about 400.
	HeaderMargin = 64 << 10
	// MaxDynamicDim bounds a dynamic dimension that is not the batch
	// (e.g. RetinaNet's number of detections): the answer bound takes it
	// at this size.
	MaxDynamicDim = 1 << 16
	// MaxTensorBytes caps any one bound computed here, in bytes, whatever
	// the contract says: no request or answer larger than this is read.
	MaxTensorBytes = 1 << 30
	// defaultBatchBytes is the input size a default batch limit aims at.
	defaultBatchBytes = 64 << 20
	// DefaultMaxBatchCap is the largest default batch limit.
	DefaultMaxBatchCap = 32
)

// DefaultMaxBatch is the batch limit of a served model when none is
// given: as many samples as fit 64 MiB of inputs, between 1 and
// DefaultMaxBatchCap (ResNet50: 32 samples of 602 kB; 3D U-Net: 8 of
// 8 MiB).
func DefaultMaxBatch(in []backend.Info) int {
	per := TensorBytes(in, 1)
	if per <= 0 {
		return DefaultMaxBatchCap
	}
	return int(max(1, min(DefaultMaxBatchCap, defaultBatchBytes/per)))
}

// TensorBytes is the most bytes the tensors described by infos take when
// a dynamic leading dimension is at most batch and any other dynamic
// dimension at most MaxDynamicDim; it saturates at MaxTensorBytes.
func TensorBytes(infos []backend.Info, batch int64) int64 {
	total := int64(0)
	for _, in := range infos {
		n := int64(in.DType.Size())
		for k, d := range in.Shape {
			switch {
			case d < 0 && k == 0:
				d = batch
			case d < 0:
				d = MaxDynamicDim
			}
			if d > 0 && n > MaxTensorBytes/d {
				return MaxTensorBytes
			}
			n *= d
		}
		total += n
		if total > MaxTensorBytes {
			return MaxTensorBytes
		}
	}
	return total
}

// CheckContract refuses a model contract no request could use: a
// dimension of 0 (every tensor empty) or below -1, a type the protocol
// cannot carry, an unnamed or repeated tensor. what names the model for
// the message.
func CheckContract(what string, in, out []backend.Info) error {
	if len(in) == 0 {
		return fmt.Errorf("kserve: %s has no inputs: nothing could be sent to it", what)
	}
	for _, side := range []struct {
		kind  string
		infos []backend.Info
	}{{"input", in}, {"output", out}} {
		seen := map[string]bool{}
		for _, t := range side.infos {
			if t.Name == "" {
				return fmt.Errorf("kserve: %s has an unnamed %s; the protocol addresses tensors by name", what, side.kind)
			}
			if seen[t.Name] {
				return fmt.Errorf("kserve: %s has two %ss named %q", what, side.kind, t.Name)
			}
			seen[t.Name] = true
			if _, err := Datatype(t.DType); err != nil {
				return fmt.Errorf("kserve: %s %s %q: %w", what, side.kind, t.Name, err)
			}
			for _, d := range t.Shape {
				if d == 0 || d < -1 {
					return fmt.Errorf("kserve: %s %s %q has shape %s: a dimension of %d makes every %s empty; serve a model whose dimensions are positive (or -1 for dynamic)",
						what, side.kind, t.Name, backend.FormatShape(t.Shape), d, side.kind)
				}
			}
		}
	}
	return nil
}

// checkInputs refuses a request's tensors that do not fit the model's
// inputs: each input exactly once, by name, of its type and rank, fixed
// dimensions equal, a dynamic leading dimension (the batch) from 1 to
// maxBatch and any other dynamic one from 1 to MaxDynamicDim. The
// messages say what the model takes.
func checkInputs(model string, want []backend.Info, in []backend.Tensor, maxBatch int64) error {
	if len(in) != len(want) {
		return fmt.Errorf("kserve: model %s takes %d inputs (%s); the request sends %d", model, len(want), infoList(want), len(in))
	}
	for _, t := range in {
		var w *backend.Info
		for i := range want {
			if want[i].Name == t.Name {
				w = &want[i]
				break
			}
		}
		if w == nil {
			return fmt.Errorf("kserve: model %s has no input %q (its inputs: %s)", model, t.Name, infoList(want))
		}
		if t.DType != w.DType {
			got, _ := Datatype(t.DType)
			dt, _ := Datatype(w.DType)
			return fmt.Errorf("kserve: model %s input %q is %s; the request sends %s", model, t.Name, dt, got)
		}
		if len(t.Shape) != len(w.Shape) {
			return fmt.Errorf("kserve: model %s input %q has shape %s; the request's %s has another rank", model, t.Name, backend.FormatShape(w.Shape), backend.FormatShape(t.Shape))
		}
		for k, d := range t.Shape {
			switch {
			case w.Shape[k] >= 0 && d != w.Shape[k]:
				return fmt.Errorf("kserve: model %s input %q has shape %s; the request sends %s", model, t.Name, backend.FormatShape(w.Shape), backend.FormatShape(t.Shape))
			case w.Shape[k] < 0 && d < 1:
				return fmt.Errorf("kserve: model %s input %q: dimension %d of the request's shape %s is %d; a tensor needs at least one element per dimension", model, t.Name, k, backend.FormatShape(t.Shape), d)
			case w.Shape[k] < 0 && k == 0 && d > maxBatch:
				return fmt.Errorf("kserve: model %s input %q: the request carries %d samples; this node takes at most %d per request (mlperf serve --max-batch); send smaller batches", model, t.Name, d, maxBatch)
			case w.Shape[k] < 0 && d > MaxDynamicDim:
				return fmt.Errorf("kserve: model %s input %q: dimension %d of the request's shape %s exceeds %d", model, t.Name, k, backend.FormatShape(t.Shape), MaxDynamicDim)
			}
		}
	}
	return nil
}

func infoList(infos []backend.Info) string {
	s := make([]string, len(infos))
	for i, in := range infos {
		dt, _ := Datatype(in.DType)
		s[i] = fmt.Sprintf("%s %s %s", in.Name, dt, backend.FormatShape(in.Shape))
	}
	return strings.Join(s, ", ")
}

// answerLimit is the most bytes a client reads of an answer to a request
// whose leading dimension is batch: the outputs' binary data at that
// batch plus HeaderMargin; an answer without binary data (its tensors as
// JSON arrays: up to 32 characters per element) may take jsonFactor
// times the elements. It saturates at MaxTensorBytes.
func answerLimit(outputs []backend.Info, batch int64, binary bool) int64 {
	n := TensorBytes(outputs, batch)
	if !binary {
		elems := int64(0)
		for _, o := range outputs {
			size := int64(o.DType.Size())
			if size > 0 {
				elems += TensorBytes([]backend.Info{o}, batch) / size
			}
		}
		if elems > MaxTensorBytes/jsonFactor {
			return MaxTensorBytes
		}
		n = jsonFactor * elems
	}
	return min(n+HeaderMargin, MaxTensorBytes)
}

// jsonFactor is the most characters a JSON number of a tensor takes
// (float32 at full precision with sign, exponent and separator: 16; the
// margin covers int64 and spaces).
const jsonFactor = 32

// satMul multiplies non-negative sizes, saturating at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
