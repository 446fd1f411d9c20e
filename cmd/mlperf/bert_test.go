package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/models/bert"
)

// bertTestVocab returns the vocab make setup installs, or skips.
func bertTestVocab(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../.deps/bert/vocab.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skip("no BERT vocab: run make setup")
	}
	return p
}

func TestModelBuildBERT(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny.onnx")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"model", "build", "bert", "--size", "tiny", "-o", out}, &stdout, &stderr); rc != 0 {
		t.Fatalf("rc %d: %s", rc, stderr.String())
	}
	if rows, err := bert.ModelVocabSize(out); err != nil || rows != bert.VocabSize {
		t.Fatalf("built model: %d rows, %v", rows, err)
	}
	for _, args := range [][]string{
		{"model", "build", "bert", "--size", "huge", "-o", out},
		{"model", "build", "bert", "--size", "tiny"},
	} {
		if rc := runMain(args, &stdout, &stderr); rc != 2 {
			t.Errorf("%v: rc %d, want 2", args, rc)
		}
	}
}

func TestRunBERTBadInput(t *testing.T) {
	vocab := bertTestVocab(t)
	dir := t.TempDir()
	if code, out := runMlperf(t, nil, "dataset", "synth", "squad", "-o", dir); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	data := filepath.Join(dir, squad.DevFileName)
	small := bert.TinyArch
	small.Layers, small.Hidden, small.Heads, small.Intermediate = 1, 8, 2, 16
	seq := small
	seq.SeqLen = 128
	voc := small
	voc.Vocab = 28996 // the cased vocabulary's size
	models := map[string]bert.ArchConfig{"seq128.onnx": seq, "cased.onnx": voc}
	for name, c := range models {
		if err := bert.BuildFileOf(filepath.Join(dir, name), c, 1); err != nil {
			t.Fatal(err)
		}
	}
	v2 := filepath.Join(dir, "v2.json")
	os.WriteFile(v2, []byte(`{"version": "v2.0", "data": []}`), 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": " ", "qas": [{"id": "q", "question": "what?", "answers": []}]}]}]}`), 0o644)
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	run := []string{"run", "bert", "--vocab", vocab, "--out", filepath.Join(dir, "out")}
	checkBadRuns(t, env, run, []badRun{
		{"unknown scenario", []string{"--scenario", "Batch"}, 2, "unknown scenario", false, nil},
		{"missing vocab", []string{"--vocab", filepath.Join(dir, "nope.txt"), "--data", data}, 1, "make setup", false, nil},
		{"missing model", []string{"--data", data, "--model", filepath.Join(dir, "nope.onnx")}, 1, "download_model.sh", false, nil},
		{"SQuAD v2", []string{"--data", v2, "--model", "synthetic:tiny"}, 1, "v2.0", false, nil},
		{"only empty contexts", []string{"--data", empty, "--model", "synthetic:tiny"}, 1, "no question with a non-empty context", false, nil},
		{"vocab mismatch", []string{"--data", data, "--model", filepath.Join(dir, "cased.onnx")}, 1, "embeds 28996 token ids but vocab.txt has 30522", false, nil},
		{"sequence length 128", []string{"--data", data, "--model", filepath.Join(dir, "seq128.onnx")}, 1, "sequence length 128", true, nil},
	})
}

// scoreSquadLog scores a BERT accuracy log against sq's features as
// accuracy-squad.py does, returning its one-line result.
func scoreSquadLog(logPath string, sq *bert.SQuAD) (string, error) {
	results, err := bert.ReadLog(logPath, len(sq.Features))
	if err != nil {
		return "", err
	}
	res, err := sq.Score(results)
	if err != nil {
		return "", err
	}
	return res.String(), nil
}

// TestScoreSquadLog writes an accuracy log whose logits point at each
// question's first ground-truth answer and checks the score is perfect,
// then breaks the log in the ways a user could.
func TestScoreSquadLog(t *testing.T) {
	vocab := bertTestVocab(t)
	dir := t.TempDir()
	path, err := bert.SynthDataset(filepath.Join(dir, "dev-v1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	sq, err := bert.OpenData(bert.DataConfig{Dataset: path, Vocab: vocab})
	if err != nil {
		t.Fatal(err)
	}
	// For each feature, find the span of the first answer's words, if the
	// span holds them all, and give it the highest logits.
	type entry struct {
		SeqID  int    `json:"seq_id"`
		QslIdx int    `json:"qsl_idx"`
		Data   string `json:"data"`
	}
	var log []entry
	qas := map[string]squad.QA{}
	for _, a := range sq.Dataset.Data {
		for _, p := range a.Paragraphs {
			for _, qa := range p.QAs {
				qas[qa.ID] = qa
			}
		}
	}
	for i := range sq.Features {
		f := &sq.Features[i]
		ex := sq.Examples[f.ExampleIndex]
		start, end := make([]float32, bert.MaxSeqLength), make([]float32, bert.MaxSeqLength)
		ans := qas[ex.QasID].Answers
		first, last := -1, -1
		if len(ans) > 0 {
			words := strings.Fields(ans[0].Text)
			// The answer's word positions in the context.
			for w := 0; w+len(words) <= len(ex.DocTokens) && first < 0; w++ {
				if strings.Join(ex.DocTokens[w:w+len(words)], " ") == strings.Join(words, " ") {
					for pos := f.DocOffset(); pos < f.DocOffset()+f.SpanLen(); pos++ {
						o, _ := f.OrigIndex(pos)
						if o == w && first < 0 && f.IsMaxContext(pos) {
							first = pos
						}
						if o == w+len(words)-1 {
							last = pos
						}
					}
				}
			}
		}
		for p := range start {
			start[p], end[p] = -5, -5
		}
		if first > 0 && last >= first {
			start[first], end[last] = 10, 10
		}
		data, _ := bert.EncodeResponse(nil, start, end)
		log = append(log, entry{SeqID: i, QslIdx: i, Data: strings.ToUpper(hex.EncodeToString(data))})
	}
	write := func(name string, v any) string {
		p := filepath.Join(dir, name)
		b, _ := json.Marshal(v)
		os.WriteFile(p, b, 0o644)
		return p
	}
	line, err := scoreSquadLog(write("good.json", log), sq)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		EM float64 `json:"exact_match"`
		F1 float64 `json:"f1"`
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	t.Logf("oracle logits: %s", line)
	if res.F1 < 90 || math.IsNaN(res.EM) {
		t.Errorf("oracle logits score %s, want F1 ≥ 90", line)
	}
	// Duplicates keep the first entry: a later garbage copy changes nothing.
	dup := append(append([]entry{}, log...), entry{SeqID: 99, QslIdx: 0, Data: strings.Repeat("00", bert.ResponseBytes)})
	if l2, err := scoreSquadLog(write("dup.json", dup), sq); err != nil || l2 != line {
		t.Errorf("with a duplicate: %q, %v; want %q", l2, err, line)
	}
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"index out of range", []entry{{QslIdx: len(sq.Features)}}, "qsl_idx"},
		{"bad hex", []entry{{QslIdx: 0, Data: "XYZ"}}, "malformed"},
		{"odd length", []entry{{QslIdx: 0, Data: "0000"}}, "bad response"},
		{"not a list", map[string]int{"a": 1}, "malformed"},
	} {
		if _, err := scoreSquadLog(write(tc.name+".json", tc.v), sq); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := scoreSquadLog(filepath.Join(dir, "missing.json"), sq); err == nil {
		t.Error("missing log accepted")
	}
}

// The whole path: synthetic data set and tiny model, harness, loadgen in
// accuracy mode, the accuracy log and its score, against the score of the
// same model's logits computed here in-process.
func TestRunBERTAccuracyEndToEnd(t *testing.T) {
	orttest.Need(t)
	vocab := bertTestVocab(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	out := filepath.Join(dir, "out")
	code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache},
		"run", "bert", "--mode", "accuracy", "--model", "synthetic:tiny", "--data", "synthetic", "--vocab", vocab, "--batch", "3", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, log)
	}
	got, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sq, err := bert.OpenData(bert.DataConfig{Dataset: filepath.Join(cache, "squad-synthetic-small", "dev-v1.1.json"), Vocab: vocab})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ort.Open(filepath.Join(cache, "bert-synthetic-tiny", "model.onnx"), ort.Options{Provider: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	m, err := bert.New(sess, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := map[int]bert.Logits{}
	for i := range sq.Features {
		in, err := bert.NewInput(&sq.Features[i])
		if err != nil {
			t.Fatal(err)
		}
		st, en, err := m.Logits(context.Background(), in.IDs, in.Mask, in.Segments, 1)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := bert.EncodeResponse(nil, st, en)
		if results[i], err = bert.DecodeResponse(data); err != nil {
			t.Fatal(err)
		}
	}
	res, err := sq.Score(results)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != res.String() {
		t.Fatalf("accuracy.txt %q, want %q", got, res.String())
	}
	if !strings.Contains(log, "accuracy not meaningful") {
		t.Errorf("no synthetic-weights note in the output:\n%s", log)
	}
	// `mlperf accuracy bert` on the same log gives the same line.
	acc := filepath.Join(dir, "accuracy-again.txt")
	code, log2 := runMlperf(t, nil, "accuracy", "bert", "--log", filepath.Join(out, "mlperf_log_accuracy.json"),
		"--data", filepath.Join(cache, "squad-synthetic-small"), "--vocab", vocab, "--out", acc)
	if again, _ := os.ReadFile(acc); code != 0 || strings.TrimSpace(string(again)) != res.String() {
		t.Errorf("accuracy bert: exit %d, %q, want %q\n%s", code, again, res.String(), log2)
	}
	var entries []json.RawMessage
	b, _ := os.ReadFile(filepath.Join(out, "mlperf_log_accuracy.json"))
	if err := json.Unmarshal(b, &entries); err != nil || len(entries) != len(sq.Features) {
		t.Fatalf("accuracy log: %d entries, %v; want %d", len(entries), err, len(sq.Features))
	}
}
