// Package kvcache names and sizes the attention key/value cache of a
// decoder in the Hugging Face optimum "with past" convention that
// llm/generate runs and llm/decoder builds: per layer i, inputs
// past_key_values.i.key/value and outputs present.i.key/value, each
// [batch, kv_heads, tokens, head_dim].
//
// The cache itself lives in the decode loop (llm/generate keeps each
// batch's past tensors and reorders their rows by parent beam); an earlier
// stand-alone per-sequence cache here was never used by it and was
// removed.
package kvcache

import (
	"fmt"

	"github.com/mlperf-go/inference/backend"
)

// Config is the shape of a model's cache.
type Config struct {
	Layers  int           // decoder layers (GPT-J 28, Llama 2 70B 80)
	KVHeads int           // key/value heads (GPT-J 16, Llama 2 70B 8)
	HeadDim int           // elements per head (GPT-J 256, Llama 2 128)
	DType   backend.DType // backend.Float32 or backend.Float16
}

// BytesPerToken is the memory one token of one sequence takes: keys and
// values of every layer, 2 × Layers × KVHeads × HeadDim × element size.
func (c Config) BytesPerToken() int64 {
	return 2 * int64(c.Layers) * int64(c.KVHeads) * int64(c.HeadDim) * int64(c.DType.Size())
}

// PastNames returns the input names of layer i's cache in the Hugging Face
// optimum convention: past_key_values.i.key and past_key_values.i.value.
func PastNames(layer int) (key, value string) {
	return fmt.Sprintf("past_key_values.%d.key", layer), fmt.Sprintf("past_key_values.%d.value", layer)
}

// PresentNames returns the output names of layer i's cache: present.i.key
// and present.i.value.
func PresentNames(layer int) (key, value string) {
	return fmt.Sprintf("present.%d.key", layer), fmt.Sprintf("present.%d.value", layer)
}
