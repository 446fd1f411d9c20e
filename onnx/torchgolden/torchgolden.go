// Package torchgolden reads the PyTorch goldens of the models' tests
// (models/*/testdata/torch, written by each make_torch_*.py): weights in a
// synthetic builder's names, which it puts into a built graph, and
// reference outputs, which it compares with a tolerance.
package torchgolden

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/preprocess"
)

// ReadWeights reads dir/weights.txt ("name dim,dim,..." per tensor, in file
// order) and dir/weights.bin (each tensor's float32 values, little-endian,
// back to back) as float tensors.
func ReadWeights(dir string) ([]*onnx.Tensor, error) {
	index, err := os.ReadFile(filepath.Join(dir, "weights.txt"))
	if err != nil {
		return nil, fmt.Errorf("torchgolden: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "weights.bin"))
	if err != nil {
		return nil, fmt.Errorf("torchgolden: %w", err)
	}
	var out []*onnx.Tensor
	off := 0
	for _, line := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		name, dimsText, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("torchgolden: weights.txt: bad line %q", line)
		}
		var dims []int64
		n := 1
		for _, d := range strings.Split(dimsText, ",") {
			v, err := strconv.Atoi(d)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("torchgolden: weights.txt: bad dimension in %q", line)
			}
			dims, n = append(dims, int64(v)), n*v
		}
		if off+4*n > len(raw) {
			return nil, fmt.Errorf("torchgolden: weights.bin ends before %s", name)
		}
		vals := make([]float32, n)
		for j := range vals {
			vals[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[off+4*j:]))
		}
		off += 4 * n
		out = append(out, onnx.NewTensor(name, onnx.Float, dims, vals))
	}
	if off != len(raw) {
		return nil, fmt.Errorf("torchgolden: weights.bin has %d bytes, weights.txt accounts for %d", len(raw), off)
	}
	return out, nil
}

// Replace puts ws into g in place of the initializers of the same names.
// Every parameter of g (an initializer whose name has a dot, as the
// builders name weights "layer.weight"; constants the graph adds itself
// have none) must be replaced, with the same dimensions, and every weight
// must find its initializer: the builder's parameters and PyTorch's are
// then the same set.
func Replace(g *onnx.Graph, ws []*onnx.Tensor) error {
	inits := g.Initializers() // the graph's own slice
	byName := map[string]int{}
	for i, in := range inits {
		byName[in.Name] = i
	}
	done := map[string]bool{}
	for _, w := range ws {
		i, ok := byName[w.Name]
		if !ok {
			return fmt.Errorf("torchgolden: PyTorch weight %s has no initializer in the graph", w.Name)
		}
		if !slices.Equal(inits[i].Dims, w.Dims) {
			return fmt.Errorf("torchgolden: %s: graph dimensions %v, PyTorch %v", w.Name, inits[i].Dims, w.Dims)
		}
		*inits[i] = *w
		done[w.Name] = true
	}
	for _, in := range inits {
		if !done[in.Name] && strings.Contains(in.Name, ".") {
			return fmt.Errorf("torchgolden: initializer %s has no PyTorch weight", in.Name)
		}
	}
	return nil
}

// ReadNpy reads dir/name, a float32 .npy file.
func ReadNpy(dir, name string) (shape []int, data []float32, err error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, nil, fmt.Errorf("torchgolden: %w", err)
	}
	defer f.Close()
	shape, data, err = preprocess.ReadNpy(f)
	if err != nil {
		return nil, nil, fmt.Errorf("torchgolden: %s: %w", name, err)
	}
	return shape, data, nil
}

// Diff compares got with want value by value: a value differs when it is
// off by more than abs and by more than rel of the wanted value. It returns
// how many differ and a description of the first few.
func Diff(got, want []float32, abs, rel float64) (int, string) {
	if len(got) != len(want) {
		return len(want), fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	bad := 0
	var b strings.Builder
	for i, w := range want {
		d := math.Abs(float64(got[i]) - float64(w))
		if d > abs && d > rel*math.Abs(float64(w)) || math.IsNaN(float64(got[i])) {
			if bad++; bad <= 5 {
				fmt.Fprintf(&b, "[%d] = %g, PyTorch %g; ", i, got[i], w)
			}
		}
	}
	return bad, b.String()
}

// UseWeights replaces g's initializers by the PyTorch weights in dir
// (ReadWeights, then Replace).
func UseWeights(g *onnx.Graph, dir string) error {
	ws, err := ReadWeights(dir)
	if err != nil {
		return err
	}
	return Replace(g, ws)
}
