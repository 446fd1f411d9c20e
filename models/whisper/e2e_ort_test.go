//go:build cgo

package whisper

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/englishnorm"
	"github.com/mlperf-go/inference/accuracy/wer"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/librispeech"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// TestOfflineAccuracyRunEndToEnd: the tiny model written by buildDir and
// the synthetic data set, through the loadgen in Offline accuracy mode
// with whisper's mlperf.conf settings, to the accuracy line
// accuracy_eval.py prints. Every sample is logged with its token count.
func TestOfflineAccuracyRunEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run: not in -short")
	}
	ctx := context.Background()
	dir := t.TempDir()
	if err := buildDir(filepath.Join(dir, "model"), sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	open := func(f string) backend.Session { return orttest.Open(t, filepath.Join(dir, "model", f)) }
	m, err := New(open(encoderFile), open(decoderFile), open(decoderWithPastFile))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.LoadWhisper(filepath.Join(dir, "model"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := librispeech.Synth(data, librispeech.SynthConfig{Samples: 3, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	ds, err := librispeech.OpenDir(data)
	if err != nil {
		t.Fatal(err)
	}
	qsl, err := harness.NewQSL(harness.QSLConfig[[]float32]{Total: ds.Len(), Load: func(_ context.Context, i int) ([]float32, error) { return ds.Waveform(i) }})
	if err != nil {
		t.Fatal(err)
	}
	sut, err := newSUT(ctx, sutConfig{Model: m, Tokenizer: tok, MaxBatch: 2, Workers: 1,
		Waveform: func(i loadgen.SampleIndex) ([]float32, error) {
			w, ok := qsl.Sample(i)
			if !ok {
				return nil, fmt.Errorf("sample %d not loaded", i)
			}
			return w, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer sut.Close()
	s, err := loadgen.LoadConfigs(benchmarkName, loadgen.Offline, loadgen.AccuracyOnly, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	if _, err := loadgen.Run(ctx, sut, qsl, s, loadgen.LogSettings{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	lr, err := accuracy.OpenLog(filepath.Join(out, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	n := 0
	for {
		e, err := lr.Next()
		if err != nil {
			break
		}
		n++
		if !e.HasTokens || e.TokenCount < 1 || e.TokenCount > maxNewTokens {
			t.Errorf("entry %d: token_count %d (present %v)", n, e.TokenCount, e.HasTokens)
		}
	}
	if n != ds.Len() {
		t.Errorf("%d log entries for %d samples", n, ds.Len())
	}
	norm, err := englishnorm.New()
	if err != nil {
		t.Fatal(err)
	}
	r, err := wer.ScoreLogFile(norm, filepath.Join(out, "mlperf_log_accuracy.json"), ds.References())
	if err != nil {
		t.Fatal(err)
	}
	if r.Words == 0 || !strings.HasPrefix(r.Line(), "Word Error Rate: ") {
		t.Errorf("score %+v: %s", r, r.Line())
	}
	t.Log(r.Line())
}
