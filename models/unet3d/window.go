package unet3d

import (
	"fmt"
	"math"
	"sync"
)

// The sliding window of the reference (mlcommons/inference
// vision/medical_imaging/3d-unet-kits19 base_SUT.py infer_single_query and
// inference_utils.py): 128³ windows with stride 64 along D, H and W, each
// window's logits weighted by a Gaussian importance map and accumulated in
// float32, then divided by the accumulated map and argmaxed over the
// classes.

// stride is the window step along each axis: 128 × (1 − overlap 0.5).
const stride = 64

// windowVoxels is the number of voxels of one window.
const windowVoxels = window * window * window

var (
	importanceOnce sync.Once
	importance     []float32
)

// importanceMap is inference_utils.gaussian_kernel(128, 0.125·128) as
// float32: g(n) = exp(−(n − 63.5)² / (2·16²)) (scipy.signal.gaussian),
// the 3-D product g(i)·g(j)·g(k) formed as numpy's two outer products, its
// cube root, divided by its maximum, computed in float64 and rounded to
// float32, in C order. The slice is shared: do not modify it.
func importanceMap() []float32 {
	importanceOnce.Do(func() {
		const n = window
		std := 0.125 * n
		sig2 := 2 * std * std
		var g [n]float64
		for i := range g {
			x := float64(i) - float64(n-1)/2
			g[i] = math.Exp(-(x * x) / sig2)
		}
		m := make([]float64, windowVoxels)
		mx := 0.0
		for i := range n {
			for j := range n {
				gij := g[i] * g[j]
				for k := range n {
					v := math.Cbrt(gij * g[k])
					m[(i*n+j)*n+k] = v
					mx = max(mx, v)
				}
			}
		}
		importance = make([]float32, windowVoxels)
		for i, v := range m {
			importance[i] = float32(v / mx)
		}
	})
	return importance
}

// windows returns the start corners (d, h, w) of the windows over a volume
// of the given shape in the reference's order (D outermost, W innermost):
// (size − 128) / 64 + 1 starts per axis, 0, 64, 128, …
func windows(shape [3]int) ([][3]int, error) {
	var n [3]int
	for a, s := range shape {
		if s < window || s%stride != 0 {
			return nil, fmt.Errorf("unet3d: volume shape %v: each axis must be a multiple of %d and at least %d (preprocess the data with mlperf dataset preprocess kits19)", shape, stride, window)
		}
		n[a] = (s-window)/stride + 1
	}
	var out [][3]int
	for i := range n[0] {
		for j := range n[1] {
			for k := range n[2] {
				out = append(out, [3]int{i * stride, j * stride, k * stride})
			}
		}
	}
	return out, nil
}

// extract copies the window at corner c of a volume (C order, shape) into
// dst (WindowVoxels values).
func extract(dst, vol []float32, shape, c [3]int) {
	for i := range window {
		for j := range window {
			src := vol[((c[0]+i)*shape[1]+c[1]+j)*shape[2]+c[2]:][:window]
			copy(dst[(i*window+j)*window:][:window], src)
		}
	}
}

// accumulator gathers weighted window logits over one volume: result
// holds Classes float32 planes of the volume, norm one (the reference's
// norm_map repeats the same values in every class plane).
type accumulator struct {
	shape  [3]int
	result []float32
	norm   []float32
}

// newAccumulator returns a zeroed accumulator for a volume shape.
func newAccumulator(shape [3]int) *accumulator {
	n := shape[0] * shape[1] * shape[2]
	return &accumulator{shape: shape, result: make([]float32, classes*n), norm: make([]float32, n)}
}

// Add accumulates one window's logits (Classes × WindowVoxels, C order)
// at corner c: result += logits × map (the product rounded to float32
// before the sum, as numpy evaluates it) and norm += map.
func (a *accumulator) Add(logits []float32, c [3]int) {
	m := importanceMap()
	n := a.shape[0] * a.shape[1] * a.shape[2]
	for cl := range classes {
		res := a.result[cl*n:]
		lg := logits[cl*windowVoxels:]
		for i := range window {
			for j := range window {
				o := ((c[0]+i)*a.shape[1]+c[1]+j)*a.shape[2] + c[2]
				w := (i*window + j) * window
				r, l, mm := res[o:o+window], lg[w:w+window], m[w:w+window]
				for k := range r {
					r[k] += float32(l[k] * mm[k])
				}
			}
		}
	}
	for i := range window {
		for j := range window {
			o := ((c[0]+i)*a.shape[1]+c[1]+j)*a.shape[2] + c[2]
			w := (i*window + j) * window
			r, mm := a.norm[o:o+window], m[w:w+window]
			for k := range r {
				r[k] += mm[k]
			}
		}
	}
}

// Labels finishes the volume as inference_utils.finalize does: each class
// plane divided by the norm in float32, then the index of the largest
// class per voxel (the first on ties; a NaN counts as the largest, as in
// numpy's argmax), as uint8 in C order.
func (a *accumulator) Labels() []uint8 {
	n := len(a.norm)
	out := make([]uint8, n)
	for v := range n {
		best, bi := float32(0), 0
		for cl := range classes {
			x := a.result[cl*n+v] / a.norm[v]
			if cl == 0 || x > best || (x != x && best == best) {
				best, bi = x, cl
			}
		}
		out[v] = uint8(bi)
	}
	return out
}
