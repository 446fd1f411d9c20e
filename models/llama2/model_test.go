package llama2

import (
	"slices"
	"strings"
	"testing"
)

func TestTokensRoundTrip(t *testing.T) {
	for _, ids := range [][]int32{{0}, {2}, {1, 29871, 31999}} {
		b := encodeTokens(nil, ids)
		got, err := DecodeTokens(b)
		if err != nil || !slices.Equal(got, ids) || len(b) != 4*len(ids) {
			t.Errorf("%v: got %v, %v", ids, got, err)
		}
	}
	if b := encodeTokens(nil, []int32{0x0102}); !slices.Equal(b, []byte{2, 1, 0, 0}) {
		t.Errorf("encoding %v", b)
	}
	if _, err := DecodeTokens([]byte{1, 2, 3}); err == nil || !strings.HasPrefix(err.Error(), "llama2: ") {
		t.Errorf("odd length: %v", err)
	}
}

func TestConfigs(t *testing.T) {
	// Llama-2-70b: 68,976,648,192 parameters
	if p := Configs[size70B].Params(); p != 68976648192 {
		t.Errorf("70b: %d parameters", p)
	}
	// Llama-2-7b: 6,738,415,616 parameters
	if p := Configs[size7B].Params(); p != 6738415616 {
		t.Errorf("7b: %d parameters", p)
	}
	for _, size := range []string{size70B, size7B, SizeTiny} {
		c := Configs[size]
		g, err := arch(c, archSeed)
		if err != nil {
			t.Fatal(err)
		}
		if extra := g.ParamCount() - c.Params(); extra < 0 || extra > 64*c.Layers+1000 { // small constants (shapes, axes, rotary frequencies)
			t.Errorf("%s: graph holds %d elements, Params says %d", size, g.ParamCount(), c.Params())
		}
	}
	c := Configs[size70B]
	if c.HeadDim() != 128 || c.Spec().BytesPerToken(2) == 0 {
		t.Errorf("70b head dim %d", c.HeadDim())
	}
	if _, err := configOf("13b"); err == nil || !strings.Contains(err.Error(), "70b, 7b, tiny") {
		t.Errorf("unknown size: %v", err)
	}
	g := Generation()
	if g.EOS != 2 || g.MinNewTokens != 1 || g.MaxNewTokens != 1024 {
		t.Errorf("generation %+v", g)
	}
}
