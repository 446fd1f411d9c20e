package llama2

// Llama 2 on remote serving engines (--backend openai or sglang): the
// prompts go out as the data set's token ids where the servers take them
// (tok_input, what the reference's SUT.py runs), else as text, as the
// reference's SUT_API.py sends them (mlcommons/inference
// language/llama2-70b/SUT_API.py); generated ids are the server's where it
// returns them, else the generated text mapped back to Llama 2 ids here
// for the accuracy log.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// textQSL is the query sample library of a remote run: sample i is row
// i's prompt ids (tok_input) and text, read from the file when the
// loadgen loads it (one pass over the columns per LoadSamples call). The
// text is the `input` column,
// the chat-formatted prompt tok_input was tokenized from (processorca.py);
// a file without that column gives tok_input decoded with the tokenizer,
// BOS dropped, which is what SUT_API.py sends (tokenizer.decode of the
// ids). A server that adds BOS and reads the template's "<s>" as the
// special token then sees tok_input's ids, less its trailing 29871.
// Prompt is safe for concurrent use with itself; the loadgen never calls it
// concurrently with LoadSamples or UnloadSamples.
type textQSL struct {
	ds      *openorca.Dataset
	tok     *tokenizer.Llama
	total   int
	prompts []openai.Prompt
	loaded  []bool
	n       atomic.Int64
}

// newTextQSL returns the QSL of the first count rows of ds (count ≤ 0:
// all); tok decodes tok_input where the file has no `input` column.
func newTextQSL(ds *openorca.Dataset, tok *tokenizer.Llama, count int) (*textQSL, error) {
	n := ds.Len()
	if count > 0 {
		n = min(n, count)
	}
	if n == 0 {
		return nil, fmt.Errorf("llama2: %s has no rows", ds.Path())
	}
	return &textQSL{ds: ds, tok: tok, total: n, prompts: make([]openai.Prompt, n), loaded: make([]bool, n)}, nil
}

// TotalSampleCount implements loadgen.QSL.
func (q *textQSL) TotalSampleCount() int { return q.total }

// PerformanceSampleCount implements loadgen.QSL: every sample.
func (q *textQSL) PerformanceSampleCount() int { return q.total }

// Loaded is the number of samples in memory.
func (q *textQSL) Loaded() int { return int(q.n.Load()) }

// LoadSamples implements loadgen.QSL.
func (q *textQSL) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	var rows []int
	for _, i := range idx {
		if int(i) >= q.total {
			return fmt.Errorf("llama2: sample %d outside the %d samples", i, q.total)
		}
		if !q.loaded[i] && !slices.Contains(rows, int(i)) {
			rows = append(rows, int(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	toks, err := q.ds.Tokens(openorca.ColTokInput, rows)
	if err != nil {
		return err
	}
	texts := make([]string, len(rows))
	if q.ds.HasColumn(openorca.ColInput) {
		all, err := q.ds.Strings(openorca.ColInput)
		if err != nil {
			return err
		}
		for k, r := range rows {
			texts[k] = all[r]
		}
	} else {
		for k, t := range toks {
			if len(t) > 0 && t[0] == tokenizer.LlamaBOSID {
				t = t[1:] // the server adds its own
			}
			texts[k] = q.tok.Decode(t, tokenizer.DecodeOptions{})
		}
	}
	for k, r := range rows {
		if texts[k] == "" || len(toks[k]) == 0 {
			return fmt.Errorf("llama2: row %d of %s has an empty prompt", r, q.ds.Path())
		}
	}
	for k, r := range rows {
		q.prompts[r], q.loaded[r] = openai.Prompt{IDs: toks[k], Text: texts[k]}, true
	}
	q.n.Add(int64(len(rows)))
	return nil
}

// UnloadSamples implements loadgen.QSL.
func (q *textQSL) UnloadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	for _, i := range idx {
		if int(i) < q.total && q.loaded[i] {
			q.prompts[i], q.loaded[i] = openai.Prompt{}, false
			q.n.Add(-1)
		}
	}
	return nil
}

// Prompt returns the prompt of a loaded sample.
func (q *textQSL) Prompt(i loadgen.SampleIndex) (openai.Prompt, error) {
	if int(i) >= q.total || !q.loaded[i] {
		return openai.Prompt{}, fmt.Errorf("llama2: sample %d is not loaded", i)
	}
	return q.prompts[i], nil
}

// streamedIDs returns the ids of one streamed token's text: the
// vocabulary piece it is (spaces as "▁"), as SUT_API.py looks streamed
// token strings up in the vocabulary; text that is no single piece (bytes
// of one character the server joined) is encoded as a continuation.
func streamedIDs(t *tokenizer.Llama) func(string) []int32 {
	return func(text string) []int32 {
		if id, ok := t.PieceID(strings.ReplaceAll(text, " ", "▁")); ok {
			return []int32{id}
		}
		return t.EncodeContinuation(text)
	}
}

// openRemote opens the remote backends (llmbench.OpenRemote): the data
// set's prompts (tok_input, or text) to the --endpoint servers with
// greedy settings and max_tokens from --max-new-tokens; generated ids
// are the servers' where they return them, else the Llama 2 tokenizer's
// over the streamed text, a vocabulary lookup per streamed token.
func openRemote(env *spec.OpenRequest, maxNew int) (inst *spec.Instance, err error) {
	tokPath := env.Extra["tokenizer"]
	tok := lazyTokenizer(tokPath)
	t, err := tok()
	if err != nil {
		return nil, fmt.Errorf("%w; --backend %s needs it to turn generated text into token ids and check the server's", err, env.Backend)
	}
	dataPath, err := dataFile(env.Data, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	ds, err := openorca.Open(dataPath)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ds.Close()
		}
	}()
	qsl, err := newTextQSL(ds, t, env.Count)
	if err != nil {
		return nil, err
	}
	return llmbench.OpenRemote(env, llmbench.RemoteConfig{
		Name: "llama2", QSL: qsl, Prompt: qsl.Prompt, DataPath: dataPath,
		Encode:   func(s string) []int32 { return t.Encode(s, false) },
		Chunk:    streamedIDs(t),
		ProbeIDs: append([]int32{tokenizer.LlamaBOSID}, t.Encode("Hello", false)...),
		Vocab:    t.VocabSize(),
		MaxNew:   maxNew, MaxNewDefault: maxNewTokensDefault,
		EOS:   EOS,
		Close: ds.Close,
	})
}
