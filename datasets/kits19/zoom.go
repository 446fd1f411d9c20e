package kits19

import (
	"fmt"
	"math"
)

// Volume is a 3-D array in C order: Data[(i*Shape[1]+j)*Shape[2]+k] is
// numpy's a[i, j, k].
type Volume[T float32 | uint8] struct {
	Shape [3]int
	Data  []T
}

// ZoomShape is the output shape of scipy.ndimage.zoom for an input shape
// and per-axis zoom factors: Python's round(n·f) (round half to even) on
// each axis.
func ZoomShape(in [3]int, factor [3]float64) [3]int {
	var out [3]int
	for i := range in {
		out[i] = int(math.RoundToEven(float64(in[i]) * factor[i]))
	}
	return out
}

// zoomAxis holds, for each output index along one axis, the input start
// index, the two linear weights and whether the sample lies outside the
// input (scipy's "zeros": the whole output voxel is cval).
type zoomAxis struct {
	start   []int
	w0, w1  []float64
	outside []bool
	n       int // input length
}

// newZoomAxis follows scipy.ndimage's NI_ZoomShift for one axis with
// grid_mode=False and mode="constant": the output index k samples input
// coordinate c = k·z with z = (in−1)/(out−1) in float64 (z = 1 when
// out = 1); c > in−1 is outside (cval); order 1 starts at floor(c) with
// weights 1 − (c − floor(c)) and 1 minus that; order 0 starts at
// floor(c + 0.5).
func newZoomAxis(in, out, order int) zoomAxis {
	z := 1.0
	if out-1 != 0 {
		z = float64(in-1) / float64(out-1)
	}
	a := zoomAxis{start: make([]int, out), w0: make([]float64, out), w1: make([]float64, out), outside: make([]bool, out), n: in}
	for k := range out {
		c := float64(k) * z
		if c < 0 || c > float64(in-1) {
			a.outside[k] = true
			continue
		}
		if order == 1 {
			s := math.Floor(c)
			a.start[k] = int(s)
			f := c - s
			a.w0[k] = 1.0 - f
			a.w1[k] = 1.0 - a.w0[k]
		} else {
			a.start[k] = int(math.Floor(c + 0.5))
		}
	}
	return a
}

// idx is the input index of tap t (0 or 1) of output index k, mirrored at
// the far edge as scipy does (its weight is then 0 or the axis has one
// element).
func (a *zoomAxis) idx(k, t int) int {
	i := a.start[k] + t
	if a.n <= 1 {
		return 0
	}
	if i >= a.n {
		i = 2*a.n - 2 - i
	}
	return i
}

// ZoomLinear resamples v to out as scipy.ndimage.zoom(v, factor, order=1,
// mode="constant", cval=cval, grid_mode=False) does for a float32 array:
// trilinear interpolation in float64 summed over the 2×2×2 taps in
// scipy's order (last axis fastest, each tap's value multiplied by the
// axis weights in axis order), then rounded to float32.
func ZoomLinear(v Volume[float32], out [3]int, cval float64) (Volume[float32], error) {
	if err := checkZoom(v.Shape, out, len(v.Data)); err != nil {
		return Volume[float32]{}, err
	}
	ax := [3]zoomAxis{newZoomAxis(v.Shape[0], out[0], 1), newZoomAxis(v.Shape[1], out[1], 1), newZoomAxis(v.Shape[2], out[2], 1)}
	r := Volume[float32]{Shape: out, Data: make([]float32, out[0]*out[1]*out[2])}
	s1, s0 := v.Shape[2], v.Shape[1]*v.Shape[2]
	o := 0
	for i := range out[0] {
		for j := range out[1] {
			for k := range out[2] {
				if ax[0].outside[i] || ax[1].outside[j] || ax[2].outside[k] {
					r.Data[o] = float32(cval)
					o++
					continue
				}
				w0 := [2]float64{ax[0].w0[i], ax[0].w1[i]}
				w1 := [2]float64{ax[1].w0[j], ax[1].w1[j]}
				w2 := [2]float64{ax[2].w0[k], ax[2].w1[k]}
				t := 0.0
				for a := range 2 {
					ia := ax[0].idx(i, a) * s0
					for b := range 2 {
						ib := ia + ax[1].idx(j, b)*s1
						for c := range 2 {
							coeff := float64(v.Data[ib+ax[2].idx(k, c)])
							coeff = float64(coeff * w0[a])
							coeff = float64(coeff * w1[b])
							coeff = float64(coeff * w2[c])
							t = float64(t + coeff)
						}
					}
				}
				r.Data[o] = float32(t)
				o++
			}
		}
	}
	return r, nil
}

// ZoomNearest resamples a label volume as scipy.ndimage.zoom(v, factor,
// order=0, mode="constant", cval=cval, grid_mode=False) does for uint8:
// each output voxel takes the input voxel at floor(c + 0.5) per axis (so a
// coordinate at .5 rounds up), cval outside.
func ZoomNearest(v Volume[uint8], out [3]int, cval uint8) (Volume[uint8], error) {
	if err := checkZoom(v.Shape, out, len(v.Data)); err != nil {
		return Volume[uint8]{}, err
	}
	ax := [3]zoomAxis{newZoomAxis(v.Shape[0], out[0], 0), newZoomAxis(v.Shape[1], out[1], 0), newZoomAxis(v.Shape[2], out[2], 0)}
	r := Volume[uint8]{Shape: out, Data: make([]uint8, out[0]*out[1]*out[2])}
	s1, s0 := v.Shape[2], v.Shape[1]*v.Shape[2]
	o := 0
	for i := range out[0] {
		for j := range out[1] {
			for k := range out[2] {
				if ax[0].outside[i] || ax[1].outside[j] || ax[2].outside[k] {
					r.Data[o] = cval
				} else {
					r.Data[o] = v.Data[ax[0].idx(i, 0)*s0+ax[1].idx(j, 0)*s1+ax[2].idx(k, 0)]
				}
				o++
			}
		}
	}
	return r, nil
}

func checkZoom(in, out [3]int, n int) error {
	if in[0]*in[1]*in[2] != n || in[0] < 1 || in[1] < 1 || in[2] < 1 {
		return fmt.Errorf("kits19: zoom of a %v volume holding %d voxels", in, n)
	}
	if out[0] < 1 || out[1] < 1 || out[2] < 1 {
		return fmt.Errorf("kits19: resampling %v gives an empty volume %v (spacing too small against the target spacing)", in, out)
	}
	return nil
}
