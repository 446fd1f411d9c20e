package mixtral

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/mbxp"
	"github.com/mlperf-go/inference/accuracy/mixtraleval"
	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/sandbox"
)

// mbxpWorkers is evaluate-accuracy.py's --n_workers default: MBXP
// programs checked at once.
const mbxpWorkers = 2

// scoreLog is the reference's evaluate-accuracy.py on an accuracy log of
// token ids (dtype int32, what the SUT writes and the README passes, or
// int64, the script's default): every entry counted in gen_num, the first
// entry of each qsl_idx decoded with skip_special_tokens (the slow
// LlamaTokenizer's decode) and scored against row qsl_idx of ds by its
// dataset column. MBXP programs run in the sandbox; warnings (a missing
// toolchain) go to warn.
//
// toolDirs, when set, are the only folders the sandbox looks in for the
// languages' toolchains (else the system folders and $PATH).
func scoreLog(ctx context.Context, logPath string, ds *mixtral.Dataset, tok *tokenizer.Llama, dtype accuracy.DType, toolDirs []string, warn io.Writer) (mixtraleval.Result, error) {
	if dtype == "" {
		dtype = accuracy.Int32
	}
	if dtype != accuracy.Int32 && dtype != accuracy.Int64 {
		return mixtraleval.Result{}, fmt.Errorf("mixtral: --dtype %s: token ids are int32 or int64", dtype)
	}
	r, err := accuracy.OpenLog(logPath)
	if err != nil {
		return mixtraleval.Result{}, err
	}
	defer r.Close()
	var entries []mixtraleval.Entry
	seen := map[uint64]bool{}
	dec := tokenizer.DecodeOptions{SkipSpecial: true}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return mixtraleval.Result{}, err
		}
		if e.QSLIdx >= uint64(ds.Len()) {
			return mixtraleval.Result{}, fmt.Errorf("mixtral: accuracy log %s: qsl_idx %d, but the data set %s has %d rows (is the log from this data set?)", logPath, e.QSLIdx, ds.Path, ds.Len())
		}
		vals, err := accuracy.Decode(e.Data, dtype)
		if err != nil {
			return mixtraleval.Result{}, fmt.Errorf("mixtral: accuracy log %s: qsl_idx %d: %w", logPath, e.QSLIdx, err)
		}
		ent := mixtraleval.Entry{QSLIdx: int(e.QSLIdx), Tokens: len(vals)}
		if !seen[e.QSLIdx] {
			seen[e.QSLIdx] = true
			ids := make([]int32, len(vals))
			for i, v := range vals {
				if v < 0 || v >= float64(tok.VocabSize()) {
					return mixtraleval.Result{}, fmt.Errorf("mixtral: accuracy log %s: qsl_idx %d: id %v is outside the vocabulary of %d (is the log from this model, and --dtype right?)", logPath, e.QSLIdx, v, tok.VocabSize())
				}
				ids[i] = int32(v)
			}
			ent.Text = tok.Decode(ids, dec)
		}
		entries = append(entries, ent)
	}
	if len(entries) == 0 {
		return mixtraleval.Result{}, fmt.Errorf("mixtral: accuracy log %s has no entries", logPath)
	}
	opt := mixtraleval.Options{Workers: mbxpWorkers, Log: warn}
	if len(toolDirs) > 0 {
		sb, err := sandbox.New(sandbox.Config{ToolDirs: toolDirs})
		if err != nil {
			return mixtraleval.Result{}, fmt.Errorf("mixtral: %w", err)
		}
		defer sb.Close()
		c, err := mbxp.NewChecker(sb)
		if err != nil {
			return mixtraleval.Result{}, fmt.Errorf("mixtral: %w", err)
		}
		defer c.Close()
		opt.Checker = c
	}
	res, err := mixtraleval.Evaluate(ctx, ds, entries, opt)
	if err != nil {
		return res, err
	}
	return res, nil
}
