package llama2

// The score of an accuracy log: evaluate-accuracy.py's ROUGE and tokens
// per sample.

import (
	"fmt"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// score reads an accuracy log of token ids (dtype int32, the default, or
// int64), keeps the first entry of each qsl_idx, decodes the ids with tok
// skipping special tokens, and scores them against the output column of ds
// as evaluate-accuracy.py does (RougeEvaluate; gen_tok_len counts every
// id, EOS included).
func score(logPath string, ds *openorca.Dataset, tok *tokenizer.Llama, dtype accuracy.DType) (rouge.Result, error) {
	if dtype == "" {
		dtype = accuracy.Int32
	}
	if dtype != accuracy.Int32 && dtype != accuracy.Int64 {
		return rouge.Result{}, fmt.Errorf("llama2: --dtype %s: token ids are int32 or int64", dtype)
	}
	targets, err := ds.Strings(openorca.ColOutput)
	if err != nil {
		return rouge.Result{}, err
	}
	var preds, refs []string
	var counts []int
	_, err = accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(targets)) {
			return fmt.Errorf("llama2: accuracy log %s: qsl_idx %d, but %s has %d rows", logPath, e.QSLIdx, ds.Path(), len(targets))
		}
		vals, err := accuracy.Decode(e.Data, dtype)
		if err != nil {
			return fmt.Errorf("llama2: accuracy log %s: qsl_idx %d: %w", logPath, e.QSLIdx, err)
		}
		ids := make([]int32, len(vals))
		for i, v := range vals {
			ids[i] = int32(v)
		}
		preds = append(preds, tok.Decode(ids, tokenizer.DecodeOptions{SkipSpecial: true}))
		refs = append(refs, targets[e.QSLIdx])
		counts = append(counts, len(ids))
		return nil
	})
	if err != nil {
		return rouge.Result{}, err
	}
	if len(preds) == 0 {
		return rouge.Result{}, fmt.Errorf("llama2: accuracy log %s has no entries", logPath)
	}
	r, err := rouge.Evaluate(preds, refs, counts)
	if err != nil {
		return r, fmt.Errorf("llama2: %w", err)
	}
	return r, nil
}
