package unet3d

import (
	"testing"
)

// TestArchShape counts the full model's parameters from the reference's
// layer list independently of Arch, and its operators.
func TestArchShape(t *testing.T) {
	g, err := arch(sizeFull, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	// params is the count of the reference's layer list for channels ch.
	params := func(ch []int64) int64 {
		block := func(in, out int64) int64 { return out*in*27 + 2*out } // conv (no bias) + norm affine
		want := block(1, ch[0]) + block(ch[0], ch[0])
		for i := 1; i <= 5; i++ {
			want += block(ch[i-1], ch[i]) + block(ch[i], ch[i])
		}
		for u := range 5 {
			in, out := ch[5-u], ch[4-u]
			want += in*out*8 + out + block(2*out, out) + block(out, out)
		}
		return want + ch[0]*3 + 3
	}
	want := params([]int64{32, 64, 128, 256, 320, 320})
	if got := g.ParamCount(); got != want {
		t.Errorf("full model: %d parameters, want %d", got, want)
	}
	// The tiny size's channels are the README's 2-4-8-8-8-8.
	tiny, err := arch(sizeTiny, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tiny.ParamCount(), params([]int64{2, 4, 8, 8, 8, 8}); got != want {
		t.Errorf("tiny model: %d parameters, want %d", got, want)
	}
	if want < 31_100_000 || want > 31_300_000 {
		t.Errorf("%d parameters, want about 31.19 M", want)
	}
	ops := map[string]int{}
	for _, n := range g.Nodes() {
		ops[n.OpType]++
	}
	if ops["ConvTranspose"] != 5 || ops["InstanceNormalization"] != 22 || ops["Conv"] != 23 || ops["Concat"] != 5 {
		t.Errorf("operators %v; want 5 ConvTranspose, 22 InstanceNormalization, 23 Conv, 5 Concat", ops)
	}
	if _, err := arch("huge", 1); err == nil {
		t.Error("unknown size accepted")
	}
}
