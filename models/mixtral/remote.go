package mixtral

// Mixtral on a remote OpenAI-compatible serving engine (--backend openai,
// e.g. vLLM serving Mixtral-8x7B-Instruct-v0.1, or mlperf serve mixtral):
// the prompts go out as the data set's `input` text, the generated text
// comes back and is mapped to Mixtral ids for the accuracy log and the
// token counts, then trimmed as the reference SUT trims its outputs.

import (
	"context"
	"fmt"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// streamedIDs returns the ids of one streamed token's text: the
// vocabulary piece it is (spaces as "▁"); text that is no single piece
// (bytes of one character the server joined) is encoded as a
// continuation.
func streamedIDs(t *tokenizer.Llama) func(string) []int32 {
	return func(text string) []int32 {
		if id, ok := t.PieceID(strings.ReplaceAll(text, " ", "▁")); ok {
			return []int32{id}
		}
		return t.EncodeContinuation(text)
	}
}

// openRemote opens the openai backend: row i's `input` (the chat prompt
// starting "<s> [INST]", which a server that adds BOS and reads "<s>" as
// the special token runs as the row's tok_input, as SUT.py's
// re-tokenization does) sent to the --endpoint server with greedy
// settings and max_tokens from --max-new-tokens.
func openRemote(env *spec.OpenRequest, maxNew int) (*spec.Instance, error) {
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, fmt.Errorf("%w; --backend openai needs it to turn the generated text into token ids", err)
	}
	dataPath, ds, err := loadData(env.Data, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	n := ds.Len()
	if env.Count > 0 {
		n = min(n, env.Count)
	}
	qsl, err := harness.NewQSL(harness.QSLConfig[openai.Prompt]{
		Total: n,
		Load: func(_ context.Context, i int) (openai.Prompt, error) {
			return openai.Prompt{IDs: ds.Samples[i].TokInput, Text: ds.Samples[i].Input}, nil
		},
		Workers: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	prompt := func(i loadgen.SampleIndex) (openai.Prompt, error) {
		p, ok := qsl.Sample(i)
		if !ok {
			return openai.Prompt{}, fmt.Errorf("mixtral: sample %d is not loaded", i)
		}
		return p, nil
	}
	sut, err := env.Engine.OpenCompletions(openai.Config{Prompt: prompt, Encode: func(s string) []int32 { return tok.Encode(s, false) },
		Chunk: streamedIDs(tok), MaxTokens: maxNew, ProbeIDs: tok.Encode("Hello", true), Vocab: tok.VocabSize()})
	if err != nil {
		return nil, err
	}
	if maxNew != maxNewTokensDefault {
		fmt.Fprintf(env.Stderr, "mixtral: --max-new-tokens %d (the reference generates up to %d): not a compliant run\n", maxNew, maxNewTokensDefault)
	}
	bench := llmbench.Wrap(newTrimSUT(sut, ds), env.Scenario == loadgen.Offline)
	return &spec.Instance{
		SUT: bench,
		QSL: qsl,
		Describe: fmt.Sprintf("mixtral: %s %s, model %s over --backend %s (greedy, max_tokens %d, %d requests in flight at most), %d samples in %s",
			env.Scenario, env.Mode, env.Model, env.Backend, maxNew, sut.MaxInFlight(), qsl.TotalSampleCount(), dataPath),
		After: after(env, bench, "generated tokens (Mixtral ids of the streamed text)"),
		Close: bench.Close,
	}, nil
}
