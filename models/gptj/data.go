package gptj

// A run's samples: the CNN-DailyMail records, their prompts as the
// reference tokenizes them, the QSL, and the ROUGE score of the outputs.

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// EncodePrompt returns the input ids of a record as the reference's
// Dataset builds them: the "prompt_input" template filled with the
// record's own instruction and input, GPT-2 BPE without BOS, cut on the
// right to MaxInputTokens.
func EncodePrompt(tok *tokenizer.GPT2, r cnndm.Record) []int32 {
	ids := tok.Encode(tokenizer.FormatGPTJPrompt(r.Instruction, r.Input))
	if len(ids) > maxInputTokens {
		ids = ids[:maxInputTokens:maxInputTokens]
	}
	return ids
}

// dataConfig says where a run's samples come from.
type dataConfig struct {
	// Dataset is cnn_eval.json (or the folder holding it).
	Dataset string
	// Tokenizer is the GPT-2 BPE (tokenizer.LoadGPT2).
	Tokenizer *tokenizer.GPT2
	// Count, if positive, keeps only the first Count records (the
	// reference's --max_examples).
	Count int
	// MaxPositions, if positive, is the model's context: loading a sample
	// whose prompt leaves fewer than MaxNewTokens positions fails.
	MaxPositions int
	// Workers is the number of samples tokenized in parallel (< 1: all
	// cores).
	Workers int
	// Progress, if not nil, reports loading progress (see
	// harness.QSLConfig.Progress).
	Progress func(done, total int)
}

// promptData is the loaded data set: the records and the tokenizer that encodes
// their prompts and decodes the responses. It is read-only after OpenData
// and safe for concurrent use.
type promptData struct {
	Records   []cnndm.Record
	Tokenizer *tokenizer.GPT2
}

// openPrompts reads the data set and keeps its first cfg.Count records.
func openPrompts(cfg dataConfig) (*promptData, error) {
	if cfg.Tokenizer == nil {
		return nil, fmt.Errorf("gptj: no tokenizer")
	}
	recs, err := cnndm.Load(cfg.Dataset)
	if err != nil {
		return nil, err
	}
	if cfg.Count > 0 && cfg.Count < len(recs) {
		recs = recs[:cfg.Count:cfg.Count]
	}
	return &promptData{Records: recs, Tokenizer: cfg.Tokenizer}, nil
}

// NewQSL returns the query sample library of d: LoadSamples tokenizes the
// prompts of the samples asked for (the reference encodes them all at
// start-up; the result is the same ids), Sample returns them.
func (d *promptData) NewQSL(cfg dataConfig) (*harness.QSL[[]int32], error) {
	return harness.NewQSL(harness.QSLConfig[[]int32]{
		Total:    len(d.Records),
		Workers:  cfg.Workers,
		Progress: cfg.Progress,
		Load: func(_ context.Context, i int) ([]int32, error) {
			ids := EncodePrompt(d.Tokenizer, d.Records[i])
			if len(ids) == 0 {
				return nil, fmt.Errorf("gptj: sample %d: empty prompt", i)
			}
			if mp := cfg.MaxPositions; mp > 0 && len(ids)+MaxNewTokens > mp {
				return nil, fmt.Errorf("gptj: sample %d: a prompt of %d tokens and %d new tokens exceed the model's context of %d positions", i, len(ids), MaxNewTokens, mp)
			}
			return ids, nil
		},
	})
}

// qslPrompts adapts a QSL to the Prompts of a Model: a sample not loaded
// is an error.
func qslPrompts(q *harness.QSL[[]int32]) promptFunc {
	return func(i loadgen.SampleIndex) ([]int32, error) {
		p, ok := q.Sample(i)
		if !ok {
			return nil, fmt.Errorf("gptj: sample %d is not loaded", i)
		}
		return p, nil
	}
}

// SpecOf returns the decode-loop spec of a GPT-J decoder session from its
// declared I/O: the layer count from its past_key_values.N.key inputs,
// heads and head size from their shape, the vocabulary from the logits'
// last dimension (the full config's 16, 256 and 50400 where a dimension is
// dynamic), a context of 2048 positions. generate.New (through NewSpec)
// then checks the rest of the contract, present outputs included.
func SpecOf(sess backend.Session) (generate.Spec, error) {
	spec, layers := generate.SpecFrom(sess, Configs[sizeFull].Spec())
	if layers == 0 {
		var names []string
		for _, in := range sess.Inputs() {
			names = append(names, in.Name)
		}
		return spec, fmt.Errorf("gptj: the model takes no past_key_values.N.key/value inputs (inputs: %s); export GPT-J with its KV cache (optimum-cli export onnx --task text-generation-with-past)", strings.Join(names, ", "))
	}
	spec.PadID = min(EOS, int32(spec.Vocab-1))
	return spec, nil
}

// CheckVocab reports whether a model with modelVocab logit rows fits the
// tokenizer of d: GPT-J pads the GPT-2 vocabulary (50257 ids) to 50400
// rows, which is accepted; a model with fewer rows than the tokenizer has
// ids, or far more, is not the tokenizer's model.
func (d *promptData) CheckVocab(modelVocab int) error {
	if err := tokenizer.CheckModelVocab(d.Tokenizer, modelVocab); err != nil {
		return fmt.Errorf("gptj: %w", err)
	}
	return nil
}

// predictions reads an accuracy log as evaluation.py does: entries
// deduplicated by qsl_idx (first one kept, file order), each response
// decoded as dt (int64, the reference's default, or int32) ids. It returns
// the QSL indices and the ids, in file order.
func predictions(logPath string, samples int, dt accuracy.DType) (idx []int, ids [][]int32, err error) {
	if dt != accuracy.Int64 && dt != accuracy.Int32 {
		return nil, nil, fmt.Errorf("gptj: response type %s: want int64 or int32", dt)
	}
	_, err = accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(samples) {
			return fmt.Errorf("gptj: accuracy log %s: qsl_idx %d, but the data set has %d records (another data set or --count?)", logPath, e.QSLIdx, samples)
		}
		var toks []int32
		if dt == accuracy.Int64 {
			t, err := DecodeTokens(e.Data)
			if err != nil {
				return fmt.Errorf("gptj: accuracy log %s: qsl_idx %d: %w", logPath, e.QSLIdx, err)
			}
			toks = t
		} else {
			if len(e.Data)%4 != 0 {
				return fmt.Errorf("gptj: accuracy log %s: qsl_idx %d: %d bytes are not whole int32 ids", logPath, e.QSLIdx, len(e.Data))
			}
			toks = make([]int32, len(e.Data)/4)
			for i := range toks {
				toks[i] = int32(binary.LittleEndian.Uint32(e.Data[4*i:]))
			}
		}
		idx = append(idx, int(e.QSLIdx))
		ids = append(ids, toks)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("gptj: accuracy log %s has no entries", logPath)
	}
	return idx, ids, nil
}

// Score scores an accuracy log against d as language/gpt-j/evaluation.py:
// the ids decoded with the GPT-2 tokenizer (skip_special_tokens, the slow
// tokenizer's clean-up of spaces), predictions and highlights stripped,
// split into sentences with NLTK's punkt and joined by newlines, ROUGE
// with the Porter stemmer, gen_len the characters of the predictions.
// Print the result with RougeResult.GPTJString.
func (d *promptData) Score(logPath string, dt accuracy.DType) (rouge.Result, error) {
	idx, ids, err := predictions(logPath, len(d.Records), dt)
	if err != nil {
		return rouge.Result{}, err
	}
	preds := make([]string, len(ids))
	targets := make([]string, len(ids))
	for i, t := range ids {
		preds[i] = d.Tokenizer.Decode(t, tokenizer.DecodeOptions{SkipSpecial: true, CleanUpSpaces: true})
		targets[i] = d.Records[idx[i]].Output
	}
	res, err := rouge.Evaluate(preds, targets, nil)
	if err != nil {
		return res, fmt.Errorf("gptj: %w", err)
	}
	return res, nil
}

// dataPath resolves --data: a file, its folder, or synthetic (a small data
// set written into the cache folder).
func dataPath(data, cacheDir string, stderr io.Writer) (string, error) {
	if data != "synthetic" {
		return cnndm.Path(data), nil
	}
	path := filepath.Join(cacheDir, "cnndm-synthetic-small", cnndm.FileName)
	recs, err := cnndm.Synth(cnndm.SmallSynth)
	if err != nil {
		return "", err
	}
	if err := cnndm.WriteFile(path, recs); err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "gptj: synthetic cnn_eval.json (generated articles, not CNN-DailyMail) at %s\n", path)
	return path, nil
}

// openData loads the tokenizer and the data set.
func openData(data, tokDir, cacheDir string, count int, stderr io.Writer) (*promptData, string, error) {
	tok, err := tokenizer.LoadGPT2(tokDir)
	if err != nil {
		return nil, "", fmt.Errorf("gptj: %w", err)
	}
	path, err := dataPath(data, cacheDir, stderr)
	if err != nil {
		return nil, "", err
	}
	d, err := openPrompts(dataConfig{Dataset: path, Tokenizer: tok, Count: count})
	return d, path, err
}
