package gptj

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// testTokenizer loads the GPT-2 tokenizer make setup installs, or skips.
func testTokenizer(t testing.TB) *tokenizer.GPT2 {
	t.Helper()
	dir := os.Getenv("MLPERF_DEPS")
	if dir == "" {
		dir = "../../.deps"
	}
	tok, err := tokenizer.LoadGPT2(filepath.Join(dir, "gptj"))
	if err != nil {
		t.Skipf("no GPT-2 tokenizer (run make setup or set MLPERF_DEPS): %v", err)
	}
	return tok
}

// decoderIO declares a GPT-J decoder of layers layers, heads×dim cache and
// vocab logits (-1: dynamic); present reports whether it returns its cache.
func decoderIO(layers int, heads, dim, vocab int64, present bool) *backendtest.Session {
	s := &backendtest.Session{
		In: []backend.Info{
			{Name: generate.InputIDs, DType: backend.Int64, Shape: []int64{-1, -1}},
			{Name: generate.AttentionMask, DType: backend.Int64, Shape: []int64{-1, -1}},
			{Name: generate.PositionIDs, DType: backend.Int64, Shape: []int64{-1, -1}},
		},
		Out: []backend.Info{{Name: generate.Logits, DType: backend.Float32, Shape: []int64{-1, -1, vocab}}},
	}
	for l := range layers {
		k, v := kvcache.PastNames(l)
		pk, pv := kvcache.PresentNames(l)
		for _, n := range []string{k, v} {
			s.In = append(s.In, backend.Info{Name: n, DType: backend.Float32, Shape: []int64{-1, heads, -1, dim}})
		}
		if present {
			for _, n := range []string{pk, pv} {
				s.Out = append(s.Out, backend.Info{Name: n, DType: backend.Float32, Shape: []int64{-1, heads, -1, dim}})
			}
		}
	}
	return s
}

func TestSpecOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		sess *backendtest.Session
		want generate.Spec
		err  string
	}{
		{"full", decoderIO(28, 16, 256, 50400, true), Configs[sizeFull].Spec(), ""},
		{"dynamic dims", decoderIO(3, -1, -1, -1, true), generate.Spec{Layers: 3, KVHeads: 16, HeadDim: 256, Vocab: 50400, MaxPositions: 2048, PadID: EOS}, ""},
		{"small vocab", decoderIO(2, 2, 8, 101, true), generate.Spec{Layers: 2, KVHeads: 2, HeadDim: 8, Vocab: 101, MaxPositions: 2048, PadID: 100}, ""},
		{"no cache", decoderIO(0, 16, 256, 50400, false), generate.Spec{}, "takes no past_key_values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SpecOf(tc.sess)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "gptj: ") {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("spec %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestNewSpecMissingPresent(t *testing.T) {
	s := decoderIO(2, 16, 256, 50400, false)
	spec, err := SpecOf(s)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewSpec(s, spec, func(loadgen.SampleIndex) ([]int32, error) { return nil, nil }, Generation(0))
	if !errors.Is(err, generate.ErrContract) || !strings.Contains(err.Error(), `output "present.0.key" missing`) || !strings.HasPrefix(err.Error(), "gptj: ") {
		t.Fatalf("err %v", err)
	}
}

func TestCheckVocab(t *testing.T) {
	d := &promptData{Tokenizer: testTokenizer(t)}
	if err := d.CheckVocab(50400); err != nil { // GPT-J pads 50257 to 50400 rows
		t.Fatalf("50400: %v", err)
	}
	if err := d.CheckVocab(50257); err != nil {
		t.Fatalf("50257: %v", err)
	}
	for _, v := range []int{101, 50256, 32000, 60000} {
		if err := d.CheckVocab(v); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d vocabulary rows", v)) {
			t.Errorf("%d: %v", v, err)
		}
	}
}

func writeData(t *testing.T, recs []cnndm.Record) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), cnndm.FileName)
	if err := cnndm.WriteFile(p, recs); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestQSLPrompts(t *testing.T) {
	tok := testTokenizer(t)
	recs, err := cnndm.Synth(cnndm.SmallSynth)
	if err != nil {
		t.Fatal(err)
	}
	recs[1].Instruction = "Summarise:" // the record's own instruction is used, as format_map does
	d, err := openPrompts(dataConfig{Dataset: writeData(t, recs), Tokenizer: tok, Count: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Records) != 5 {
		t.Fatalf("%d records, want 5 (--count)", len(d.Records))
	}
	q, err := d.NewQSL(dataConfig{MaxPositions: 2048})
	if err != nil {
		t.Fatal(err)
	}
	prompts := qslPrompts(q)
	if _, err := prompts(0); err == nil || !strings.Contains(err.Error(), "not loaded") {
		t.Fatalf("unloaded sample: %v", err)
	}
	ctx := context.Background()
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{0, 1, 3}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 3} {
		p, err := prompts(loadgen.SampleIndex(i))
		if err != nil {
			t.Fatal(err)
		}
		full := tok.Encode(tokenizer.FormatGPTJPrompt(recs[i].Instruction, recs[i].Input))
		want := full[:min(len(full), maxInputTokens)]
		if fmt.Sprint(p) != fmt.Sprint(want) {
			t.Fatalf("sample %d: prompt differs from the template's encoding", i)
		}
		if i == 3 && (len(full) <= maxInputTokens || len(p) != maxInputTokens) {
			t.Fatalf("sample 3 (a long article): %d tokens, %d kept; want it cut to %d", len(full), len(p), maxInputTokens)
		}
		if i == 1 && !strings.Contains(tok.Decode(p, tokenizer.DecodeOptions{}), "### Instruction:\nSummarise:\n\n### Input:\n") {
			t.Fatal("sample 1 does not use its own instruction")
		}
	}
	// A model whose context cannot hold a prompt and 128 new tokens.
	q2, _ := d.NewQSL(dataConfig{MaxPositions: 512})
	err = q2.LoadSamples(ctx, []loadgen.SampleIndex{3})
	if err == nil || !strings.Contains(err.Error(), "exceed the model's context of 512 positions") {
		t.Fatalf("long prompt: %v", err)
	}
}

func TestOpenDataBad(t *testing.T) {
	tok := testTokenizer(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"instruction": "x", "input": 1}]`), 0o644)
	for _, tc := range []struct{ path, msg string }{
		{filepath.Join(dir, "none.json"), "not found"},
		{bad, `"input" is not a string`},
	} {
		if _, err := openPrompts(dataConfig{Dataset: tc.path, Tokenizer: tok}); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v", tc.path, err)
		}
	}
	if _, err := openPrompts(dataConfig{Dataset: bad}); err == nil || !strings.Contains(err.Error(), "no tokenizer") {
		t.Errorf("no tokenizer: %v", err)
	}
}

// writeLog writes an accuracy log with the given qsl_idx → data entries.
func writeLog(t *testing.T, entries ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	os.WriteFile(p, []byte("[\n"+strings.Join(entries, ",\n")+"\n]\n"), 0o644)
	return p
}

func entry(seq, idx int, data []byte) string {
	return fmt.Sprintf(`{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%X" }`, seq, idx, data)
}

func TestScore(t *testing.T) {
	tok := testTokenizer(t)
	recs := []cnndm.Record{
		{Instruction: cnndm.Instruction, Input: "a", Output: "The cat sat on the mat. It was happy."},
		{Instruction: cnndm.Instruction, Input: "b", Output: "Rain is expected in Zürich on Monday."},
	}
	d := &promptData{Records: recs, Tokenizer: tok}
	pred0 := append(tok.Encode(" The cat sat on the mat. It was happy."), EOS)
	pred1 := tok.Encode("Snow fell in Zürich.")
	log := writeLog(t, entry(0, 1, encodeTokens(nil, pred1)), entry(1, 0, encodeTokens(nil, pred0)),
		entry(2, 1, encodeTokens(nil, pred0))) // a repeated qsl_idx: the first entry counts
	r, err := d.Score(log, accuracy.Int64)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rouge.Evaluate([]string{"Snow fell in Zürich.", "The cat sat on the mat. It was happy."},
		[]string{recs[1].Output, recs[0].Output}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.GPTJString() != want.GPTJString() || r.GenNum != 2 || r.GenLen != len("Snow fell in Zürich.")-1+len("The cat sat on the mat.\nIt was happy.") {
		t.Fatalf("score %s, want %s", r.GPTJString(), want.GPTJString())
	}
	// int32 responses with --dtype int32
	b32 := make([]byte, 0)
	for _, id := range pred1 {
		b32 = append(b32, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	if r, err := d.Score(writeLog(t, entry(0, 1, b32)), accuracy.Int32); err != nil || r.GenNum != 1 {
		t.Fatalf("int32: %+v %v", r, err)
	}
	for _, tc := range []struct {
		log, msg string
		dt       accuracy.DType
	}{
		{writeLog(t, entry(0, 5, encodeTokens(nil, pred1))), "qsl_idx 5, but the data set has 2 records", accuracy.Int64},
		{writeLog(t, entry(0, 0, []byte{1, 2, 3})), "not a whole number of int64 ids", accuracy.Int64},
		{writeLog(t, entry(0, 0, []byte{1, 2, 3})), "not whole int32 ids", accuracy.Int32},
		{writeLog(t), "no entries", accuracy.Int64},
		{writeLog(t, entry(0, 0, nil)), "want int64 or int32", accuracy.Float32},
		{filepath.Join(t.TempDir(), "none.json"), "no such file", accuracy.Int64},
	} {
		if _, err := d.Score(tc.log, tc.dt); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want %q", tc.msg, err, tc.msg)
		}
	}
}
