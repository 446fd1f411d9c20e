package gptj

import (
	"slices"
	"strings"
	"testing"
)

func TestTokensRoundTrip(t *testing.T) {
	for _, ids := range [][]int32{nil, {0}, {50256}, {1, 2, 3, 50399}} {
		b := encodeTokens(nil, ids)
		if len(b) != 8*len(ids) {
			t.Fatalf("%v: %d bytes", ids, len(b))
		}
		got, err := DecodeTokens(b)
		if err != nil || !slices.Equal(got, ids) && len(ids) > 0 {
			t.Errorf("%v: got %v, %v", ids, got, err)
		}
	}
	// little-endian int64
	if b := encodeTokens(nil, []int32{0x0102}); !slices.Equal(b, []byte{2, 1, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("encoding %v", b)
	}
	for _, bad := range [][]byte{{1, 2, 3}, {0, 0, 0, 0, 0, 0, 0, 0x80}} {
		if _, err := DecodeTokens(bad); err == nil || !strings.HasPrefix(err.Error(), "gptj: ") {
			t.Errorf("%x: %v", bad, err)
		}
	}
}

func TestConfigs(t *testing.T) {
	full := Configs[sizeFull]
	// The full graph builds (weights are generated only when written) and
	// its weights are those of GPT-J 6B: embedding and lm_head (with bias)
	// 50400×4096, 28 layers of ln_1, q/k/v/out 4096², fc_in/fc_out 4096×16384
	// with biases, ln_f: 6,050,882,784.
	g, err := arch(full, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	if p := full.Params(); p != 6050882784 {
		t.Errorf("full: %d parameters", p)
	}
	if extra := g.ParamCount() - full.Params(); extra < 0 || extra > 64*full.Layers+1000 { // small constants (shapes, axes, rotary frequencies)
		t.Errorf("graph holds %d elements, Params says %d", g.ParamCount(), full.Params())
	}
	if full.HeadDim() != 256 || full.RotaryDim != 64 {
		t.Errorf("full head dim %d, rotary %d", full.HeadDim(), full.RotaryDim)
	}
	if _, err := configOf("huge"); err == nil || !strings.Contains(err.Error(), "full, tiny") {
		t.Errorf("unknown size: %v", err)
	}
	gen := Generation(0)
	if gen.Beams != 4 || gen.MinNewTokens != 30 || gen.MaxNewTokens != 128 || !gen.EarlyStopping || gen.EOS != 50256 {
		t.Errorf("generation %+v", gen)
	}
}
