package llama3

import (
	"fmt"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// scoreLog is the reference's evaluation.py on an accuracy log of token ids
// (dtype int32, what the SUT writes and the README passes, or int64, the
// script's default): the first entry of each qsl_idx kept in log order,
// the ids decoded with skip_special_tokens and the tokenizer's
// clean_up_tokenization_spaces, then postprocess_text (strip, NLTK
// sentence split, "\n" join) and rouge_score with the stemmer against the
// "output" of sample qsl_idx, averaged per type, gen_len the characters
// of the postprocessed predictions and gen_num their count. The counts of
// generated ids (EOS included) fill GenTokLen and TokensPerSample, which
// evaluation.py does not print.
func scoreLog(logPath string, targets []string, tok *tokenizer.Llama3, dtype accuracy.DType) (rouge.Result, error) {
	if dtype == "" {
		dtype = accuracy.Int32
	}
	if dtype != accuracy.Int32 && dtype != accuracy.Int64 {
		return rouge.Result{}, fmt.Errorf("llama3: --dtype %s: token ids are int32 or int64", dtype)
	}
	opt := tokenizer.DecodeOptions{SkipSpecial: true, CleanUpSpaces: tok.CleanUpSpaces()}
	var preds, refs []string
	var counts []int
	_, err := accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(targets)) {
			return fmt.Errorf("llama3: accuracy log %s: qsl_idx %d, but the data set has %d samples", logPath, e.QSLIdx, len(targets))
		}
		vals, err := accuracy.Decode(e.Data, dtype)
		if err != nil {
			return fmt.Errorf("llama3: accuracy log %s: qsl_idx %d: %w", logPath, e.QSLIdx, err)
		}
		ids := make([]int32, len(vals))
		for i, v := range vals {
			if v < 0 || v >= float64(tok.VocabSize()) {
				return fmt.Errorf("llama3: accuracy log %s: qsl_idx %d: id %v is outside the vocabulary of %d (is the log from this model, and --dtype right?)", logPath, e.QSLIdx, v, tok.VocabSize())
			}
			ids[i] = int32(v)
		}
		preds = append(preds, tok.Decode(ids, opt))
		refs = append(refs, targets[e.QSLIdx])
		counts = append(counts, len(ids))
		return nil
	})
	if err != nil {
		return rouge.Result{}, err
	}
	if len(preds) == 0 {
		return rouge.Result{}, fmt.Errorf("llama3: accuracy log %s has no entries", logPath)
	}
	r, err := rouge.Evaluate(preds, refs, counts)
	if err != nil {
		return r, fmt.Errorf("llama3: %w", err)
	}
	return r, nil
}

// resultLine prints r as evaluation.py prints its dict (the GPT-J
// evaluator's format: metrics as quoted strings, gen_len and gen_num as
// integers), the line the submission checker reads.
func resultLine(r rouge.Result) string { return r.GPTJString() }
