package gptoss

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
// (eval_mlperf_accuracy.py's detokenize: skip_special_tokens=False), so
// the Harmony markers stay in the text for the evaluators to find the
// final channel.
var decodeOptions = tokenizer.DecodeOptions{}

// scoreLog reads every entry of the accuracy log, as
// eval_mlperf_accuracy.py does, decodes each and hands the rows, the
// texts and the ids' counts to the reference's evaluator.
func scoreLog(ctx context.Context, req *spec.ScoreRequest, set *reasoning.Set, tok *tokenizer.O200k) (*spec.Score, error) {
	outs, err := reasoneval.ReadOutputs(req.Log, accuracy.DType(req.DType), false, set.Len(), tok.VocabSize())
	if err != nil {
		return nil, fmt.Errorf("gpt-oss-120b: %w", err)
	}
	rows := make([]reasoning.Row, len(outs))
	texts := make([]string, len(outs))
	counts := make([]int, len(outs))
	for i, o := range outs {
		rows[i], texts[i], counts[i] = set.Rows[o.Row], tok.Decode(o.IDs, decodeOptions), len(o.IDs)
	}
	lines, text, err := evaluate(ctx, req, set.Path, rows, texts, counts)
	if err != nil {
		return nil, fmt.Errorf("gpt-oss-120b: %w", err)
	}
	return &spec.Score{Lines: lines, Text: text}, nil
}

// evaluate is the reference's evaluator on decoded outputs
// (accuracy/reasoneval.GPTOSS: the per-dataset evaluators with gpt-oss's
// repeats and final-score formula; LiveCodeBench programs run in the code
// sandbox on release_v6's tests from --lcb-problems, or the
// code_generation_lite folder beside the data set or one folder up):
// rows are the data set's rows of the logged responses in log order,
// outputs their decoded texts, tokens their lengths in ids. It returns
// the accuracy.txt lines the checker parses ('exact_match',
// 'tokens_per_sample') and the reference's printout.
func evaluate(ctx context.Context, req *spec.ScoreRequest, dataPath string, rows []reasoning.Row, outputs []string, tokens []int) ([]string, string, error) {
	rs := make([]reasoneval.Row, len(rows))
	for i, r := range rows {
		rs[i] = reasoneval.Row{Dataset: r.Dataset, GroundTruth: r.GroundTruth, GroundTruthNull: r.GroundTruthNull}
	}
	ps, err := reasoneval.LoadProblems(rs, req.Extra["lcb-problems"], dataPath, lcb.ReleaseGPTOSS)
	if err != nil {
		return nil, "", err
	}
	res, err := reasoneval.GPTOSS(ctx, rs, outputs, tokens, reasoneval.Options{Problems: ps, Log: req.Stderr})
	if err != nil {
		return nil, "", err
	}
	return res.Lines, res.Text, nil
}
