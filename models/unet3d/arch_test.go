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
	ch := []int64{32, 64, 128, 256, 320, 320}
	block := func(in, out int64) int64 { return out*in*27 + 2*out } // conv (no bias) + norm affine
	want := block(1, 32) + block(32, 32)
	for i := 1; i <= 5; i++ {
		want += block(ch[i-1], ch[i]) + block(ch[i], ch[i])
	}
	for u := range 5 {
		in, out := ch[5-u], ch[4-u]
		want += in*out*8 + out + block(2*out, out) + block(out, out)
	}
	want += 32*3 + 3
	if got := g.ParamCount(); got != want {
		t.Errorf("full model: %d parameters, want %d", got, want)
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
