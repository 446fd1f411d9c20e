package gptj

// The gptj benchmark as the framework runs it: its descriptor and driver
// (see package benchmark/spec).

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(cnndmDataset)
}

// tokenizerOption is --tokenizer of run, perf and accuracy.
var tokenizerOption = spec.Option{Name: "tokenizer", Default: spec.DepsPath("gptj"), Deps: "gptj/vocab.bpe",
	Usage: "folder with GPT-2's encoder.json and vocab.bpe (make setup installs them)"}

// descriptor is GPT-J 6B on CNN-DailyMail (ROUGE, beam search 4) as the
// registry runs it: the decoder as a tensor model in the generic harness.
var descriptor = &spec.Benchmark{
	Name:       benchmarkName,
	Summary:    "GPT-J 6B summarisation (CNN-DailyMail, beam search 4, ROUGE)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{"gptj-99", "gptj-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Server, loadgen.Offline},
	Dataset:    "cnndm",
	Model: spec.Models{
		Default:   "synthetic",
		Sizes:     []spec.Size{{Name: sizeFull, Summary: "GPT-J 6B, 28 layers"}, {Name: SizeTiny, Summary: "2 layers of width 64"}},
		Seed:      archSeed,
		BuildSize: SizeTiny,
	},
	Options: []spec.Option{tokenizerOption,
		{Name: "length-norm", Default: "prompt", Usage: "beam-score length normalisation: prompt (prompt + generated tokens, transformers ≈4.30) or generated"}},
	LocalOnly: "GPT-J's reference decodes with beam search (4 beams), which /v1/completions does not carry, and behind --backend kserve the search would run on the LoadGen node, a network round trip per generated token with the KV cache in the payload",
	LogShape:  &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int64, MinElems: 1, MaxValue: 50400},
	// TEST06 (output consistency) is required of gptj by the v5.0 checker
	// (constants.py models_TEST06).
	Compliance: []string{"TEST06"},
	EOS:        EOS,
	Driver:     driver{},
}

// driver is the gptj benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildFile(path, size, seed) }

// CheckOptions implements spec.OptionChecker: it rejects a bad
// --length-norm, and a missing data file before the synthetic model (24
// GB at full size) is built.
func (driver) CheckOptions(o *spec.RunOptions) error {
	if _, err := lengthMode(o.Extra["length-norm"]); err != nil {
		return err
	}
	if p := cnndm.Path(o.Data); o.Data != "synthetic" {
		if _, err := os.Stat(p); err != nil {
			_, err = cnndm.Load(p)
			return err
		}
	}
	return nil
}

// lengthMode reads --length-norm.
func lengthMode(s string) (sample.LengthMode, error) {
	switch s {
	case "prompt":
		return sample.LengthWithPrompt, nil
	case "generated":
		return sample.LengthGenerated, nil
	}
	return 0, spec.UsageError("gptj: --length-norm %q: want prompt (transformers ≈4.30, the reference's era) or generated (later versions)", s)
}

// Open loads the tokenizer, the data set and the model, checks the model
// against the decoder contract and the tokenizer, and builds the QSL.
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	mode, err := lengthMode(r.Extra["length-norm"])
	if err != nil {
		return nil, err
	}
	data, path, err := openData(r.Data, r.Extra["tokenizer"], r.CacheDir, r.Count, r.Stderr)
	if err != nil {
		return nil, err
	}
	if r.Cache != "" {
		fmt.Fprintln(r.Stderr, "gptj: --cache is not used: prompts are tokenized in memory when the loadgen loads them")
	}
	sess, err := r.Engine.OpenSession(r.ModelPath, nil)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*spec.Instance, error) {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, r.ModelDesc)
	}
	dims, err := SpecOf(sess)
	if err != nil {
		return fail(err)
	}
	if err := data.CheckVocab(dims.Vocab); err != nil {
		return fail(err)
	}
	qsl, err := data.NewQSL(dataConfig{MaxPositions: dims.MaxPositions, Progress: r.Progress("tokenizing prompts", "samples").Update})
	if err != nil {
		return fail(err)
	}
	m, err := NewSpec(sess, dims, qslPrompts(qsl), Generation(mode))
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(r.Stderr, "gptj: %d records from %s; model %s: %d layers, %d heads of %d, vocabulary %d\n",
		len(data.Records), path, r.ModelPath, dims.Layers, dims.KVHeads, dims.HeadDim, dims.Vocab)
	// A sample holds its beams' caches, at most MaxPositions long.
	positions := int64(dims.MaxPositions)
	if positions <= 0 {
		positions = Configs[sizeFull].MaxPositions
	}
	return &spec.Instance{
		Model:       m,
		QSL:         qsl,
		SampleBytes: beams * dims.BytesPerToken(backend.Float32) * positions,
		// The best beam, and so its first token, is known only at the end.
		FirstTokenBytes: 8,
		Describe: fmt.Sprintf("gptj: %s %s, model %s, %s backend, batch %d, %d worker(s), beam search %d beams, %d to %d new tokens",
			r.Scenario, r.Mode, r.Model, r.Backend, r.Batch, r.Workers, beams, MinNewTokens, MaxNewTokens),
		Close: sess.Close,
	}, nil
}

// Score is evaluation.py: ROUGE of the decoded predictions against the
// highlights, and gen_len.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	dt := accuracy.Int64
	if req.DType != "" {
		dt = accuracy.DType(req.DType)
	}
	if dt != accuracy.Int64 && dt != accuracy.Int32 {
		return nil, spec.UsageError("gptj: --dtype %q: want int64 or int32", req.DType)
	}
	data, _, err := openData(req.Data, req.Extra["tokenizer"], req.CacheDir, req.Count, req.Stderr)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	r, err := data.Score(req.Log, dt)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(req.Stderr, "gptj: scored %d predictions in %.2fs\n", r.GenNum, time.Since(start).Seconds())
	line := r.GPTJString()
	return &spec.Score{Lines: []string{line}, Text: "\nResults\n\n" + line + "\n"}, nil
}
