package deepseekr1

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/lcb"
	"github.com/mlperf-go/inference/accuracy/reasoneval"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// decodeOptions are the reference's decoding of the logged ids
// (eval_accuracy.py: tokenizer.batch_decode with skip_special_tokens;
// clean_up_tokenization_spaces is false in DeepSeek-R1's
// tokenizer_config.json): <think> and </think> are not special, so the
// text keeps them.
var decodeOptions = tokenizer.DecodeOptions{SkipSpecial: true}

// scoreLog reads the accuracy log's first entry of every qsl_idx, as
// process_mlperf_log_accuracy does, decodes each and hands the rows, the
// texts and the ids' counts to the reference's evaluator.
func scoreLog(ctx context.Context, req *spec.ScoreRequest, set *reasoning.Set, tok *tokenizer.DeepSeek) (*spec.Score, error) {
	dt := accuracy.DType(req.DType)
	outs, err := reasoneval.ReadOutputs(req.Log, dt, true, set.Len(), tok.VocabSize())
	if err != nil {
		return nil, fmt.Errorf("deepseek-r1: %w", err)
	}
	rows := make([]reasoning.Row, len(outs))
	texts := make([]string, len(outs))
	counts := make([]int, len(outs))
	for i, o := range outs {
		rows[i], texts[i], counts[i] = set.Rows[o.Row], tok.Decode(o.IDs, decodeOptions), len(o.IDs)
	}
	lines, text, err := evaluate(ctx, req, set.Path, rows, texts, counts)
	if err != nil {
		return nil, fmt.Errorf("deepseek-r1: %w", err)
	}
	return &spec.Score{Lines: lines, Text: text}, nil
}

// evaluate is the reference's evaluator on decoded outputs
// (accuracy/reasoneval.DeepSeekR1: multiple choice, boxed and AIME
// answers, MATH500 equivalence, LiveCodeBench programs run in the code
// sandbox on release_v1's tests from --lcb-problems, or the
// code_generation_lite folder beside the data set): rows are the data
// set's rows of the logged responses in log order, outputs their decoded
// texts, tokens their lengths in ids. It returns the accuracy.txt line
// the checker parses ({'exact_match': …, 'tokens_per_sample': …}) and the
// reference's printout.
func evaluate(ctx context.Context, req *spec.ScoreRequest, dataPath string, rows []reasoning.Row, outputs []string, tokens []int) ([]string, string, error) {
	rs := evalRows(rows)
	ps, err := reasoneval.LoadProblems(rs, req.Extra["lcb-problems"], dataPath, lcb.ReleaseDeepSeekR1)
	if err != nil {
		return nil, "", err
	}
	res, err := reasoneval.DeepSeekR1(ctx, rs, outputs, tokens, reasoneval.Options{Problems: ps, Log: req.Stderr})
	if err != nil {
		return nil, "", err
	}
	return res.Lines, res.Text, nil
}

// evalRows are what the scorers read of the data set's rows.
func evalRows(rows []reasoning.Row) []reasoneval.Row {
	rs := make([]reasoneval.Row, len(rows))
	for i, r := range rows {
		rs[i] = reasoneval.Row{Dataset: r.Dataset, GroundTruth: r.GroundTruth, GroundTruthNull: r.GroundTruthNull}
	}
	return rs
}
