package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/librispeech"
	"github.com/mlperf-go/inference/preprocess/audio"
)

var werLine = regexp.MustCompile(`(?m)^Word Error Rate: -?[0-9.e+-]+%, accuracy=-?[0-9.e+-]+%$`)

// TestRunWhisperAccuracyToTheLine is the benchmark's done-when: a fresh
// cache, `mlperf run whisper --model synthetic:tiny --data synthetic
// --mode accuracy` builds the tiny model and the synthetic data set, runs
// every clip and prints accuracy_eval.py's line, written to accuracy.txt;
// `mlperf accuracy whisper` on the log prints the same line.
func TestRunWhisperAccuracyToTheLine(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(dir, "cache"))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runInProcess(t, "run", "whisper", "--model", "synthetic:tiny", "--data", "synthetic", "--mode", "accuracy", "--out", out)
	if code != 0 || !werLine.MatchString(stdout) || !strings.Contains(stdout, "accuracy not meaningful") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	line := werLine.FindString(stdout)
	if b, _ := os.ReadFile(filepath.Join(out, "accuracy.txt")); !strings.Contains(string(b), line) {
		t.Errorf("accuracy.txt %q lacks %q", b, line)
	}
	n, tokens := 0, 0
	if _, err := accuracy.ReadUnique(filepath.Join(out, "mlperf_log_accuracy.json"), func(e accuracy.Entry) error {
		n++
		if e.HasTokens {
			tokens++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != librispeech.SmallSynth.Samples || tokens != n {
		t.Errorf("%d logged clips (%d with token counts), want %d", n, tokens, librispeech.SmallSynth.Samples)
	}
	code, stdout, stderr = runInProcess(t, "accuracy", "whisper", "--log", filepath.Join(out, "mlperf_log_accuracy.json"), "--data", "synthetic")
	if code != 0 || !strings.Contains(stdout, line) {
		t.Errorf("mlperf accuracy: exit %d, want %q\n%s\n%s", code, line, stdout, stderr)
	}
}

// TestWhisperDatasetCommands: synth, verify (the official count by
// default, any with -n 0) and preprocess from a LibriSpeech-style tree.
func TestWhisperDatasetCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, out := runMlperf(t, nil, "dataset", "synth", "librispeech", "-o", data, "-n", "2"); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	if code, out := runMlperf(t, nil, "dataset", "verify", "librispeech", "--data", data); code == 0 || !strings.Contains(out, "want 1633") {
		t.Errorf("verify of 2 clips as the official set: %d %s", code, out)
	}
	if code, out := runMlperf(t, nil, "dataset", "verify", "librispeech", "--data", data, "-n", "0"); code != 0 || !strings.Contains(out, "Number of samples: 2") {
		t.Errorf("verify -n 0: %d %s", code, out)
	}
	// an extracted LibriSpeech: one chapter of two embedded clips
	utts, err := librispeech.Clips()
	if err != nil {
		t.Fatal(err)
	}
	ch := filepath.Join(dir, "LibriSpeech", "dev-clean", "7", "8")
	os.MkdirAll(ch, 0o755)
	var trans strings.Builder
	for i, u := range utts[:2] {
		id := "7-8-000" + string(rune('0'+i))
		var w bytes.Buffer
		audio.WriteWAV16(&w, 16000, 1, u.PCM) // WAV bytes named .flac: decoded by content
		os.WriteFile(filepath.Join(ch, id+".flac"), w.Bytes(), 0o644)
		trans.WriteString(id + " " + strings.ToUpper(u.Transcript) + "\n")
	}
	os.WriteFile(filepath.Join(ch, "7-8.trans.txt"), []byte(trans.String()), 0o644)
	prepared := filepath.Join(dir, "prepared")
	if code, out := runMlperf(t, nil, "dataset", "preprocess", "librispeech", "--data", filepath.Join(dir, "LibriSpeech"), "-o", prepared); code != 0 || !strings.Contains(out, "1 clips") {
		t.Fatalf("preprocess: %d %s", code, out)
	}
	if code, out := runMlperf(t, nil, "dataset", "verify", "librispeech", "--data", prepared, "-n", "1"); code != 0 {
		t.Errorf("verify the prepared set: %d %s", code, out)
	}
}

// TestWhisperBadInputs: a served backend is refused up front; an 8 kHz
// clip fails the run naming the file; a model folder without the decoder
// files names them.
func TestWhisperBadInputs(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(dir, "cache"))
	code, stdout, stderr := runInProcess(t, "run", "whisper", "--backend", "openai", "--endpoint", "127.0.0.1:1", "--served-model", "w")
	if code == 0 || !strings.Contains(stdout+stderr, "not supported yet") {
		t.Errorf("openai backend: exit %d\n%s%s", code, stdout, stderr)
	}
	data := filepath.Join(dir, "data")
	if err := librispeech.Synth(data, librispeech.SynthConfig{Samples: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	clip, _ := filepath.Glob(filepath.Join(data, librispeech.RepackDir, "*.wav"))
	var w bytes.Buffer
	audio.WriteWAV16(&w, 8000, 1, make([]int16, 800))
	os.WriteFile(clip[0], w.Bytes(), 0o644)
	code, stdout, stderr = runInProcess(t, "run", "whisper", "--data", data, "--mode", "accuracy", "--out", filepath.Join(dir, "o1"))
	if code == 0 || !strings.Contains(stdout+stderr, "8000 Hz") || !strings.Contains(stdout+stderr, filepath.Base(clip[0])) {
		t.Errorf("8 kHz clip: exit %d\n%s%s", code, stdout, stderr)
	}
	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	os.WriteFile(filepath.Join(model, "encoder_model.onnx"), []byte("x"), 0o644)
	code, stdout, stderr = runInProcess(t, "run", "whisper", "--model", model, "--out", filepath.Join(dir, "o2"))
	if code == 0 || !strings.Contains(stdout+stderr, "decoder_model.onnx") {
		t.Errorf("no decoders: exit %d\n%s%s", code, stdout, stderr)
	}
}
