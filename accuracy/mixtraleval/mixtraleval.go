// Package mixtraleval computes the accuracy line of Mixtral-8x7B as
// mlcommons/inference language/mixtral-8x7b/evaluate-accuracy.py prints
// it: ROUGE over the OpenOrca rows (accuracy/rouge), GSM8K exact match
// (accuracy/gsm8k), the MBXP pass rate (accuracy/mbxp, programs run in the
// sandbox), and the generated lengths (gen_len, gen_num, gen_tok_len,
// tokens_per_sample). It is named apart from datasets/mixtral, the data
// set it reads.
package mixtraleval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-go/inference/accuracy/gsm8k"
	"github.com/mlperf-go/inference/accuracy/mbxp"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/internal/pynum"
)

// Entry is one entry of the accuracy log, in log order, decoded.
type Entry struct {
	QSLIdx int
	// Tokens is the number of token ids the entry holds (EOS included).
	Tokens int
	// Text is the ids decoded with special tokens skipped; only the first
	// entry of each qsl_idx is read.
	Text string
}

// Options tune Evaluate.
type Options struct {
	// Checker runs the MBXP programs (nil: mbxp.NewChecker(nil), closed
	// after).
	Checker *mbxp.Checker
	// Workers checks MBXP programs at once (the reference's --n_workers).
	Workers int
	// Log receives MBXP's warnings (nil discards them).
	Log io.Writer
}

// Result is what evaluate-accuracy.py reports.
type Result struct {
	// Rouge is nil when the log has no OpenOrca row (the reference then
	// prints no ROUGE key).
	Rouge *rouge.Result
	GSM8K gsm8k.Result
	// MBXP is nil when the log has no MBXP row (the reference prints
	// 'mbxp': 0).
	MBXP *mbxp.Result
	// GenLen sums the characters of the postprocessed OpenOrca
	// predictions; GenNum counts the log's entries (duplicates included);
	// GenTokLen sums the token counts of the first entry of each qsl_idx;
	// TokensPerSample is round(GenTokLen / GenNum, 1).
	GenLen, GenNum, GenTokLen int
	TokensPerSample           float64
}

// ErrNoGSM8K: the log has no GSM8K row; the reference divides by zero.
var ErrNoGSM8K = errors.New("mixtraleval: the accuracy log has no GSM8K row (evaluate-accuracy.py cannot score such a log: it divides by zero)")

// Evaluate scores entries against ds as evaluate-accuracy.py does: the
// first entry of each qsl_idx is kept, its row's dataset column choosing
// the scorer.
func Evaluate(ctx context.Context, ds *mixtral.Dataset, entries []Entry, opt Options) (Result, error) {
	var (
		res                    Result
		orcaPreds, orcaTargets []string
		gsmPreds, gsmTargets   []string
		problems               []mbxp.Problem
		seen                   = make(map[int]bool, len(entries))
	)
	for _, e := range entries {
		res.GenNum++
		if e.QSLIdx < 0 || e.QSLIdx >= ds.Len() {
			return res, fmt.Errorf("mixtraleval: qsl_idx %d, but the data set %s has %d rows", e.QSLIdx, ds.Path, ds.Len())
		}
		if seen[e.QSLIdx] {
			continue
		}
		seen[e.QSLIdx] = true
		s := ds.Samples[e.QSLIdx]
		res.GenTokLen += e.Tokens
		switch s.Dataset {
		case mixtral.GSM8K:
			gsmPreds, gsmTargets = append(gsmPreds, e.Text), append(gsmTargets, s.GtOutput)
		case mixtral.OpenOrca:
			orcaPreds, orcaTargets = append(orcaPreds, e.Text), append(orcaTargets, s.GtOutput)
		default:
			lang, entry, err := mbxp.SplitID(s.ID)
			if err != nil {
				return res, fmt.Errorf("mixtraleval: row %d: %w", e.QSLIdx, err)
			}
			problems = append(problems, mbxp.Problem{Lang: lang, EntryPoint: entry, Test: s.GtOutput, Response: e.Text})
		}
	}
	if len(orcaPreds) > 0 {
		r, err := rouge.Evaluate(orcaPreds, orcaTargets, nil)
		if err != nil {
			return res, fmt.Errorf("mixtraleval: %w", err)
		}
		r.PerSample = nil
		res.Rouge = &r
		res.GenLen = r.GenLen
	}
	if len(gsmPreds) == 0 {
		return res, ErrNoGSM8K
	}
	var err error
	if res.GSM8K, err = gsm8k.Score(gsmPreds, gsmTargets); err != nil {
		return res, fmt.Errorf("mixtraleval: %w", err)
	}
	if len(problems) > 0 {
		c := opt.Checker
		if c == nil {
			if c, err = mbxp.NewChecker(nil); err != nil {
				return res, fmt.Errorf("mixtraleval: %w", err)
			}
			defer c.Close()
		}
		m, err := c.Evaluate(ctx, problems, mbxp.Options{Workers: opt.Workers, Log: opt.Log})
		if err != nil {
			return res, fmt.Errorf("mixtraleval: %w", err)
		}
		res.MBXP = &m
	}
	if res.GenNum > 0 {
		res.TokensPerSample = pynum.Round1(float64(res.GenTokLen) / float64(res.GenNum))
	}
	return res, nil
}

// String is the result dict as evaluate-accuracy.py prints it, e.g.
// {'rouge1': 45.5989, 'rouge2': 23.3526, 'rougeL': 30.4608, 'rougeLsum':
// 42.2, 'gsm8k': 73.66, 'mbxp': 60.16, 'gen_len': 1234, 'gen_num': 15000,
// 'gen_tok_len': 2172600, 'tokens_per_sample': 144.8}.
func (r Result) String() string {
	var p []string
	if r.Rouge != nil {
		p = append(p, "'rouge1': "+pynum.FloatRepr(r.Rouge.Rouge1), "'rouge2': "+pynum.FloatRepr(r.Rouge.Rouge2),
			"'rougeL': "+pynum.FloatRepr(r.Rouge.RougeL), "'rougeLsum': "+pynum.FloatRepr(r.Rouge.RougeLsum))
	}
	p = append(p, "'gsm8k': "+pynum.FloatRepr(r.GSM8K.Accuracy))
	if r.MBXP != nil {
		p = append(p, "'mbxp': "+pynum.FloatRepr(r.MBXP.PassRate))
	} else {
		p = append(p, "'mbxp': 0")
	}
	p = append(p, fmt.Sprintf("'gen_len': %d", r.GenLen), fmt.Sprintf("'gen_num': %d", r.GenNum),
		fmt.Sprintf("'gen_tok_len': %d", r.GenTokLen), "'tokens_per_sample': "+pynum.FloatRepr(r.TokensPerSample))
	return "{" + strings.Join(p, ", ") + "}"
}

// Report prints what evaluate-accuracy.py prints after its models load:
// evaluate_mbxp's lines (when MBXP rows were scored), then "Results" and
// the dict.
func (r Result) Report(w io.Writer) {
	if r.MBXP != nil {
		r.MBXP.Report(w)
	}
	fmt.Fprintf(w, "\nResults\n\n%s\n", r)
}
