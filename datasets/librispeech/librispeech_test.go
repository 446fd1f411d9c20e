package librispeech

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess/audio"
)

// rawTree builds testdata/raw_layout.json's LibriSpeech-style tree (the
// one gen_golden.py gave the reference's repack) under a temp folder.
func rawTree(t *testing.T) string {
	t.Helper()
	var layout map[string][][2]string
	b, err := os.ReadFile("testdata/raw_layout.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &layout); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	tb, _ := os.ReadFile("clips/clips.txt")
	for _, l := range strings.Split(strings.TrimSpace(string(tb)), "\n") {
		id, text, _ := strings.Cut(l, " ")
		texts[id] = text
	}
	root := filepath.Join(t.TempDir(), "LibriSpeech", "dev-clean")
	for key, utts := range layout {
		spk, ch, _ := strings.Cut(key, "-")
		d := filepath.Join(root, spk, ch)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		var trans strings.Builder
		for _, u := range utts {
			src := filepath.Join("testdata", u[1])
			text := "A VERY LONG SILENCE"
			if strings.HasPrefix(u[1], "clips/") {
				src = u[1]
				text = texts[strings.TrimSuffix(filepath.Base(u[1]), ".flac")]
			}
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(d, u[0]+".flac"), data, 0o644)
			trans.WriteString(u[0] + " " + text + "\n")
		}
		os.WriteFile(filepath.Join(d, key+".trans.txt"), []byte(trans.String()), 0o644)
	}
	return filepath.Dir(root)
}

// TestPrepareMatchesReferenceRepack: the reference's
// repackage_librispeech.py, run on the same tree (testdata/gen_golden.py),
// wrote this manifest byte for byte and these WAV files (the 31 s
// utterance skipped, a chapter split into two clips at 30 s).
func TestPrepareMatchesReferenceRepack(t *testing.T) {
	src := rawTree(t)
	out := t.TempDir()
	n, err := Prepare(src, out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("testdata/prepare_manifest.json")
	got, _ := os.ReadFile(filepath.Join(out, ManifestName))
	if !bytes.Equal(got, want) {
		t.Errorf("manifest differs from the reference's:\n%s\nwant\n%s", got, want)
	}
	var wavs map[string]string
	b, _ := os.ReadFile("testdata/prepare_wavs.json")
	json.Unmarshal(b, &wavs)
	if n != len(wavs) || n != 4 {
		t.Errorf("%d clips, reference %d", n, len(wavs))
	}
	for name, sum := range wavs {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil {
			t.Error(err)
			continue
		}
		if s := sha256.Sum256(data); hex.EncodeToString(s[:]) != sum {
			t.Errorf("%s differs from the reference's", name)
		}
	}
}

func TestPrepareRefusesOtherTrees(t *testing.T) {
	if _, err := Prepare(t.TempDir(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "trans.txt") {
		t.Errorf("empty tree: %v", err)
	}
	src := rawTree(t)
	// an 8 kHz utterance
	var w bytes.Buffer
	audio.WriteWAV16(&w, 8000, 1, make([]int16, 800))
	matches, _ := filepath.Glob(filepath.Join(src, "*", "1002", "3001", "1002-3001-0001.flac"))
	os.WriteFile(matches[0], w.Bytes(), 0o644)
	if _, err := Prepare(src, t.TempDir()); err == nil || !strings.Contains(err.Error(), "8000 Hz") {
		t.Errorf("8 kHz utterance: %v", err)
	}
	// a missing FLAC
	os.Remove(matches[0])
	if _, err := Prepare(src, t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing FLAC: %v", err)
	}
}

// TestSynthIsARepackedDataSet: the synthetic data set opens, verifies
// clean, has one clip packed close to 30 s, and is the same bytes for the
// same seed.
func TestSynthIsARepackedDataSet(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := Synth(d, SmallSynth); err != nil {
			t.Fatal(err)
		}
	}
	ma, _ := os.ReadFile(filepath.Join(a, ManifestName))
	mb, _ := os.ReadFile(filepath.Join(b, ManifestName))
	if !bytes.Equal(ma, mb) {
		t.Error("same seed, different manifests")
	}
	d, err := OpenDir(a)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != SmallSynth.Samples || d.Dropped != 0 {
		t.Fatalf("%d samples, %d dropped", d.Len(), d.Dropped)
	}
	r, err := Verify(d)
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("verify: %v %v", err, r.Problems)
	}
	if r.Longest < 25 || r.Longest > MaxDuration {
		t.Errorf("longest clip %.2f s, want one packed near 30 s", r.Longest)
	}
	for i := range d.Len() {
		w, err := d.Waveform(i)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(w)) != d.Samples[i].NumSamples || d.Samples[i].Reference == "" {
			t.Errorf("sample %d: %d samples, manifest %d", i, len(w), d.Samples[i].NumSamples)
		}
	}
	if err := Synth(t.TempDir(), SynthConfig{Samples: 0}); err == nil {
		t.Error("0 samples accepted")
	}
}

func writeManifest(t *testing.T, dir string, entries any) string {
	t.Helper()
	b, _ := json.Marshal(entries)
	p := filepath.Join(dir, ManifestName)
	os.WriteFile(p, b, 0o644)
	return p
}

func wavFile(t *testing.T, path string, rate, channels, frames int) {
	t.Helper()
	var w bytes.Buffer
	if err := audio.WriteWAV16(&w, rate, channels, make([]int16, frames*channels)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, w.Bytes(), 0o644)
}

func entry(transcript any, fname string, dur float64, speeds ...float64) map[string]any {
	if speeds == nil {
		speeds = []float64{1}
	}
	var files []map[string]any
	for _, s := range speeds {
		files = append(files, map[string]any{"fname": fname, "speed": s})
	}
	return map[string]any{"transcript": transcript, "files": files, "original_duration": dur, "original_num_samples": int(dur * 16000)}
}

// TestOpenFiltersAsReferenceManifest: entries over 30 s and non-string
// transcripts are dropped and counted, so sample indices skip them; the
// file of speed 1 is taken; a Docker-style absolute fname falls back to
// the data folder; the reference keeps only the 42 labels of the transcript
// (capitals included: the repack writes lower case); a missing file is an
// error naming it.
func TestOpenFiltersAsReferenceManifest(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		wavFile(t, filepath.Join(dir, RepackDir, n+".wav"), 16000, 1, 1600)
	}
	p := writeManifest(t, dir, []any{
		entry("over thirty", "dev-all-repack/a.wav", 30.001),
		entry("exactly thirty", "dev-all-repack/a.wav", 30),
		entry(17, "dev-all-repack/b.wav", 1),
		entry("HELLO, World!", "/data/dev-all-repack/c.wav", 0.1, 0.9, 1),
	})
	d, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 2 || d.Dropped != 2 || d.Samples[0].Entry != 1 || d.Samples[1].Entry != 3 {
		t.Fatalf("%d samples (%+v), %d dropped", d.Len(), d.Samples, d.Dropped)
	}
	if d.Samples[1].Audio != filepath.Join(dir, RepackDir, "c.wav") || d.Samples[1].Reference != " orld" {
		t.Errorf("sample 1: %+v", d.Samples[1])
	}
	if d.FilteredDuration != 31.001 {
		t.Errorf("filtered %v s", d.FilteredDuration)
	}
	writeManifest(t, dir, []any{entry("x", "dev-all-repack/none.wav", 1)})
	if _, err := Open(p, ""); err == nil || !strings.Contains(err.Error(), "none.wav") || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("missing file: %v", err)
	}
	writeManifest(t, dir, []any{entry("x", "dev-all-repack/a.wav", 1, 0.9)})
	if _, err := Open(p, ""); !errors.Is(err, ErrFormat) {
		t.Errorf("no speed-1 file: %v", err)
	}
	os.WriteFile(p, []byte(`{"not": "a list"}`), 0o644)
	if _, err := Open(p, ""); !errors.Is(err, ErrFormat) {
		t.Errorf("object manifest: %v", err)
	}
	if _, err := OpenDir(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no manifest: %v", err)
	}
}

// TestWaveformAndVerifyBadAudio: an 8 kHz clip and a clip over 30 s are
// errors naming the file at load time; stereo is averaged as librosa
// does; Verify reports each (and a sample-count mismatch) as a problem.
func TestWaveformAndVerifyBadAudio(t *testing.T) {
	dir := t.TempDir()
	wavFile(t, filepath.Join(dir, RepackDir, "8k.wav"), 8000, 1, 800)
	wavFile(t, filepath.Join(dir, RepackDir, "long.wav"), 16000, 1, MaxSamples+1)
	wavFile(t, filepath.Join(dir, RepackDir, "stereo.wav"), 16000, 2, 1600)
	wavFile(t, filepath.Join(dir, RepackDir, "short.wav"), 16000, 1, 1000)
	p := writeManifest(t, dir, []any{
		entry("eight k", "dev-all-repack/8k.wav", 0.1),
		entry("long", "dev-all-repack/long.wav", 29.9),
		entry("stereo", "dev-all-repack/stereo.wav", 0.1),
		entry("short", "dev-all-repack/short.wav", 0.1),
	})
	d, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Waveform(0); !errors.Is(err, audio.ErrRate) || !strings.Contains(err.Error(), "8k.wav") {
		t.Errorf("8 kHz: %v", err)
	}
	if _, err := d.Waveform(1); !errors.Is(err, audio.ErrTooLong) || !strings.Contains(err.Error(), "long.wav") {
		t.Errorf("31 s: %v", err)
	}
	if w, err := d.Waveform(2); err != nil || len(w) != 1600 {
		t.Errorf("stereo: %d samples, %v", len(w), err)
	}
	if _, err := d.Waveform(9); err == nil {
		t.Error("sample 9 of 4 accepted")
	}
	r, _ := Verify(d)
	joined := strings.Join(r.Problems, "\n")
	for _, want := range []string{"8k.wav", "long.wav", "stereo.wav has 2 channels", "short.wav has 1000 samples, its manifest entry says 1600"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	if r.Official {
		t.Error("a bad data set reported official")
	}
}
