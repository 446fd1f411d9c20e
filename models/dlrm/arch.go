// Package dlrm is the DLRMv2 benchmark: TorchRec's DLRM-DCNv2 (the
// MLPerf recommendation model) on the multi-hot Criteo 1TB day 23.
//
// The model is split in two stages, as many vendors' harnesses do: the
// sum-pooled embedding lookups run in Go over memory-mapped tables
// (embeddings.go), and the dense part (bottom MLP, DCNv2 interaction, top
// MLP, sigmoid) is an ONNX graph run by ONNX Runtime. See README.md for
// the model folder contract and why.
package dlrm

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/onnx"
)

// arch sizes a DLRM-DCNv2.
type arch struct {
	// Dim is the embedding dimension; the bottom MLP ends with it.
	Dim int
	// Bottom are the bottom (dense) MLP's layer widths, ReLU after each.
	Bottom []int
	// LowRank and Layers size the DCNv2 cross network.
	LowRank, Layers int
	// Top are the top (over) MLP's widths, ReLU after each but the last
	// (which is 1).
	Top []int
	// MaxRows caps every table's stored rows (0: the real sizes);
	// lookups of a capped table take the id modulo its rows.
	MaxRows int
}

// archFull is the reference's architecture (mlcommons/inference
// recommendation/dlrm_v2/pytorch/python/main.py; TorchRec
// torchrec/models/dlrm.py DLRM_DCN): 128-d embeddings, bottom MLP
// 13-512-256-128, three low-rank (512) cross layers over 27·128 = 3456,
// top MLP 1024-1024-512-256-1.
var archFull = arch{Dim: 128, Bottom: []int{512, 256, 128}, LowRank: 512, Layers: 3, Top: []int{1024, 1024, 512, 256, 1}}

// syntheticFullMaxRows caps the synthetic full model's tables (the real
// ones hold 204,184,588 rows, 97 GiB): 65,536 rows each at most, about
// 320 MiB in all. Performance figures of this model say so.
const syntheticFullMaxRows = 65536

// archTiny is the architecture of the synthetic tiny model used by tests:
// the same graph with small widths and tables of at most 64 rows.
var archTiny = arch{Dim: 8, Bottom: []int{16, 8}, LowRank: 4, Layers: 3, Top: []int{16, 8, 1}, MaxRows: 64}

// Interaction is the width of the cross network's input, (26+1)·Dim.
func (a arch) Interaction() int { return (criteo.NumSparse + 1) * a.Dim }

// Rows is the number of stored rows of table k.
func (a arch) Rows(k int) int {
	r := criteo.TableRows[k]
	if a.MaxRows > 0 && r > a.MaxRows {
		r = a.MaxRows
	}
	return r
}

func (a arch) check() error {
	if a.Dim < 1 || len(a.Bottom) == 0 || a.Bottom[len(a.Bottom)-1] != a.Dim || a.LowRank < 1 || a.Layers < 0 || len(a.Top) == 0 || a.Top[len(a.Top)-1] != 1 {
		return fmt.Errorf("dlrm: bad architecture %+v (the bottom MLP must end at Dim, the top MLP at 1)", a)
	}
	return nil
}

// weights supplies the dense graph's parameters by name (see DenseGraph
// for the names and shapes); nil means seeded synthetic weights.
type weights func(name string, dims []int64) (*onnx.Tensor, error)

// Names of the dense graph's inputs and output: the model contract (see
// README.md).
const (
	inputDense     = "dense"     // float32 [rows, 13]
	inputEmbedding = "embedding" // float32 [rows, 26, Dim]: sum-pooled lookups of features 0..25
	outputProb     = "probability"
)

// denseGraph builds the dense part of DLRM-DCNv2: inputs dense [rows, 13]
// and embedding [rows, 26, Dim], output probability [rows] = sigmoid of
// the logit. Parameter names and shapes (x·W layout, i.e. TorchRec's
// weights transposed):
//
//	bottom.<i>.weight [in, out], bottom.<i>.bias [out]
//	cross.<l>.V [27·Dim, LowRank]  (V_kernels[l]ᵀ)
//	cross.<l>.W [LowRank, 27·Dim]  (W_kernels[l]ᵀ)
//	cross.<l>.bias [27·Dim]
//	top.<i>.weight [in, out], top.<i>.bias [out]
func denseGraph(a arch, seed uint64, w weights) (*onnx.Graph, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	g := onnx.NewGraph(onnx.Config{Name: "dlrm_dcnv2_dense", Seed: seed, Doc: "DLRM-DCNv2 dense part (mlperf-go models/dlrm)"})
	var werr error
	param := func(name string, dims []int64, init onnx.Init) string {
		if w == nil {
			return g.Param(name, onnx.Float, dims, init)
		}
		t, err := w(name, dims)
		if err != nil {
			if werr == nil {
				werr = err
			}
			t = onnx.NewFilled(name, onnx.Float, dims, 0)
		}
		return g.AddInitializer(t)
	}
	linear := func(prefix, x string, in, out int, relu bool) string {
		wt := param(prefix+".weight", []int64{int64(in), int64(out)}, onnx.Xavier(int64(in), int64(out)))
		b := param(prefix+".bias", []int64{int64(out)}, onnx.Uniform(-0.05, 0.05))
		y := g.Add(g.MatMul(x, wt), b)
		if relu {
			y = g.Relu(y)
		}
		return y
	}
	rows := onnx.Sym("rows")
	x := g.Input(inputDense, onnx.Float, rows, onnx.Fix(criteo.NumDense))
	emb := g.Input(inputEmbedding, onnx.Float, rows, onnx.Fix(criteo.NumSparse), onnx.Fix(int64(a.Dim)))
	in := criteo.NumDense
	for i, out := range a.Bottom {
		x = linear(fmt.Sprintf("bottom.%d", i), x, in, out, true)
		in = out
	}
	n := a.Interaction()
	x0 := g.Concat(1, x, g.ReshapeTo(emb, -1, int64(criteo.NumSparse*a.Dim)))
	xl := x0
	for l := range a.Layers {
		v := param(fmt.Sprintf("cross.%d.V", l), []int64{int64(n), int64(a.LowRank)}, onnx.Xavier(int64(n), int64(a.LowRank)))
		wk := param(fmt.Sprintf("cross.%d.W", l), []int64{int64(a.LowRank), int64(n)}, onnx.Xavier(int64(a.LowRank), int64(n)))
		b := param(fmt.Sprintf("cross.%d.bias", l), []int64{int64(n)}, onnx.Uniform(-0.05, 0.05))
		t := g.Add(g.MatMul(g.MatMul(xl, v), wk), b)
		xl = g.Add(g.Mul(x0, t), xl)
	}
	y := xl
	in = n
	for i, out := range a.Top {
		y = linear(fmt.Sprintf("top.%d", i), y, in, out, i < len(a.Top)-1)
		in = out
	}
	p := g.Rename(g.ReshapeTo(g.Sigmoid(y), -1), outputProb)
	g.Output(p, onnx.Float, rows)
	if werr != nil {
		return nil, werr
	}
	return g, g.Err()
}

// archOf is the architecture of a synthetic size.
func archOf(size string) (arch, error) {
	switch size {
	case "full":
		a := archFull
		a.MaxRows = syntheticFullMaxRows
		return a, nil
	case "tiny":
		return archTiny, nil
	}
	return arch{}, fmt.Errorf("dlrm: no synthetic size %q (want full or tiny)", size)
}

// build writes the synthetic model of a size into path's folder: the
// dense graph at path and the seeded tables with their manifest beside it.
func build(path, size string, seed uint64) error {
	a, err := archOf(size)
	if err != nil {
		return err
	}
	g, err := denseGraph(a, seed, nil)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	return writeSyntheticTables(filepath.Dir(path), a, seed)
}
