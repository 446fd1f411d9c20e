package llama2

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mlperf-go/inference/llm/llama"
)

// TestArchBytesUnchanged pins the bytes Arch writes for four configs
// (recorded before the builder moved to llm/llama): a change to the shared
// Llama builder must leave Llama 2's models, and so its goldens, as they
// are.
func TestArchBytesUnchanged(t *testing.T) {
	small := config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}
	f16 := small
	f16.Float16IO = true
	mha := small
	mha.KVHeads = 4
	for _, tc := range []struct {
		name string
		c    config
		want string
	}{
		{"tiny", Configs[SizeTiny], "2252616e451d03d28572a3dc4737cd25b5c9ab9c6432c88d98cd480cd45bc366"},
		{"small", small, "bc40db46f9bad5bceb3c76c10928b06d8be7f78e3260e9bee1074fb122d70e96"},
		{"float16 I/O", f16, "2075462b805a4ee28cd564c45d7c9dd594086563a15f6ce761d9b290c6b4473f"},
		{"multi-head", mha, "4b2018b65feef24cbf33846a4a15a2f6d1744fc09e0c87d0901deacc096a30fe"},
	} {
		g, err := arch(tc.c, archSeed)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := g.WriteTo(h); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != tc.want {
			t.Errorf("%s: model sha256 %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestArchRefusesRopeScaling(t *testing.T) {
	c := Configs[SizeTiny]
	c.RopeScaling = &llama.Llama31Scaling
	if _, err := arch(c, archSeed); err == nil {
		t.Error("Llama 2 built with Llama 3.1 rope scaling")
	}
	c.RopeScaling = nil
	c.Heads = 3
	if _, err := arch(c, archSeed); err == nil {
		t.Error("built 3 heads of width 64")
	}
}
