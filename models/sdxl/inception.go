package sdxl

import (
	"fmt"

	"github.com/mlperf-go/inference/onnx"
)

// The FID network of the full synthetic scorer: pytorch-fid's
// FIDInceptionV3 (src/pytorch_fid/inception.py, the TF-FID variant of
// torchvision's InceptionV3: FIDInceptionA/C/E_1 average-pool without the
// padding, E_2 max-pools) up to the pool3 features, with seeded weights.
// Every BasicConv2d is a convolution without bias, BatchNorm (eps 0.001)
// and ReLU. The input is already resized to 299×299 and scaled to
// [−1, 1] (FIDInput).

// bconv is pytorch-fid's BasicConv2d with a kh×kw kernel.
func (b builder) bconv(p, x string, in, out, kh, kw, stride, ph, pw int64) string {
	w := b.Param(p+".conv.weight", onnx.Float, []int64{out, in, kh, kw}, onnx.He(in*kh*kw))
	o := onnx.ConvOpts{Pads: []int64{ph, pw, ph, pw}}
	if stride != 1 {
		o.Strides = []int64{stride, stride}
	}
	y := b.Conv(x, w, "", o)
	y = b.BatchNorm(y, b.ones(p+".bn.weight", out), b.zeros(p+".bn.bias", out), b.zeros(p+".bn.running_mean", out), b.ones(p+".bn.running_var", out), 0.001)
	return b.Relu(y)
}

func (b builder) avgPool3(x string) string {
	return b.AveragePool(x, []int64{3, 3}, onnx.ConvOpts{Strides: []int64{1, 1}, Pads: []int64{1, 1, 1, 1}})
}

func (b builder) maxPool3(x string, stride, pad int64) string {
	return b.MaxPool(x, []int64{3, 3}, onnx.ConvOpts{Strides: []int64{stride, stride}, Pads: []int64{pad, pad, pad, pad}})
}

func (b builder) inceptionA(p, x string, in, poolFeatures int64) (string, int64) {
	b1 := b.bconv(p+".branch1x1", x, in, 64, 1, 1, 1, 0, 0)
	b5 := b.bconv(p+".branch5x5_2", b.bconv(p+".branch5x5_1", x, in, 48, 1, 1, 1, 0, 0), 48, 64, 5, 5, 1, 2, 2)
	d := b.bconv(p+".branch3x3dbl_1", x, in, 64, 1, 1, 1, 0, 0)
	d = b.bconv(p+".branch3x3dbl_2", d, 64, 96, 3, 3, 1, 1, 1)
	d = b.bconv(p+".branch3x3dbl_3", d, 96, 96, 3, 3, 1, 1, 1)
	bp := b.bconv(p+".branch_pool", b.avgPool3(x), in, poolFeatures, 1, 1, 1, 0, 0)
	return b.Concat(1, b1, b5, d, bp), 64 + 64 + 96 + poolFeatures
}

func (b builder) inceptionB(p, x string, in int64) (string, int64) {
	b3 := b.bconv(p+".branch3x3", x, in, 384, 3, 3, 2, 0, 0)
	d := b.bconv(p+".branch3x3dbl_1", x, in, 64, 1, 1, 1, 0, 0)
	d = b.bconv(p+".branch3x3dbl_2", d, 64, 96, 3, 3, 1, 1, 1)
	d = b.bconv(p+".branch3x3dbl_3", d, 96, 96, 3, 3, 2, 0, 0)
	return b.Concat(1, b3, d, b.maxPool3(x, 2, 0)), 384 + 96 + in
}

func (b builder) inceptionC(p, x string, in, c7 int64) (string, int64) {
	b1 := b.bconv(p+".branch1x1", x, in, 192, 1, 1, 1, 0, 0)
	s := b.bconv(p+".branch7x7_1", x, in, c7, 1, 1, 1, 0, 0)
	s = b.bconv(p+".branch7x7_2", s, c7, c7, 1, 7, 1, 0, 3)
	s = b.bconv(p+".branch7x7_3", s, c7, 192, 7, 1, 1, 3, 0)
	d := b.bconv(p+".branch7x7dbl_1", x, in, c7, 1, 1, 1, 0, 0)
	d = b.bconv(p+".branch7x7dbl_2", d, c7, c7, 7, 1, 1, 3, 0)
	d = b.bconv(p+".branch7x7dbl_3", d, c7, c7, 1, 7, 1, 0, 3)
	d = b.bconv(p+".branch7x7dbl_4", d, c7, c7, 7, 1, 1, 3, 0)
	d = b.bconv(p+".branch7x7dbl_5", d, c7, 192, 1, 7, 1, 0, 3)
	bp := b.bconv(p+".branch_pool", b.avgPool3(x), in, 192, 1, 1, 1, 0, 0)
	return b.Concat(1, b1, s, d, bp), 768
}

func (b builder) inceptionD(p, x string, in int64) (string, int64) {
	t := b.bconv(p+".branch3x3_2", b.bconv(p+".branch3x3_1", x, in, 192, 1, 1, 1, 0, 0), 192, 320, 3, 3, 2, 0, 0)
	s := b.bconv(p+".branch7x7x3_1", x, in, 192, 1, 1, 1, 0, 0)
	s = b.bconv(p+".branch7x7x3_2", s, 192, 192, 1, 7, 1, 0, 3)
	s = b.bconv(p+".branch7x7x3_3", s, 192, 192, 7, 1, 1, 3, 0)
	s = b.bconv(p+".branch7x7x3_4", s, 192, 192, 3, 3, 2, 0, 0)
	return b.Concat(1, t, s, b.maxPool3(x, 2, 0)), 320 + 192 + in
}

// inceptionE is FIDInceptionE_1 (average pool) or _2 (max pool).
func (b builder) inceptionE(p, x string, in int64, maxPool bool) (string, int64) {
	b1 := b.bconv(p+".branch1x1", x, in, 320, 1, 1, 1, 0, 0)
	t := b.bconv(p+".branch3x3_1", x, in, 384, 1, 1, 1, 0, 0)
	t = b.Concat(1, b.bconv(p+".branch3x3_2a", t, 384, 384, 1, 3, 1, 0, 1), b.bconv(p+".branch3x3_2b", t, 384, 384, 3, 1, 1, 1, 0))
	d := b.bconv(p+".branch3x3dbl_1", x, in, 448, 1, 1, 1, 0, 0)
	d = b.bconv(p+".branch3x3dbl_2", d, 448, 384, 3, 3, 1, 1, 1)
	d = b.Concat(1, b.bconv(p+".branch3x3dbl_3a", d, 384, 384, 1, 3, 1, 0, 1), b.bconv(p+".branch3x3dbl_3b", d, 384, 384, 3, 1, 1, 1, 0))
	pool := b.avgPool3(x)
	if maxPool {
		pool = b.maxPool3(x, 1, 1)
	}
	bp := b.bconv(p+".branch_pool", pool, in, 192, 1, 1, 1, 0, 0)
	return b.Concat(1, b1, t, d, bp), 2048
}

// syntheticFIDInception builds pytorch-fid's FIDInceptionV3 up to pool3:
// images [N, 3, 299, 299] → features [N, 2048].
func syntheticFIDInception(seed uint64) *onnx.Graph {
	g := builder{onnx.NewGraph(onnx.Config{Name: "fid_inception_v3", Seed: seed})}
	x := g.Input(fidInputName, onnx.Float, onnx.Sym("N"), onnx.Fix(3), onnx.Fix(fidSide), onnx.Fix(fidSide))
	x = g.bconv("Conv2d_1a_3x3", x, 3, 32, 3, 3, 2, 0, 0)
	x = g.bconv("Conv2d_2a_3x3", x, 32, 32, 3, 3, 1, 0, 0)
	x = g.bconv("Conv2d_2b_3x3", x, 32, 64, 3, 3, 1, 1, 1)
	x = g.maxPool3(x, 2, 0)
	x = g.bconv("Conv2d_3b_1x1", x, 64, 80, 1, 1, 1, 0, 0)
	x = g.bconv("Conv2d_4a_3x3", x, 80, 192, 3, 3, 1, 0, 0)
	x = g.maxPool3(x, 2, 0)
	c := int64(192)
	for i, pf := range []int64{32, 64, 64} {
		x, c = g.inceptionA(fmt.Sprintf("Mixed_5%c", 'b'+i), x, c, pf)
	}
	x, c = g.inceptionB("Mixed_6a", x, c)
	for i, c7 := range []int64{128, 160, 160, 192} {
		x, c = g.inceptionC(fmt.Sprintf("Mixed_6%c", 'b'+i), x, c, c7)
	}
	x, c = g.inceptionD("Mixed_7a", x, c)
	x, c = g.inceptionE("Mixed_7b", x, c, false)
	x, c = g.inceptionE("Mixed_7c", x, c, true)
	y := g.Flatten(g.GlobalAveragePool(x), 1)
	g.Output(g.Rename(y, fidOutputName), onnx.Float, onnx.Sym("N"), onnx.Fix(c))
	return g.Graph
}
