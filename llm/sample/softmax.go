// Package sample picks the next token of a generated sequence from a model's
// logits: greedy argmax with a minimum length (Llama 2), and the Hugging Face
// beam search of transformers' BeamSearchScorer (GPT-J), as a step API that a
// decode loop drives.
//
// Everything works on plain []float32 rows of vocabulary width. Nothing here
// knows about tensors, sessions or caches: a decode loop runs the model,
// hands the last-position logits of each live sequence to a sampler, feeds
// back the tokens it returns and, for beam search, reorders its KV cache by
// the parent beams it returns.
package sample

import (
	"errors"
	"math"
)

// ErrBadInput is wrapped by every error about the shape or content of the
// logits or the configuration handed to this package.
var ErrBadInput = errors.New("sample: bad input")

// LogSoftmax writes log_softmax(logits) into dst and returns it; dst is grown
// when it is too short and may be logits itself (in place). The result is
// float32, computed in the same three steps as torch's log_softmax kernel
// for a float32 row: m = max(x); s = Σ exp(x−m); y = (x−m) − log(s). The
// subtraction x−m and the final subtraction are done in float32 as torch
// does; exp and the running sum are done in float64 and log(s) is rounded
// once to float32. torch sums in float32 in a vectorised order that depends
// on the CPU or GPU kernel, so no implementation reproduces its last bit
// everywhere; this one is within one float32 ulp of it and is
// deterministic. A row containing +Inf gives NaN where torch does too; -Inf
// entries give -Inf. An empty row returns dst[:0].
func LogSoftmax(dst, logits []float32) []float32 {
	if cap(dst) < len(logits) {
		dst = make([]float32, len(logits))
	}
	dst = dst[:len(logits)]
	if len(logits) == 0 {
		return dst
	}
	m := logits[0]
	for _, v := range logits[1:] {
		if v > m || v != v {
			m = v
		}
	}
	var s float64
	for _, v := range logits {
		s += math.Exp(float64(v - m))
	}
	ls := float32(math.Log(s))
	for i, v := range logits {
		dst[i] = (v - m) - ls
	}
	return dst
}

// Argmax returns the index of the largest value of row, the first one on
// ties (torch.argmax's rule); -1 for an empty row. NaN is treated as larger
// than any number, as torch does; the first NaN wins.
func Argmax(row []float32) int {
	if len(row) == 0 {
		return -1
	}
	best := 0
	for i := 1; i < len(row); i++ {
		v, b := row[i], row[best]
		if b != b {
			return best
		}
		if v > b || v != v {
			best = i
		}
	}
	return best
}
