package kvcache

import (
	"testing"

	"github.com/mlperf-go/inference/backend"
)

func TestBytesPerToken(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want int64
	}{
		// 2 (K and V) × 28 layers × 16 heads × 256 dims × 4 bytes
		{"gptj fp32", Config{Layers: 28, KVHeads: 16, HeadDim: 256, DType: backend.Float32}, 917504},
		// 2 × 80 × 8 × 128 × 2
		{"llama2-70b fp16", Config{Layers: 80, KVHeads: 8, HeadDim: 128, DType: backend.Float16}, 327680},
		{"llama2-7b fp16", Config{Layers: 32, KVHeads: 32, HeadDim: 128, DType: backend.Float16}, 524288},
	}
	for _, tc := range cases {
		if got := tc.cfg.BytesPerToken(); got != tc.want {
			t.Errorf("%s: %d bytes/token, want %d", tc.name, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	if k, v := PastNames(3); k != "past_key_values.3.key" || v != "past_key_values.3.value" {
		t.Errorf("PastNames(3) = %q, %q", k, v)
	}
	if k, v := PresentNames(0); k != "present.0.key" || v != "present.0.value" {
		t.Errorf("PresentNames(0) = %q, %q", k, v)
	}
}
